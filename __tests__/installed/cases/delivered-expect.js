// The check the delivered-*.case.js files share: a run whose reply (delivered-agents.js `reply`)
// was cut short holds what the agent received (`got`), and says where the wire cut it.
const { expect } = require('./runner-globals.cjs');
const { CALLS, TEXT } = require('./delivered-agents.js');

/**
 * `overSocket`: the agent gave up reading over a connection, so the evidence is what was written
 * before the server saw it go, which may run a chunk past what the agent read (never past the cut).
 */
function expectReceived(run, got, reason, { overSocket = false } = {}) {
  const [call] = run.modelCalls;
  expect(call.cut).toEqual(expect.objectContaining({ reason }));
  expect(call.whole).toEqual(expect.objectContaining({ content: TEXT }));
  const text = call.response?.content ?? '';
  if (overSocket) {
    expect(text.startsWith(got.text)).toBe(true);
    const written = run.toolCalls.map((c) => [c.name, c.rawArguments]);
    got.calls.forEach((c, i) => {
      expect(written[i]?.[0]).toBe(c.name);
      expect(written[i][1].startsWith(c.args)).toBe(true);
    });
  } else {
    expect(text).toBe(got.text);
    expect(run.toolCalls.map((c) => [c.name, c.rawArguments])).toEqual(
      got.calls.map((c) => [c.name, c.args]),
    );
  }
  // A call is complete only if its arguments arrived whole; those are exactly what was sent.
  for (const c of run.toolCalls)
    if (c.incomplete) expect(c.answered).toBe(false);
    else expect(c.arguments).toEqual(CALLS.find((s) => s.name === c.name).arguments);
  expect(run.finalMessage).toBeUndefined();
  expect(run.terminalState).toBe('failed');
}

module.exports = { expectReceived };
