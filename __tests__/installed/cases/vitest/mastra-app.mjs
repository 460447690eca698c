// The refunds agent in a process of its own, as a Mastra app runs it: `node mastra-app.mjs <model>
// generate|stream` asks it once, with the model of that name in MODELS, and prints the answer. Its
// model providers and the order desk come from the environment (the served port's, in the tests).
import { ask, MODELS, refundsAgent } from './mastra-agent.mjs';

const [model, method] = process.argv.slice(2);
const text = await ask(refundsAgent({ model: MODELS[model]() }), 'Please refund order A-1', {
  stream: method === 'stream',
});
process.stdout.write(text);
