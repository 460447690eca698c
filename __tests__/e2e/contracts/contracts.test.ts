/**
 * Request contracts, seen from outside a Jest run: real clients driven into breaking each
 * rule get the provider's own error (the case files check it), and the test fails naming
 * the rule and where the request broke it (checked here).
 */
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildFile, runJest } from '../../support/child-jest';

function outcome(files: ChildFile[], title: string) {
  for (const f of files) {
    const t = f.tests.find((x) => x.title === title);
    if (t) return { status: t.status, messages: t.failureMessages.map((m) => stripVTControlCharacters(m)) };
  }
  throw new Error(`no test titled ${JSON.stringify(title)} in ${files.map((f) => f.name).join(', ')}`);
}

/**
 * The case's own expectations held (no other failure) and the environment failed it for the
 * contract: one failure, naming the rule, the place and the API's answer.
 */
function expectContractFailure(files: ChildFile[], title: string, parts: string[]) {
  const t = outcome(files, title);
  expect(t.status).toBe('failed');
  expect(t.messages).toHaveLength(1);
  for (const part of parts) expect(t.messages[0]).toContain(part);
}

/** The results of the option case file `name` (run with the cases, under the default configuration). */
function optionCase(files: ChildFile[], name: string): ChildFile {
  const file = files.find((f) => f.name.endsWith(`/option-cases/${name}`));
  if (!file) throw new Error(`no results for option-cases/${name}`);
  return file;
}

describe('request contracts through real clients', () => {
  let files: ChildFile[] = [];
  beforeAll(async () => {
    // The option cases that need the default configuration run here too: one child Jest.
    files = (
      await runJest({
        testMatch: [
          '__tests__/e2e/contracts/cases/*.case.ts',
          '__tests__/e2e/contracts/option-cases/docblock-off.case.ts',
          '__tests__/e2e/contracts/option-cases/config-off.case.ts',
        ],
      })
    ).files;
  }, 120_000);

  describe('OpenAI Chat Completions', () => {
    for (const mode of ['plain', 'streamed'])
      it(`fails the test of an agent that drops one of two parallel tool results (${mode})`, () => {
        expectContractFailure(files, `chat: an agent that drops one of two parallel tool results (${mode})`, [
          'this openai.chat request (POST https://api.openai.com/v1/chat/completions) breaks the provider',
          'Rule: tool-results',
          'At: messages[1] (message index 1)',
          'but no tool message answers it before the end of the request',
          "400 invalid_request_error: An assistant message with 'tool_calls' must be followed by tool messages",
          'contracts: { "tool-results": false }',
        ]);
      });

    it('fails a tool message that answers no call', () => {
      expectContractFailure(files, 'chat: a tool message that answers no call', [
        'Rule: tool-results',
        'At: messages[1]',
        'does not follow an assistant message that made that call',
      ]);
    });

    it('fails a tool name outside the API pattern, and an open strict schema', () => {
      expectContractFailure(files, 'chat: a tool name the API does not accept', [
        'Rule: tool-definitions',
        'At: tools[0].function.name',
        'the tool name "fs.list" has characters outside [a-zA-Z0-9_-]',
      ]);
      expectContractFailure(files, 'chat: a strict tool whose schema leaves objects open', [
        'Rule: tool-definitions',
        'the strict parameters of book break Structured Outputs',
      ]);
    });

    it('fails a fixture whose reply breaks the requested json_schema, naming the JSON path', () => {
      expectContractFailure(files, 'chat: a reply that breaks the requested json_schema', [
        'the fixture that answered this openai.chat request',
        'Rule: structured-output',
        'response.content',
        'the content does not fit the schema the request asks for (response_format): $.tempC must be number',
        'The reply went out unchanged; fix the fixture.',
      ]);
    });
  });

  describe('OpenAI Responses', () => {
    it('fails a chained request that answers one of two calls, and an output for no call', () => {
      expectContractFailure(files, 'responses: a chained request that answers one of two calls', [
        'this openai.responses request',
        'Rule: tool-results',
        'At: previous_response_id resp_understudy',
        'has no function_call_output in the request',
        '400 invalid_request_error: No tool output found for function call call_',
      ]);
      expectContractFailure(files, 'responses: a function_call_output for a call that was never made', [
        'At: input[1] (message index 1)',
        'the function_call_output answers call_made_up, but no function_call with that call_id comes before it',
      ]);
    });

    it('fails output items resent into the chain they came from', () => {
      expectContractFailure(
        files,
        'responses: resending the output items while chaining by previous_response_id',
        [
          'Rule: duplicate-ids',
          'At: input[0] (message index 0)',
          'is already in the thread previous_response_id resp_understudy',
        ],
      );
    });

    it('fails reasoning items that cannot come back: by id after store false, or altered', () => {
      expectContractFailure(files, 'responses: store false, then the reasoning item sent back by id alone', [
        'Rule: reasoning',
        'At: input[1] (message index 1)',
        'comes back by id without its encrypted_content, but no stored response holds it',
        "404 invalid_request_error: Item with id 'rs_understudy",
        'Items are not persisted when `store` is set to false.',
      ]);
      expectContractFailure(files, 'responses: encrypted reasoning that comes back altered', [
        'Rule: reasoning',
        'encrypted_content is not one the model issued',
      ]);
    });

    it('fails a fixture that breaks the text.format schema, naming the JSON path', () => {
      expectContractFailure(files, 'responses: a reply that breaks the text.format schema', [
        'Rule: structured-output',
        '(text.format): $.items[0].qty must be integer',
      ]);
    });
  });

  describe('Anthropic Messages', () => {
    for (const mode of ['plain', 'streamed'])
      it(`fails the test of an agent that drops one of two tool results (${mode})`, () => {
        expectContractFailure(files, `anthropic: an agent that drops one of two tool results (${mode})`, [
          'this anthropic.messages request (POST https://api.anthropic.com/v1/messages)',
          'Rule: tool-results',
          'At: messages[1] (message index 1)',
          '(get_time) has no tool_result in the next message',
          '400 invalid_request_error: messages.1: `tool_use` ids were found without `tool_result` blocks immediately after',
        ]);
      });

    it('fails results that come after text, and a result for no call', () => {
      expectContractFailure(files, 'anthropic: text before the tool results in the user turn', [
        'Rule: tool-results',
        'have no tool_result at the start of the next message (tool_result blocks must come before any text)',
      ]);
      expectContractFailure(files, 'anthropic: a tool_result for a tool_use that was never made', [
        'At: messages[2].content[0] (message index 2)',
        'the tool_result answers toolu_made_up, which the message before it did not call',
      ]);
    });

    it('fails thinking that does not come back as signed', () => {
      expectContractFailure(
        files,
        'anthropic: thinking on, the tool-use turn sent back without its thinking block',
        [
          'Rule: reasoning',
          'At: messages[1] (message index 1)',
          'comes back without the thinking block it started with',
        ],
      );
      expectContractFailure(files, 'anthropic: thinking on, the thinking text edited before it goes back', [
        'Rule: reasoning',
        'At: messages[1].content[0]',
        'the thinking text differs from the text its signature was issued for',
      ]);
    });

    it('fails empty text, duplicate tool_use ids and a bad tool name', () => {
      expectContractFailure(files, 'anthropic: an empty text block in the history', [
        'Rule: empty-text',
        'At: messages[1].content[0] (message index 1)',
      ]);
      expectContractFailure(files, 'anthropic: the same tool_use id twice', [
        'Rule: duplicate-ids',
        'the tool_use id toolu_same already appears at messages[1].content[0]',
      ]);
      expectContractFailure(files, 'anthropic: a tool name with a dot', [
        'Rule: tool-definitions',
        'the tool name "calendar.create_event"',
      ]);
    });

    it('fails a forced tool call whose fixture arguments break the tool schema', () => {
      expectContractFailure(files, 'anthropic: a forced tool whose fixture arguments break its schema', [
        'Rule: structured-output',
        'response.toolCalls[0].arguments',
        'the arguments of record do not fit its parameters schema (tool_choice forces record): $.rating must be integer',
      ]);
    });
  });

  describe('Gemini', () => {
    for (const mode of ['plain', 'streamed'])
      it(`fails the test of an agent that answers one of two function calls (${mode})`, () => {
        expectContractFailure(files, `gemini: an agent that answers one of two function calls (${mode})`, [
          'this gemini.generateContent request',
          'Rule: tool-results',
          'At: contents[2] (message index 2)',
          'made 2 function calls (get_weather, get_time); the turn at contents[2] answers 1',
          '400 INVALID_ARGUMENT: Please ensure that the number of function response parts is equal',
        ]);
      });

    it('fails a Gemini 3 function call sent back without its thought signature', () => {
      expectContractFailure(files, 'gemini 3: the function call sent back without its thought signature', [
        'Rule: reasoning',
        'At: contents[1].parts[0] (message index 1)',
        'the function call get_weather comes back without the thoughtSignature the model sent with it',
      ]);
    });

    it('fails JSON Schema keywords in parameters and a fixture that breaks responseSchema', () => {
      expectContractFailure(files, 'gemini: JSON Schema keywords in parameters', [
        'Rule: tool-definitions',
        'the parameters of book use "exclusiveMinimum"',
      ]);
      expectContractFailure(files, 'gemini: a reply that breaks the responseSchema', [
        'Rule: structured-output',
        "(generationConfig.responseSchema): $ must have required property 'tempC'",
      ]);
    });
  });

  describe('Bedrock Converse', () => {
    for (const mode of ['plain', 'streamed'])
      it(`fails the test of an agent that drops one of two parallel tool results (${mode})`, () => {
        expectContractFailure(
          files,
          `bedrock: an agent that drops one of two parallel tool results (${mode})`,
          [
            'this bedrock.converse request (POST https://bedrock-runtime.us-east-1.amazonaws.com/model/',
            'Rule: tool-results',
            'At: messages[1] (message index 1)',
            'but messages[2] has no toolResult for it',
            '400 ValidationException: Expected toolResult blocks at messages.2.content for the following Ids: tooluse_',
          ],
        );
      });

    it('fails a toolResult for no call, and a bad tool name', () => {
      expectContractFailure(files, 'bedrock: a toolResult for a call the turn before did not make', [
        'Rule: tool-results',
        'At: messages[2]',
        '1 toolResult block(s) answer 0 toolUse block(s) of the turn before',
      ]);
      expectContractFailure(files, 'bedrock: a tool name the API does not accept', [
        'Rule: tool-definitions',
        'At: toolConfig.tools[0].toolSpec.name',
        'the tool name "fs.list" is not 1 to 64 characters of [a-zA-Z0-9_-]',
      ]);
    });
  });

  describe('declared models', () => {
    it('serves the models a fixture file declares, and their dated snapshots', () => {
      expect(outcome(files, 'models: a declared model and its dated snapshot are served').status).toBe(
        'passed',
      );
    });

    it("answers another model with the provider's 404 and fails the test", () => {
      expectContractFailure(files, 'models: openai, a model the fixture file does not declare', [
        'Rule: known-models',
        'the request asks for the model "gpt-4o-mimi", but',
        'models.fixture.json declares only gpt-4o, claude-sonnet-4-6, /^gemini-2\\.5-/',
        '404 invalid_request_error: The model `gpt-4o-mimi` does not exist or you do not have access to it.',
      ]);
      expectContractFailure(files, 'models: anthropic, a model the fixture file does not declare', [
        '404 not_found_error: model: claude-sonet-4-6',
      ]);
    });
  });

  describe('turning rules off', () => {
    it('per test with understudy.model.contracts, one rule or all', () => {
      expect(outcome(files, 'off: understudy.model.contracts turns one rule off for this test').status).toBe(
        'passed',
      );
      expect(outcome(files, 'off: contracts(false) turns them all off').status).toBe('passed');
      expect(outcome(files, 'off: a bad setting is refused, naming the rules').status).toBe('passed');
    });

    it('only for the test that asked, and only the rules it named', () => {
      expectContractFailure(files, 'off: the next test has the rule back', ['Rule: tool-results']);
      expectContractFailure(files, 'off: turning another rule off leaves this one on', [
        'Rule: tool-results',
      ]);
    });

    it('per file with the @jest-environment-options docblock, and for every file with the option', async () => {
      const docblock = optionCase(files, 'docblock-off.case.ts');
      expect(docblock.tests.map((t) => t.status)).toEqual(['passed']);
      const config = await runJest({
        testMatch: ['__tests__/e2e/contracts/option-cases/config-off.case.ts'],
        understudy: { contracts: false },
      });
      expect(config.files[0].tests.map((t) => t.status)).toEqual(['passed']);
      // The same file under the default configuration: the rule holds.
      const on = optionCase(files, 'config-off.case.ts');
      expect(on.tests[0].status).toBe('failed');
      expect(stripVTControlCharacters(on.tests[0].failureMessages.join('\n'))).toContain(
        'Rule: tool-results',
      );
    }, 120_000);
  });
});
