// Work one test file of a worker leaves running, held until a later file lets it go: a request that
// file's test started then reaches the network while the later file runs. The module is the
// worker's (`isolate: false`), so the later file finds what the earlier one left.
let pending;

/** Leaves `work` waiting, in the async context of the test that calls this. */
export function leave(file, work) {
  let release;
  const gate = new Promise((resolve) => {
    release = resolve;
  });
  const outcome = gate.then(work).then(
    (answer) => ({ answered: answer }),
    (error) => ({ refused: String(error?.cause?.message ?? error?.message ?? error) }),
  );
  pending = { file, release, outcome };
}

/** What an earlier file left, taken (undefined in the worker's first file that asks). */
export function take() {
  const left = pending;
  pending = undefined;
  return left;
}
