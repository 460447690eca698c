// An agent in another process for delivered-served.case.js: one turn of delivered-agents.js
// with the official client of <protocol>, configured only by the environment the test passes
// (served.env: base URLs, placeholder keys). Prints what it received as one JSON line.
//   node delivered-child.cjs <protocol> <plain|stream> [<stop as JSON: { text, calls, by }>]
// `stop.text`: give up once that many characters of text arrived; `stop.calls`: once a tool
// call's arguments have begun; `stop.by`: 'abort' (the default) or 'break'.
const { agents } = require('./delivered-agents.js');

const [protocol, mode, stopJson] = process.argv.slice(2);
const stop = stopJson ? JSON.parse(stopJson) : undefined;
const stopWhen =
  stop &&
  ((got) =>
    (stop.text !== undefined && got.text.length >= stop.text) ||
    (stop.calls !== undefined && got.calls.length > 0 && got.calls[0].args.length >= stop.calls));

agents[protocol]({ stream: mode === 'stream', ...(stop && { stopWhen, stopBy: stop.by }) }).then(
  (got) => process.stdout.write(`${JSON.stringify(got)}\n`),
  (error) => {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.exitCode = 1;
  },
);
