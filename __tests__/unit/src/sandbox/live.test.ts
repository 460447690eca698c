/**
 * When a live() test may run: live mode, a real provider key, no CI. Each rule alone keeps it
 * from running, CI first (a key on CI is never enough), and the replay placeholder is no key.
 */
import { describe, expect, it } from '@jest/globals';
import { liveSkipReason } from '../../../../src/sandbox/live';

const KEY = { OPENAI_API_KEY: 'sk-test-LIVEUNIT0123456789abcdef' };

describe('liveSkipReason', () => {
  it('lets a live test run only in live mode, with a key, off CI', () => {
    expect(liveSkipReason('live', KEY)).toBeUndefined();
    expect(liveSkipReason('live', { ...KEY, CI: 'false' })).toBeUndefined();
  });

  it('never runs on CI, whatever the mode and key', () => {
    expect(liveSkipReason('live', { ...KEY, CI: 'true' })).toBe(
      'live() never runs on CI (CI="true") but in understudy live --allow-ci: it calls the real provider',
    );
    expect(liveSkipReason('live', { ...KEY, CI: '1' })).toContain('never runs on CI');
  });

  it('runs on CI in a run of understudy live --allow-ci (a nightly job), and only in live mode', () => {
    const allowed = { ...KEY, CI: 'true', UNDERSTUDY_ALLOW_CI: '1' };
    expect(liveSkipReason('live', allowed)).toBeUndefined();
    expect(liveSkipReason('replay', allowed)).toContain('runs only in live mode');
    expect(liveSkipReason('live', { ...KEY, CI: 'true', UNDERSTUDY_ALLOW_CI: 'yes' })).toContain(
      'never runs on CI',
    );
  });

  it('does not run in replay or record mode', () => {
    for (const mode of ['replay', 'record', 'record-missing'])
      expect(liveSkipReason(mode, KEY)).toBe(
        `live() runs only in live mode (understudy live, UNDERSTUDY_MODE=live); this run is in ${mode} mode`,
      );
  });

  it('needs a real key: the replay placeholder is none', () => {
    expect(liveSkipReason('live', {})).toContain('needs a provider key');
    expect(liveSkipReason('live', { OPENAI_API_KEY: 'sk-understudy-replay' })).toContain(
      'needs a provider key',
    );
  });
});
