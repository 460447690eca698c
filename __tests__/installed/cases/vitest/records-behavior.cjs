// The records example's behavior module (examples/records-agent/records.behavior.ts) in plain
// JavaScript: jest-understudy loads behavior modules with Node's require, and Node before 22.18
// cannot load TypeScript (Vitest's transform is for the test file's imports).
exports.save = (ctx) => {
  const { id, text } = ctx.input;
  const record = { id, text, version: (ctx.state.records[id]?.version ?? 0) + 1 };
  ctx.state.records[id] = record;
  ctx.emit({ type: 'record.saved', id, version: record.version });
  return record;
};
