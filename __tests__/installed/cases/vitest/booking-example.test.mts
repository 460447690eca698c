/**
 * The booking agent example (examples/booking-agent, copied beside this file as ./booking) under
 * Vitest, against its calendar world served over HTTP. The busy-calendar scenario answers the
 * first booking with BUSY: the agent retries inside one tool call; an agent that does not retry
 * must fail.
 *
 * @understudy-world ./booking/calendar.world.yaml
 */
import { script, understudy } from 'jest-understudy';
import { describe, expect, it } from 'vitest';
import { runBookingAgent } from './booking/agent';

const REQUEST = 'Please call me back tomorrow (2026-12-02) about my broken zip: sam@example.com';

const bookingFlow = script()
  .user(REQUEST)
  .callsTool('find_free_slots', { day: '2026-12-02' })
  .callsTool('book_callback', { slotId: 'slot-1030', email: 'sam@example.com', topic: 'broken zip' })
  .replies('You are booked for a callback tomorrow at 10:30.');

const evidence = () =>
  understudy.world.operations.map((op) =>
    [
      op.operationId,
      op.outcome.kind === 'error' ? op.outcome.error.code : 'ok',
      ...(op.override ? [op.override.id] : []),
    ].join(' '),
  );

/** A booked callback: both tools, the booking ending ok, one event in the calendar. */
function expectBooked(run: Awaited<ReturnType<typeof understudy.run>>) {
  expect(run).toHaveCalledToolSequence(['find_free_slots', 'book_callback']);
  expect(run).toHaveCalledTool('book_callback', { slotId: 'slot-1030' }, { outcome: 'ok' });
  expect(Object.values(understudy.world.state.calendar.events)).toEqual([
    expect.objectContaining({ slotId: 'slot-1030', email: 'sam@example.com' }),
  ]);
  expect(run).toHaveFinalMessage('10:30');
}

describe('booking a callback', () => {
  it('rides out a busy calendar (the tool retries) and books the customer once', async () => {
    understudy.world.reset({ scenario: 'busy-calendar' });
    understudy.model.use(bookingFlow);

    const run = await understudy.run(() => runBookingAgent(REQUEST));

    expectBooked(run);
    expect(evidence()).toEqual(['slots.list ok', 'events.create BUSY busy-once', 'events.create ok']);
    expect(run.toolCalls[1].operations).toHaveLength(2);
  });

  it('offers only the free slots', async () => {
    understudy.model.use(bookingFlow);

    const run = await understudy.run(() => runBookingAgent(REQUEST));

    expect(run.toolCalls[0].result).toEqual({
      slots: [
        expect.objectContaining({ id: 'slot-1030', free: true }),
        expect.objectContaining({ id: 'slot-1400', free: true }),
      ],
    });
    expect(evidence()).toEqual(['slots.list ok', 'events.create ok']);
  });

  it('an agent that does not retry fails on the busy calendar', async () => {
    understudy.world.reset({ scenario: 'busy-calendar' });
    understudy.model.use(bookingFlow);

    const run = await understudy.run(() => runBookingAgent(REQUEST, { bookingAttempts: 1 }));

    expectBooked(run);
  });
});
