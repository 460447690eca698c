/**
 * What one test sets up must not reach the next: chaos set in a test ends with it, and world
 * time advanced on a fake clock is kept when the test switches timers.
 * @understudy-world ./runs.world.yaml
 */
const { afterEach, beforeAll, describe, expect, it } = require('./runner-globals.cjs');
const OpenAI = require('openai');
const { understudy, script } = require('jest-understudy');

understudy.model.use(script().user('ping').replies('pong'));

const ask = async () => {
  try {
    const completion = await new OpenAI({ maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'ping' }],
    });
    return completion.choices[0].message.content;
  } catch (error) {
    return error.constructor.name;
  }
};

afterEach(() => {
  jest.useRealTimers();
});

describe('chaos', () => {
  it('set in a test applies to that test', async () => {
    understudy.model.chaos({ dropRate: 1 });
    expect(await ask()).toBe('APIConnectionError');
    expect(understudy.model.calls[0].fault).toBe('drop');
  });

  it('is gone in the next test', async () => {
    expect(await ask()).toBe('pong');
    expect(understudy.model.calls[0].fault).toBeUndefined();
  });

  describe('set in beforeAll', () => {
    beforeAll(() => {
      understudy.model.chaos({ rateLimitRate: 1 });
    });

    it('applies to a first test', async () => {
      expect(await ask()).toBe('RateLimitError');
    });

    it('can be turned off for one test', async () => {
      understudy.model.chaos(undefined);
      expect(await ask()).toBe('pong');
    });

    it('still applies to a later test', async () => {
      expect(await ask()).toBe('RateLimitError');
    });
  });
});

describe('world time advanced on a fake clock', () => {
  const fired = () => understudy.world.events.map((e) => e.event.type);

  it('is kept after jest.useRealTimers()', () => {
    jest.useFakeTimers();
    jest.advanceTimersByTime(10_000);
    jest.useRealTimers();
    expect(understudy.world.clock.now()).toBe(10_000);
    expect(fired()).toEqual(['notes.archived']);
    expect(understudy.world.state.notes.notes['n-1']).toBeUndefined();
  });

  it('is kept across a second jest.useFakeTimers()', () => {
    jest.useFakeTimers();
    jest.advanceTimersByTime(4_000);
    jest.useFakeTimers();
    jest.advanceTimersByTime(6_000);
    expect(understudy.world.clock.now()).toBe(10_000);
    expect(fired()).toEqual(['notes.archived']);
  });

  it('is kept across jest.clearAllTimers()', () => {
    jest.useFakeTimers();
    jest.advanceTimersByTime(4_000);
    jest.clearAllTimers();
    jest.advanceTimersByTime(6_000);
    expect(understudy.world.clock.now()).toBe(10_000);
  });

  it('starts again from 0 in the next test', () => {
    expect(understudy.world.clock.now()).toBe(0);
    expect(fired()).toEqual([]);
  });
});
