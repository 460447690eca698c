/**
 * The CI rule: record and live modes never start when CI is set, unless the run is one of
 * `understudy live --allow-ci` (UNDERSTUDY_ALLOW_CI=1, set by that command for its runner runs).
 */
import { describe, expect, it } from '@jest/globals';
import { ciForbids, ciRefusal } from '../../../../src/record/mode';

describe('the CI rule', () => {
  it('refuses the modes that reach the provider on CI, never replay', () => {
    for (const mode of ['record', 'record-missing', 'live'] as const)
      expect(ciRefusal(mode, 'here', { CI: 'true' })).toContain(`here asks for ${mode} mode, but CI is set`);
    expect(ciRefusal('replay', 'here', { CI: 'true' })).toBeUndefined();
    expect(ciRefusal('live', 'here', { CI: 'false' })).toBeUndefined();
  });

  it('is lifted by UNDERSTUDY_ALLOW_CI=1 only, the variable understudy live --allow-ci sets', () => {
    expect(ciForbids({ CI: 'true', UNDERSTUDY_ALLOW_CI: '1' })).toBe(false);
    expect(ciRefusal('live', 'here', { CI: 'true', UNDERSTUDY_ALLOW_CI: '1' })).toBeUndefined();
    for (const value of ['true', '0', ''])
      expect(ciForbids({ CI: 'true', UNDERSTUDY_ALLOW_CI: value })).toBe(true);
  });
});
