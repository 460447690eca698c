/**
 * A model cannot call a tool it was not given, from the installed package: every protocol's
 * official client, inline fixtures, script(), a fixture file, the served port and the Agents
 * SDK's case-sensitive handoff tool. Each failing case fails for the contract alone, naming the
 * offered tools and what the fixture most likely meant; the controls pass.
 */
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { fileOf } from '../support/installed';
import { rowsOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';
import { EACH_RUNNER } from './shared';

describe.each(rowsOf(__filename, EACH_RUNNER))(
  'a fixture that calls a tool the request does not offer fails the test (%s)',
  (_, runner) => {
    let file: ChildFile;
    beforeAll(async () => {
      file = fileOf(await sharedRun('fidelity-tools', runner), 'fidelity-tools.case.js');
    }, 120_000);

    /** The one failure of a case: the contract's, with every part given. */
    function expectRefused(title: string, parts: string[]) {
      const test = file.tests.find((t) => t.title === title);
      if (!test) throw new Error(`no test "${title}":\n${file.message}`);
      expect(test.status).toBe('failed');
      expect(test.failureMessages).toHaveLength(1);
      const message = stripVTControlCharacters(test.failureMessages[0]);
      expect(message).toContain('CONTRACT_BREACH');
      expect(message).toContain('Rule: offered-tools');
      for (const part of parts) expect(message).toContain(part);
      return message;
    }

    const OFFERED =
      'but the request offers only "get_weather", "get_time": a model cannot call a tool it was not given.';

    it('on OpenAI Chat, plain and streamed, inline and from script()', () => {
      expectRefused('chat: an inline fixture calls get_wether', [
        'the fixture that answered this openai.chat request',
        'At: fixture #0 response.toolCalls[0]',
        `the fixture calls "get_wether", ${OFFERED} Did you mean "get_weather"?`,
      ]);
      expectRefused('chat streamed: a script() calls get_wether', [
        `the fixture calls "get_wether", ${OFFERED} Did you mean "get_weather"?`,
      ]);
    });

    it('over the served port, from a fixture file named with its JSON path, with no guess when none is close', () => {
      const message = expectRefused('chat over the served port: a fixture file calls delete_everything', [
        'fidelity-unoffered.fixture.json $.fixtures[0] response.toolCalls[0]',
        `the fixture calls "delete_everything", ${OFFERED}`,
      ]);
      expect(message).not.toContain('Did you mean');
    });

    it('when tool_choice lets the model call no tool', () => {
      expectRefused('chat: tool_choice "none" and a fixture that calls get_weather', [
        'the fixture calls "get_weather", but tool_choice is "none": the model may call no tool in this request',
      ]);
    });

    it('on the Responses API, plain and streamed, and for a hosted tool called as a function', () => {
      for (const title of [
        'responses: a fixture calls get_wether',
        'responses streamed: a fixture calls get_wether',
      ])
        expectRefused(title, [
          'this openai.responses request',
          `the fixture calls "get_wether", ${OFFERED} Did you mean "get_weather"?`,
        ]);
      expectRefused('responses: a fixture calls the hosted web_search as a function', [
        'the fixture calls "web_search", which the request offers only as the built-in tool web_search, not as a function the client runs',
        'a fixture says the model searched the web with `webSearches: ["<query>"]`',
      ]);
    });

    it('on Anthropic Messages, plain and streamed, and a web search the request does not offer', () => {
      for (const title of [
        'anthropic: a fixture calls get_wether',
        'anthropic streamed: a fixture calls get_wether',
      ])
        expectRefused(title, [
          'this anthropic.messages request',
          `the fixture calls "get_wether", ${OFFERED} Did you mean "get_weather"?`,
        ]);
      expectRefused('anthropic: a fixture calls the web_search server tool as a function', [
        'the fixture calls "web_search", which the request offers only as the built-in tool web_search_20250305, not as a function the client runs',
      ]);
      expectRefused(
        'anthropic: a fixture says the model searched the web, and the request offers no search tool',
        [
          'response.webSearches',
          'the request offers no web search tool (a `web_search_20250305` server tool)',
        ],
      );
    });

    it('on Gemini and Bedrock Converse, plain and streamed, and Gemini Search called as a function', () => {
      for (const title of [
        'gemini: a fixture calls get_wether',
        'gemini streamed: a fixture calls get_wether',
      ])
        expectRefused(title, [
          'this gemini.generateContent request',
          `the fixture calls "get_wether", ${OFFERED} Did you mean "get_weather"?`,
        ]);
      expectRefused(
        'gemini: a fixture calls google_search, which the request offers only as the built-in googleSearch',
        [
          'the fixture calls "google_search", which the request offers only as the built-in tool googleSearch',
        ],
      );
      for (const title of [
        'bedrock: a fixture calls get_wether',
        'bedrock streamed: a fixture calls get_wether',
      ])
        expectRefused(title, [
          'this bedrock.converse request',
          `the fixture calls "get_wether", ${OFFERED} Did you mean "get_weather"?`,
        ]);
    });

    it("names the Agents SDK's handoff tool, whose name is case-sensitive", () => {
      expectRefused('agents sdk: a fixture hands off to transfer_to_customer_support_agent', [
        'this openai.responses request',
        'the fixture calls "transfer_to_customer_support_agent", but the request offers only "transfer_to_Customer_Support_Agent"',
        'Did you mean "transfer_to_Customer_Support_Agent"? (tool names are case-sensitive)',
      ]);
    });

    it('and passes the same agents when the fixtures call what the requests offer', () => {
      const controls = file.tests.filter((t) => t.title.startsWith('control:'));
      expect(controls.map((t) => [t.title, t.status, t.failureMessages.join('\n')])).toEqual([
        ['control: the agents sdk hands off with its own tool name', 'passed', ''],
        [
          'control: offered tools, a hosted web search the request offers, and an Anthropic bash tool',
          'passed',
          '',
        ],
      ]);
    });
  },
);
