import { expect, it } from '@jest/globals';
import { guarded } from './guards';

it('runs with every guard in place', () => {
  expect(Object.values(guarded()).every(Boolean)).toBe(true);
  const slot = (globalThis as Record<symbol, { constructor: { name: string } } | undefined>)[
    Symbol.for('undici.globalDispatcher.1')
  ];
  expect(slot?.constructor.name).toBe('InterceptionDispatcher');
});
