// The shared-worker cases' agent: its OpenAI client is made once, when the module loads, as an
// app's module-level client is. Under `isolate: false` the test files of a worker import this
// module once, so every file's calls go through the client the first file's import made (and the
// `fetch` it took then).
import { writeFileSync } from 'node:fs';
import OpenAI from 'openai';
import agents from '../native-agents.cjs';

const client = new OpenAI({ maxRetries: 0 });
const tools = [
  {
    type: 'function',
    function: {
      name: 'add_note',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
  },
];

/** One tool loop: the model asks for add_note, the test's tool adds it, the model answers. */
export const addNote = (text, addNoteTool) => agents.openaiToolLoop(client, text, tools, addNoteTool);

/** The test files that imported this copy of the module, in order. */
const filesSeen = [];

/** Notes which worker process ran the file and which files this module copy saw before it. */
export function fileStarted(name) {
  writeFileSync(
    new URL(`./seen-${name}.json`, import.meta.url),
    JSON.stringify({ pid: process.pid, before: [...filesSeen] }),
  );
  filesSeen.push(name);
}
