import { describe, expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import { anthropicAgent, chatAgent, geminiAgent, responsesAgent, save } from './agents';

const AGENTS = { chatAgent, responsesAgent, anthropicAgent, geminiAgent };

describe.each([
  ['openai.chat plain', 'chatAgent', false],
  ['openai.chat streamed', 'chatAgent', true],
  ['openai.responses plain', 'responsesAgent', false],
  ['openai.responses streamed', 'responsesAgent', true],
  ['anthropic.messages plain', 'anthropicAgent', false],
  ['anthropic.messages streamed', 'anthropicAgent', true],
  ['gemini plain', 'geminiAgent', false],
  ['gemini streamed', 'geminiAgent', true],
] as const)('%s', (name, agent, stream) => {
  it('looks two orders up in parallel and answers', async () => {
    // The question carries the key in use, as a careless prompt might: it must not reach the cassette.
    const key = process.env.OPENAI_API_KEY ?? '';
    const question = `${name}: where are orders A-1001 and B-2002? (debug key=${key})`;
    const run = await understudy.run(() => AGENTS[agent](question, stream));
    expect(run.error).toBeUndefined();
    expect(run.terminalState).toBe('succeeded');
    expect(run.toolsCalled).toEqual(['lookup_order', 'lookup_order']);
    expect(run.output).toMatch(/shipped.*packing/);
    save(name, run);
  });
});
