/**
 * A test file whose import fails: Vitest runs none of its hooks, so under `isolate: false` the
 * session its setup file started is still open when the worker's next file starts.
 *
 * @understudy-world ./shared.world.yaml
 */
import './no-such-module.mjs';
