/**
 * The world clock keeps the time a fake clock was advanced by when the test switches timers.
 * Through `understudy.world` the environment has it read the outgoing clock first; a clock of
 * its own (no environment hook) reads an uninstalled or replaced clock afterwards.
 *
 * @understudy-world ../../../../fixtures/worlds/records.world.yaml
 * @jest-environment ./environment/jest/index.ts
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { understudy } from 'jest-understudy';
import { WorldClock } from '../../../../src/world/clock';

afterEach(() => {
  jest.useRealTimers();
});

const cleaned = () => understudy.world.events.map((e) => e.event.type);

describe('the file world clock', () => {
  it('keeps fake time after jest.useRealTimers(), and scheduled events fire', () => {
    jest.useFakeTimers();
    jest.advanceTimersByTime(60_000);
    jest.useRealTimers();
    expect(understudy.world.clock.now()).toBe(60_000);
    expect(cleaned()).toEqual(['cleanup.ran']);
    understudy.world.clock.advance(1);
    expect(understudy.world.clock.now()).toBe(60_001);
  });

  it('adds up the time of successive fake clocks', () => {
    jest.useFakeTimers();
    jest.advanceTimersByTime(20_000);
    jest.useFakeTimers();
    jest.advanceTimersByTime(20_000);
    jest.useRealTimers();
    jest.useFakeTimers();
    jest.advanceTimersByTime(20_000);
    expect(understudy.world.clock.now()).toBe(60_000);
    expect(cleaned()).toEqual(['cleanup.ran']);
  });

  it('keeps fake time across jest.clearAllTimers()', () => {
    jest.useFakeTimers();
    jest.advanceTimersByTime(40_000);
    jest.clearAllTimers();
    jest.advanceTimersByTime(20_000);
    expect(understudy.world.clock.now()).toBe(60_000);
  });

  it('starts each test at 0', () => {
    expect(understudy.world.clock.now()).toBe(0);
    expect(cleaned()).toEqual([]);
  });
});

describe('a world clock without the environment hook', () => {
  it('reads a fake clock that was uninstalled or replaced since its last look', () => {
    const clock = new WorldClock();
    jest.useFakeTimers();
    expect(clock.now()).toBe(0);
    jest.advanceTimersByTime(3_000);
    jest.useFakeTimers();
    expect(clock.now()).toBe(3_000);
    jest.advanceTimersByTime(4_000);
    jest.useRealTimers();
    expect(clock.now()).toBe(7_000);
  });

  it('goes on from where it was when a fake clock was reset behind its back', () => {
    const clock = new WorldClock();
    jest.useFakeTimers();
    jest.advanceTimersByTime(5_000);
    expect(clock.now()).toBe(5_000);
    jest.clearAllTimers();
    jest.advanceTimersByTime(1_000);
    expect(clock.now()).toBe(5_000);
    jest.advanceTimersByTime(2_000);
    expect(clock.now()).toBe(7_000);
  });

  it('follows the next clock from its start after detach', () => {
    const clock = new WorldClock();
    jest.useFakeTimers();
    jest.advanceTimersByTime(5_000);
    clock.detach();
    jest.clearAllTimers();
    jest.advanceTimersByTime(6_000);
    expect(clock.now()).toBe(11_000);
  });
});
