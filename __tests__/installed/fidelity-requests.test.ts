/**
 * Requests the real APIs refuse, from the installed package: every protocol's official client
 * makes a mistake agents make and swallows the provider's own 400 (the case checks the body);
 * the test fails anyway, for the contract alone, naming the rule, the field and the API's answer.
 * Requests the APIs accept pass.
 */
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { fileOf } from '../support/installed';
import { rowsOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';
import { EACH_RUNNER } from './shared';

describe.each(rowsOf(__filename, EACH_RUNNER))(
  'a request the real API refuses fails the test, though the agent swallowed the 400 (%s)',
  (_, runner) => {
    let file: ChildFile;
    beforeAll(async () => {
      file = fileOf(await sharedRun('fidelity-requests', runner), 'fidelity-requests.case.js');
    }, 120_000);

    function expectRefused(title: string, parts: string[]) {
      const test = file.tests.find((t) => t.title === title);
      if (!test) throw new Error(`no test "${title}":\n${file.message}`);
      expect(test.status).toBe('failed');
      // The case's own checks of the 400 body held: the one failure is the contract's.
      expect(test.failureMessages).toHaveLength(1);
      const message = stripVTControlCharacters(test.failureMessages[0]);
      expect(message).toContain('CONTRACT_BREACH');
      expect(message).toContain("breaks the provider's request contract, so the real API would reject it.");
      expect(message).toContain('Rule: parameters');
      for (const part of parts) expect(message).toContain(part);
    }

    it('OpenAI Chat: a tool result as an object (plain and streamed), max_tokens on a reasoning model, no messages', () => {
      for (const title of [
        'chat: a tool result sent as an object (no JSON.stringify)',
        'chat streamed: a tool result sent as an object (no JSON.stringify)',
      ])
        expectRefused(title, [
          'At: messages[2].content (message index 2)',
          "the tool message's content is an object (a tool result must be text: JSON.stringify it)",
          "400 invalid_request_error: Invalid type for 'messages[2].content'",
        ]);
      expectRefused('chat: max_tokens on a reasoning model', [
        'At: max_tokens',
        'o3-mini is a reasoning model: it takes max_completion_tokens, not max_tokens',
      ]);
      expectRefused('chat: no messages', ["Invalid 'messages': empty array."]);
    });

    it('OpenAI Chat: sampling out of range (over the served port) or of the wrong type', () => {
      expectRefused('chat over the served port: temperature 5', [
        'At: temperature',
        "temperature 5 is above the API's maximum, 2",
      ]);
      expectRefused('chat: temperature read from the environment as a string', [
        'temperature is a string ("0.2"), not a number',
      ]);
    });

    it('OpenAI Chat: an empty tool list, a tool choice with no tools (streamed), stream options without a stream', () => {
      expectRefused('chat: an empty tool list (an agent with no tools registered)', [
        'At: tools',
        'tools is an empty list (leave it out when there are none)',
        "400 invalid_request_error: Invalid 'tools': empty array.",
      ]);
      expectRefused('chat streamed: a tool choice kept on a side call with no tools', [
        'At: tool_choice',
        'tool_choice is set, but the request offers no tools',
        "'tool_choice' is only allowed when 'tools' are specified.",
      ]);
      expectRefused('chat: stream options on a request that does not stream', [
        'At: stream_options',
        "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      ]);
    });

    it('OpenAI Chat and Responses: JSON mode with no word of JSON in the prompt; Responses tool_choice required alone', () => {
      expectRefused('chat: JSON mode, and no message says json', [
        'At: response_format',
        'the request asks for JSON mode (json_object), but no message says "json"',
        "'messages' must contain the word 'json' in some form",
      ]);
      expectRefused('responses streamed: JSON mode said in the instructions only', [
        'At: text.format',
        "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.",
      ]);
      expectRefused('responses: tool_choice "required" with no tools', [
        "Tool choice 'required' must be specified with 'tools' parameter.",
      ]);
    });

    it('OpenAI Responses: a function_call_output as an object, temperature on o3, what code ported from Chat sends', () => {
      expectRefused('responses: a function_call_output sent as an object', [
        'At: input[0].output',
        "400 invalid_request_error: Invalid type for 'input[0].output': expected one of a string or an array of content parts, but got an object instead.",
      ]);
      expectRefused('responses: temperature 0.2 on o3', ['o3 samples only at the default temperature, 1']);
      expectRefused('responses streamed: code ported from Chat (max_tokens)', [
        'At: max_tokens',
        'max_tokens is a Chat Completions parameter: Responses takes max_output_tokens',
        "400 invalid_request_error: Unknown parameter: 'max_tokens'.",
      ]);
      expectRefused('responses: Chat messages instead of input', [
        'the request sends Chat Completions messages: Responses takes input',
      ]);
    });

    it('Anthropic: temperature out of range, no messages, the thinking limits, a tool_result as an object', () => {
      expectRefused('anthropic: temperature 1.5', [
        "temperature 1.5 is outside Anthropic's range, 0 to 1",
        '400 invalid_request_error: temperature: range: 0..1',
      ]);
      expectRefused('anthropic: no messages', ['messages: at least one message is required']);
      expectRefused('anthropic streamed: a thinking budget below 1024', [
        'At: thinking.budget_tokens',
        "the thinking budget 512 is below Anthropic's minimum, 1024",
      ]);
      expectRefused('anthropic: temperature 0.3 with thinking on', [
        'temperature 0.3 with thinking on (thinking samples at 1 only)',
      ]);
      expectRefused('anthropic: a tool_result sent as an object', [
        'At: messages[2].content[0].content',
        'messages.2.content.0.tool_result.content: Input should be a valid list',
      ]);
    });

    it('Gemini and Bedrock: sampling out of range', () => {
      expectRefused('gemini: temperature 5', [
        'At: generationConfig.temperature',
        '400 INVALID_ARGUMENT: Unable to submit request because it has a temperature value of 5',
      ]);
      expectRefused('bedrock: temperature 1.5', [
        'At: inferenceConfig.temperature',
        "400 ValidationException: 1 validation error detected: Value '1.5' at 'inferenceConfig.temperature'",
      ]);
    });

    it('embeddings: dimensions above the model size, more than 2048 inputs, a Gemini batch over 100', () => {
      expectRefused('embeddings: dimensions above the model size', [
        'this openai.embeddings request',
        "Invalid 'dimensions': integer above maximum value. Expected a value <= 1536, but got 4096 instead.",
      ]);
      expectRefused('embeddings: 2049 inputs in one request', ["'$.input' is invalid."]);
      expectRefused('gemini embeddings: 101 requests in one batch', [
        'this gemini.embedContent request',
        'at most 100 requests can be in one batch',
      ]);
    });

    it('and passes what the APIs accept', () => {
      const control = file.tests.find((t) => t.title === 'control: requests the APIs accept');
      expect([control?.status, control?.failureMessages.join('\n')]).toEqual(['passed', '']);
    });
  },
);
