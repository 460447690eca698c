// What was delivered, in live mode: the real provider's stream (a stand-in on loopback, at
// DELIVERED_UPSTREAM) is teed to the agent and to the recorder, and the run holds what the agent
// read of it: the provider cutting the stream mid-arguments, the agent giving up mid-text.
// The stand-in answers the model name: `cut` drops the connection inside the first call's
// arguments, `paced` sends one event every 20 ms, `whole` the whole reply.
// Tests named "no false green: …" assert what the provider's whole reply would have let pass: they fail.
const { describe, expect, it } = require('./runner-globals.cjs');
const { understudy } = require('jest-understudy');
const { agents, TEXT } = require('./delivered-agents.js');

const base = {
  'openai.chat': `${process.env.DELIVERED_UPSTREAM}/openai/v1`,
  'anthropic.messages': `${process.env.DELIVERED_UPSTREAM}/anthropic`,
};

// The agents ask for a model of their own: the stand-in reads the fixture's model from the request.
const turn = (protocol, model, options = {}) =>
  agents[protocol]({ stream: true, baseURL: base[protocol], model, ...options });

for (const protocol of Object.keys(base))
  describe(protocol, () => {
    it('the provider drops the connection inside a call: the run holds what the agent read', async () => {
      const run = await understudy.run(() => turn(protocol, 'cut'));
      const got = run.output;
      const [call] = run.modelCalls;
      expect(call.recorded).toBe(true);
      expect(call.cut).toEqual(expect.objectContaining({ reason: 'disconnected' }));
      expect(call.response.content).toBe(got.text);
      expect(got.text).toBe(TEXT);
      expect(run.toolCalls.map((c) => [c.name, c.rawArguments, c.incomplete])).toEqual(
        got.calls.map((c) => [c.name, c.args, true]),
      );
      expect(run.finalMessage).toBeUndefined();
      expect(run.terminalState).toBe('failed');
    });

    it('the agent gives up mid-text: the run holds what it read', async () => {
      const run = await understudy.run(() =>
        turn(protocol, 'paced', { stopWhen: (g) => g.text.length >= 10 }),
      );
      const got = run.output;
      const [call] = run.modelCalls;
      expect(call.cut).toEqual(expect.objectContaining({ reason: 'aborted' }));
      // The client reads the provider's stream a chunk at a time: the chunk it stopped in may hold
      // events its loop never got to, so the run holds what it read, and at most that chunk more.
      const delivered = call.response?.content ?? '';
      expect(delivered.startsWith(got.text)).toBe(true);
      expect(delivered.length).toBeLessThan(TEXT.length);
      expect(run.toolCalls).toEqual([]);
      expect(run.finalMessage).toBeUndefined();
      expect(run.terminalState).toBe('failed');
    });

    it('the whole stream: the run holds the provider reply, nothing cut', async () => {
      const run = await understudy.run(() => turn(protocol, 'whole'));
      expect(run.modelCalls[0].cut).toBeUndefined();
      expect(run.finalMessage).toBe(TEXT);
      expect(run).toHaveRequestedTool('transfer', { to: 'alice', amount: 100 });
    });

    it('no false green: toHaveFinalMessage on the text of a stream the agent gave up on', async () => {
      const run = await understudy.run(() =>
        turn(protocol, 'paced', { stopWhen: (g) => g.text.length >= 10 }),
      );
      expect(run).toHaveFinalMessage('storm is coming');
    });

    it('no false green: toHaveRequestedTool with the arguments of a call the provider cut', async () => {
      const run = await understudy.run(() => turn(protocol, 'cut'));
      expect(run).toHaveRequestedTool('transfer', { to: 'alice', amount: 100 });
    });
  });
