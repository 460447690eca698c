/**
 * Replies whose text comes after a tool call, from the installed package, under Jest (CommonJS
 * and ESM) and Vitest: the official clients see text and calls in the model's order in whole
 * loops (Responses, Anthropic, Gemini, Bedrock; plain, streamed, over the served port; the AI SDK
 * in ordered-blocks-ai-sdk.test.ts), aimock's own example file answers them, and Chat Completions and Ollama refuse it with
 * our message. Each "must fail" case fails, and how is checked here.
 */
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { fileOf } from '../support/installed';
import { runnersOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';

const failures = (file: ChildFile, title: string): string => {
  const test = file.tests.find((t) => t.title === title);
  if (!test) throw new Error(`no test "${title}":\n${file.message}`);
  expect(test.status).toBe('failed');
  return stripVTControlCharacters(test.failureMessages.join('\n'));
};

const passing = (file: ChildFile) => {
  const tests = file.tests.filter((t) => !t.title.includes('must fail'));
  expect(tests.map((t) => [t.title, t.status, t.failureMessages.join('\n')])).toEqual(
    tests.map((t) => [t.title, 'passed', '']),
  );
  return tests;
};

describe.each(runnersOf(__filename))('ordered blocks (%s)', (runner) => {
  let loops: ChildFile;
  let refused: ChildFile;

  beforeAll(async () => {
    loops = fileOf(await sharedRun('ordered-blocks-loops', runner), 'ordered-blocks-loops.case.js');
    refused = fileOf(await sharedRun('ordered-blocks-refused', runner), 'ordered-blocks-refused.case.js');
  }, 180_000);

  it('the clients see the text after the call in its place, plain, streamed and over the served port', () => {
    expect(passing(loops)).toHaveLength(11);
  });

  it.each(['plain', 'streamed'])(
    '%s: an agent that takes text after a call for the final answer fails, where the matcher says why',
    (how) => {
      const anthropic = failures(
        loops,
        `${how} must fail: an Anthropic agent that takes text after a call for the final answer`,
      );
      expect(anthropic).toContain('but the agent never ran it');
      expect(anthropic).toContain('get_weather');
      const responses = failures(
        loops,
        `${how} must fail: a Responses agent that takes text after a call for the final answer`,
      );
      expect(responses).toContain('succeeded');
      expect(responses).toContain('failed');
    },
  );

  it.each(['plain', 'streamed'])('%s: an agent that moves the text before the calls fails', (how) => {
    const message = failures(loops, `${how} must fail: an agent that says a reply's text before its calls`);
    // Received: the texts first, then the calls.
    expect(message).toContain(
      'say:NYC first. | say:Now Boston. | say:Both asked. | call:get_weather NYC | call:get_weather Boston',
    );
  });

  it('the protocols that keep order are unaffected, and text that comes first still answers Chat', () => {
    expect(passing(refused)).toHaveLength(2);
  });

  it.each(['plain', 'streamed'])(
    '%s: Chat Completions and Ollama refuse it, naming the protocol, the file, the JSON path and what to do',
    (how) => {
      for (const [title, name] of [
        [`${how} must fail: Chat Completions cannot send text after a call`, 'Chat Completions'],
        [`${how} must fail: Ollama's /api/chat cannot send text after a call`, "Ollama's /api/chat"],
      ]) {
        const message = failures(refused, title);
        expect(message).toContain('REPLY_ORDER_UNSUPPORTED');
        expect(message).toContain(`has text after a tool call, which ${name} cannot send in that order`);
        expect(message).toMatch(/blocks-tool-first\.json at \$\.fixtures\[0\]\.response\.blocks\[1\]/);
        expect(message).toContain('move the text blocks before the toolCall blocks');
        // The agent swallowed the 500 as the case expects: the refusal alone fails the test.
        expect(message).not.toMatch(/toBe\(|toBeInstanceOf\(/);
      }
    },
  );
});
