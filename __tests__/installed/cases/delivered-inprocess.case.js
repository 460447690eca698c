// A run's evidence is what reached the agent, not what the fixture scripted: every protocol, its
// official client in this process, a reply of text and two parallel tool calls cut short on the
// wire (truncated, dropped, damaged, failed mid-stream) or given up by the agent (an aborted
// request, a loop left early), and a plain reply cut in half. The agent keeps what it received
// and returns normally, so nothing but the evidence can tell the test what happened.
// Tests named "no false green: …" assert what the scripted reply would have let pass: they fail.
const { describe, expect, it } = require('./runner-globals.cjs');
const { understudy } = require('jest-understudy');
const { agents, reply, TEXT } = require('./delivered-agents.js');
const { expectReceived } = require('./delivered-expect.js');

/** Events before the first call's arguments end, per protocol, with chunks of 4 characters. */
const WITHIN_CALLS = {
  'openai.chat': 19,
  'openai.responses': 24,
  'anthropic.messages': 19,
  'gemini.generateContent': 14,
  'bedrock.converse': 19,
};

const afterText = (n) => (got) => got.text.length >= n;
// The first call's arguments have begun, not ended: the agent gives up there.
const midArguments = (got) => got.calls.length > 0 && got.calls[0].args.length >= 8;

const CUTS = {
  truncated: { shaping: { truncateAfterChunks: 6 }, reason: 'truncated' },
  // Inside the first call's arguments (Gemini sends each call whole: between the two calls).
  'truncated within the tool calls': {
    shaping: (protocol) => ({ truncateAfterChunks: WITHIN_CALLS[protocol] }),
    reason: 'truncated',
    calls: true,
  },
  disconnected: { shaping: { disconnect: true }, reason: 'disconnected', calls: true },
  'a malformed event': { shaping: { malformed: 4 }, reason: 'malformed' },
  'a mid-stream error': {
    shaping: { streamError: { message: 'overloaded', afterChunks: 7 } },
    reason: 'stream_error',
  },
  'an aborted request': { agent: { stopWhen: afterText(10) }, reason: 'aborted' },
  'a loop left early': { agent: { stopWhen: afterText(10), stopBy: 'break' }, reason: 'aborted' },
  'an aborted request mid-arguments': { agent: { stopWhen: midArguments }, reason: 'aborted', calls: true },
};

for (const [protocol, agent] of Object.entries(agents))
  describe(protocol, () => {
    for (const [name, cut] of Object.entries(CUTS)) {
      // The AWS SDK reads over HTTP/2: an unpaced reply is on its connection whole before it reads.
      const own = typeof cut.shaping === 'function' ? cut.shaping(protocol) : cut.shaping;
      const shaping = protocol === 'bedrock.converse' && cut.agent ? { ...own, chunkDelay: 2 } : own;
      it(`streamed, ${name}: the run holds what the agent received`, async () => {
        understudy.model.use(reply(shaping));
        let got;
        const run = await understudy.run(async () => {
          got = await agent({ stream: true, ...cut.agent });
        });
        // The AWS SDK reads over a connection (node:http / HTTP/2, answered below fetch): what was
        // written before the abort reached the server may run a chunk past its loop (docs/runs.md).
        expectReceived(run, got, cut.reason, { overSocket: protocol === 'bedrock.converse' });
        // Not both calls arrived whole: the one cut short is missing or incomplete.
        if (cut.calls) expect(run.toolCalls.filter((c) => !c.incomplete).length).toBeLessThan(2);
      });
    }

    it('plain, a malformed body: nothing of the reply is evidence', async () => {
      understudy.model.use(reply({ malformed: true }));
      let got;
      const run = await understudy.run(async () => {
        got = await agent({ stream: false });
      });
      expect(got.error).not.toBeNull();
      expect(run.modelCalls[0].cut).toEqual({ reason: 'malformed', delivered: 0, of: 1 });
      expect(run.modelCalls[0].response).toBeUndefined();
      expect(run.toolCalls).toEqual([]);
      expect(run.finalMessage).toBeUndefined();
      expect(run.terminalState).toBe('failed');
    });

    it('streamed and whole: the evidence is the scripted reply, nothing cut', async () => {
      understudy.model.use(reply({}));
      let got;
      const run = await understudy.run(async () => {
        got = await agent({ stream: true });
      });
      expect(got.text).toBe(TEXT);
      expect(run.modelCalls[0]).not.toHaveProperty('cut');
      expect(run.modelCalls[0]).not.toHaveProperty('whole');
      expect(run.finalMessage).toBe(TEXT);
      expect(run).toHaveRequestedTool('transfer', { to: 'alice', amount: 100 });
      expect(run.toolCalls.map((c) => c.incomplete)).toEqual([undefined, undefined]);
    });

    it('no false green: toHaveFinalMessage on the scripted text of a truncated reply', async () => {
      understudy.model.use(reply({ truncateAfterChunks: 6 }));
      const run = await understudy.run(() => agent({ stream: true }));
      expect(run).toHaveFinalMessage('storm is coming');
    });

    it('no false green: toHaveRequestedTool with the scripted arguments of a call cut mid-way', async () => {
      understudy.model.use(reply({ disconnect: true }));
      const run = await understudy.run(() => agent({ stream: true }));
      expect(run).toHaveRequestedTool('transfer', { to: 'alice', amount: 100 });
    });

    it('no false green: a run whose agent swallowed a cut stream ends succeeded', async () => {
      understudy.model.use([
        { match: {}, response: { content: TEXT, chunkSize: 4, truncateAfterChunks: 6 } },
      ]);
      const run = await understudy.run(() => agent({ stream: true }));
      expect(run).toHaveTerminalState('succeeded');
    });
  });

it('a request given up while the reply waits for its latency got nothing', async () => {
  understudy.model.use(reply({ latency: 500 }));
  const run = await understudy.run(() => agents['openai.chat']({ stream: false, abortAfterMs: 50 }));
  expect(run.modelCalls[0].cut).toEqual({ reason: 'aborted', delivered: 0 });
  expect(run.modelCalls[0].response).toBeUndefined();
  expect(run.terminalState).toBe('failed');
});
