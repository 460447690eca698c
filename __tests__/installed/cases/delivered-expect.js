// The check the delivered-*.case.js files share: a run whose reply (delivered-agents.js `reply`)
// was cut short holds what the agent received (`got`), and says where the wire cut it.
const { expect } = require('@jest/globals');
const { CALLS, TEXT } = require('./delivered-agents.js');

function expectReceived(run, got, reason) {
  const [call] = run.modelCalls;
  expect(call.cut).toEqual(expect.objectContaining({ reason }));
  expect(call.whole).toEqual(expect.objectContaining({ content: TEXT }));
  expect(call.response?.content ?? '').toBe(got.text);
  expect(run.toolCalls.map((c) => [c.name, c.rawArguments])).toEqual(got.calls.map((c) => [c.name, c.args]));
  // A call is complete only if its arguments arrived whole; those are exactly what was sent.
  for (const c of run.toolCalls)
    if (c.incomplete) expect(c.answered).toBe(false);
    else expect(c.arguments).toEqual(CALLS.find((s) => s.name === c.name).arguments);
  expect(run.finalMessage).toBeUndefined();
  expect(run.terminalState).toBe('failed');
}

module.exports = { expectReceived };
