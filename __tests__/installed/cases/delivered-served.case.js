// What was delivered, over the served port: an agent in another process (delivered-child.cjs,
// the official client of each protocol) gets a reply cut short on the wire, or gives up on it
// mid-stream, and the run holds what that process received, as it does in process.
// Tests named "no false green: …" assert what the scripted reply would have let pass: they fail.
const { execFile } = require('node:child_process');
const { join } = require('node:path');
const { beforeAll, describe, expect, it } = require('./runner-globals.cjs');
const { understudy } = require('jest-understudy');
const { reply } = require('./delivered-agents.js');
const { expectReceived } = require('./delivered-expect.js');

// @google/genai before 3, given up on after its first call, is still written the last chunk before
// the port sees it go: the reply reached it whole (see docs/runs.md, what was delivered).
const { existsSync, readFileSync } = require('node:fs');
const { dirname } = require('node:path');
function genaiMajor() {
  let dir = dirname(require.resolve('@google/genai'));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return Number(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version.split('.')[0]);
}
const GEMINI_STOPS_BETWEEN_CALLS = genaiMajor() >= 3;

let served;
beforeAll(async () => {
  served = await understudy.serve();
});

/** The child's turn, inside the run (its URLs carry the run's token); resolves with what it received. */
function child(protocol, mode, stop) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(__dirname, 'delivered-child.cjs'), protocol, mode, ...(stop ? [JSON.stringify(stop)] : [])],
      { env: { ...process.env, ...served.env } },
      (error, stdout, stderr) =>
        error ? reject(new Error(stderr || String(error))) : resolve(JSON.parse(stdout)),
    );
  });
}

// Paced (the port writes an unpaced reply in one go: its client has it all before reading), slow
// enough that the other process's abort reaches the port before the rest of the reply is written,
// on a loaded machine too (three runners' child runs at once).
const PACED = { chunkDelay: 40 };
const CUTS = {
  truncated: { shaping: { truncateAfterChunks: 6 }, reason: 'truncated' },
  disconnected: { shaping: { disconnect: true }, reason: 'disconnected' },
  'a mid-stream error': {
    shaping: { streamError: { message: 'overloaded', afterChunks: 7 } },
    reason: 'stream_error',
  },
  'an aborted request': { shaping: PACED, stop: { text: 10 }, reason: 'aborted' },
  'a loop left early': { shaping: PACED, stop: { text: 10, by: 'break' }, reason: 'aborted' },
  'an aborted request mid-arguments': { shaping: PACED, stop: { calls: 8 }, reason: 'aborted' },
};

for (const protocol of ['openai.chat', 'openai.responses', 'anthropic.messages', 'gemini.generateContent'])
  describe(protocol, () => {
    for (const [name, cut] of Object.entries(CUTS)) {
      // @google/genai leaves a loop by letting go of the body, unread, with its connection open:
      // the rest of the reply still goes out to that process (the wire cannot tell it stopped).
      if (protocol === 'gemini.generateContent' && cut.stop?.by === 'break') continue;
      if (protocol === 'gemini.generateContent' && cut.stop?.calls && !GEMINI_STOPS_BETWEEN_CALLS) continue;
      it(`${name}: the run holds what the other process received`, async () => {
        // Gemini sends each call whole, so a stop inside the first call's arguments leaves one
        // event to go: the pause before it must outlast the other process's abort reaching the
        // port, or the whole reply is written first, on a loaded machine as well.
        const betweenCalls = protocol === 'gemini.generateContent' && cut.stop?.calls;
        understudy.model.use(reply(betweenCalls ? { chunkDelay: 500 } : cut.shaping));
        const run = await understudy.run(() => child(protocol, 'stream', cut.stop));
        expectReceived(run, run.output, cut.reason, { overSocket: cut.stop !== undefined });
      }, 30_000);
    }

    it('no false green: toHaveFinalMessage on the scripted text of a reply the child gave up on', async () => {
      understudy.model.use(reply(PACED));
      const run = await understudy.run(() => child(protocol, 'stream', { text: 10 }));
      expect(run).toHaveFinalMessage('storm is coming');
    }, 30_000);

    it('no false green: toHaveRequestedTool with the scripted arguments of a call the child did not get whole', async () => {
      understudy.model.use(reply(PACED));
      // Gemini sends each call whole: the child gives up before the first one.
      const stop = protocol === 'gemini.generateContent' ? { text: 10 } : { calls: 8 };
      const run = await understudy.run(() => child(protocol, 'stream', stop));
      expect(run).toHaveRequestedTool('transfer', { to: 'alice', amount: 100 });
    }, 30_000);
  });
