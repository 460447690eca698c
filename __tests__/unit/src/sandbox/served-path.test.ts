/**
 * The served port reads a request's path and query without a URL parser when a parser would
 * leave them as they are; anything else (dot segments, percent-encoded dots, characters a
 * parser escapes) must come out as the parser gives it, or a request could reach another route.
 */
import { describe, expect, it } from '@jest/globals';
import { splitPath } from '../../../../src/sandbox/served';

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
