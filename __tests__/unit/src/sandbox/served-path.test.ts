/**
 * The served port reads a request's path and query without a URL parser when a parser would
 * leave them as they are; anything else (dot segments, percent-encoded dots, characters a
 * parser escapes) must come out as the parser gives it, or a request could reach another route.
 * A model request below a provider's segment stands for that provider's real URL, whichever
 * convention the client's base URL follows.
 */
import { describe, expect, it } from '@jest/globals';
import { servedModelUrl, splitPath } from '../../../../src/sandbox/served';

describe('the served path and query', () => {
  it.each([
    '/openai/v1/chat/completions',
    '/run/r12/anthropic/v1/messages',
    '/gemini/v1beta/models/gemini-1.5-pro:streamGenerateContent?alt=sse',
    '/world/orders/orders/A-1001?x=1&y=~',
    '/a?',
    '/a?b?c',
    '/a?x=1#fragment',
    '/a/../openai/v1/chat/completions',
    '/run/r1/../../world/orders',
    '/a/%2e%2e/world/orders',
    '/a/%2E./b',
    '/a/b/.',
    '/a/.hidden',
    '//openai/v1',
    '/a b',
    "/a?it's",
    '/caf\u00e9',
    '/a\\b',
  ])('%s: as a URL on the port has it', (raw) => {
    const url = new URL(`http://127.0.0.1${raw}`);
    expect(splitPath(raw)).toEqual({ path: url.pathname, search: url.search });
  });
});

describe("a served model request's real URL", () => {
  it.each([
    // The official SDKs: OpenAI's base holds /v1, Anthropic's does not and adds /v1/messages.
    ['openai', '/v1/chat/completions', '', 'https://api.openai.com/v1/chat/completions'],
    ['openai', '/v1/responses', '', 'https://api.openai.com/v1/responses'],
    ['anthropic', '/v1/messages', '?beta=true', 'https://api.anthropic.com/v1/messages?beta=true'],
    // The AI SDK's @ai-sdk/anthropic and Mastra's router read the same ANTHROPIC_BASE_URL as a base
    // that holds /v1, and add only /messages.
    ['anthropic', '/messages', '', 'https://api.anthropic.com/v1/messages'],
    [
      'anthropic',
      '/messages/count_tokens',
      '?beta=true',
      'https://api.anthropic.com/v1/messages/count_tokens?beta=true',
    ],
    // A segment that only starts like the version is not it.
    ['anthropic', '/v10/messages', '', 'https://api.anthropic.com/v1/v10/messages'],
    ['anthropic', '/v1', '', 'https://api.anthropic.com/v1'],
    // Gemini's paths hold their version, whichever base the client took (…/gemini or …/gemini/v1beta).
    [
      'gemini',
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
      '?alt=sse',
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    ],
  ] as const)('%s %s%s: %s', (provider, path, search, url) => {
    expect(servedModelUrl(provider, path, search)).toBe(url);
  });
});
