// The parity scenarios under every runner (see parity-scenarios.cjs).
const { expect, it } = require('../runner-globals.cjs');
const scenarios = require('./parity-scenarios.cjs');

for (const [title, [body]] of Object.entries(scenarios)) it(title, () => body(expect));
