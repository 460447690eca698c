/**
 * The booking agent against its calendar world. The busy-calendar scenario answers the first
 * booking with BUSY: the tool retries inside one tool call, so the run succeeds while the
 * evidence keeps the failed attempt. That is the step the HTML timeline opens and marks (see
 * README.md and timeline.test.ts).
 *
 * @understudy-world ./calendar.world.yaml
 */
import { describe, expect, it } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import { runBookingAgent } from './agent';

const REQUEST = 'Please call me back tomorrow (2026-12-02) about my broken zip: sam@example.com';

// The model's side: find the free slots, book one, confirm.
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

describe('booking a callback', () => {
  it('rides out a busy calendar (the tool retries) and books the customer once', async () => {
    understudy.world.reset({ scenario: 'busy-calendar' });
    understudy.model.use(bookingFlow);

    const run = await understudy.run(() => runBookingAgent(REQUEST));

    expect(run).toHaveCalledToolSequence(['find_free_slots', 'book_callback']);
    // The tool call ended as its last attempt did.
    expect(run).toHaveCalledTool('book_callback', { slotId: 'slot-1030' }, { outcome: 'ok' });
    expect(evidence()).toEqual(['slots.list ok', 'events.create BUSY busy-once', 'events.create ok']);
    expect(run.toolCalls[1].operations).toHaveLength(2);
    expect(Object.values(understudy.world.state.calendar.events)).toEqual([
      expect.objectContaining({ slotId: 'slot-1030', email: 'sam@example.com' }),
    ]);
    expect(run).toHaveFinalMessage('10:30');
  });

  it('without the retry, the BUSY reaches the model and nothing is booked', async () => {
    understudy.world.reset({ scenario: 'busy-calendar' });
    understudy.model.use(
      script()
        .user(REQUEST)
        .callsTool('find_free_slots', { day: '2026-12-02' })
        .callsTool('book_callback', { slotId: 'slot-1030', email: 'sam@example.com', topic: 'broken zip' })
        .replies('Sorry, the calendar is busy right now; please try again in a minute.'),
    );

    const run = await understudy.run(() => runBookingAgent(REQUEST, { bookingAttempts: 1 }));

    expect(run).toHaveCalledTool(
      'book_callback',
      { slotId: 'slot-1030' },
      { outcome: 'error', code: 'BUSY' },
    );
    expect(run.toolCalls[1].result).toEqual({ error: 'The calendar is busy, try again' });
    expect(understudy.world.state.calendar.events).toEqual({});
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
});
