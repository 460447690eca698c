/**
 * Stream dialects and mid-stream errors as golden wire samples: each is the canonical stream of
 * one reply (text, a call with arguments, a call without), rewritten. The clients that read
 * them are in __tests__/unit/src/providers/dialects/sdk.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { DIALECT_NAMES, dialectSettingProblem } from '../../../../../src/fixtures/stream-dialects';
import type { Fixture } from '../../../../../src/fixtures/types';
import { DialectChooser } from '../../../../../src/model/dialects';
import {
  applyPlainDialect,
  applyStreamDialect,
  dialectApplies,
  dialectsOf,
} from '../../../../../src/providers/dialects';
import { plainStreamError, withStreamError } from '../../../../../src/providers/dialects/stream-error';
import { CODECS, conversationFor, ctx, extensionOf, reply, streamText } from './dialect-samples';

const golden = (name: string) => readFileSync(join(__dirname, 'golden', name), 'utf8');

describe('stream dialects (golden wire samples)', () => {
  for (const [protocol, codec] of Object.entries(CODECS))
    for (const name of dialectsOf(protocol))
      it(`${name} on ${protocol}`, () => {
        const canonical = codec.encodeStream(reply, conversationFor(protocol), ctx());
        const wire = applyStreamDialect(name, protocol, canonical, reply);
        expect(streamText(protocol, wire.events)).toBe(
          golden(`${name}.${protocol}.${extensionOf(protocol)}`),
        );
        // A dialect changes the stream's shape, never its status or headers.
        expect(wire.status).toBe(canonical.status);
        expect(wire.headers).toEqual(canonical.headers);
        expect(streamText(protocol, wire.events)).not.toBe(streamText(protocol, canonical.events));
      });

  it('covers every dialect on some protocol', () => {
    const covered = new Set(Object.keys(CODECS).flatMap((p) => dialectsOf(p)));
    expect([...covered].sort()).toEqual([...DIALECT_NAMES].sort());
  });

  it('rewrites plain replies where the dialect has a plain shape', () => {
    const chat = applyPlainDialect(
      'empty-arguments',
      'openai.chat',
      CODECS['openai.chat'].encodeReply(reply, conversationFor('openai.chat', false), ctx()),
      reply,
    );
    expect(JSON.parse(chat.body).choices[0].message.tool_calls.map((c: any) => c.function.arguments)).toEqual(
      ['{"city":"Paris"}', ''],
    );
    const responses = applyPlainDialect(
      'empty-arguments',
      'openai.responses',
      CODECS['openai.responses'].encodeReply(reply, conversationFor('openai.responses', false), ctx()),
      reply,
    );
    expect(
      JSON.parse(responses.body)
        .output.filter((o: any) => o.type === 'function_call')
        .map((o: any) => o.arguments),
    ).toEqual(['{"city":"Paris"}', '']);
    const reasoning = applyPlainDialect(
      'reasoning-deltas',
      'openai.chat',
      CODECS['openai.chat'].encodeReply(
        { ...reply, reasoning: 'Two lookups.' },
        conversationFor('openai.chat', false),
        ctx(),
      ),
      { ...reply, reasoning: 'Two lookups.' },
    );
    expect(JSON.parse(reasoning.body).choices[0].message).toMatchObject({
      content: 'Checking both.',
      reasoning_content: 'Two lookups.',
    });
  });

  it('applies only where it changes the reply', () => {
    const oneCall = { ...reply, toolCalls: [reply.toolCalls[0]] };
    const text = { ...reply, toolCalls: [], content: 'Hi.' };
    expect(dialectApplies('interleaved-tool-calls', 'openai.chat', reply, true)).toBe(true);
    expect(dialectApplies('interleaved-tool-calls', 'openai.chat', oneCall, true)).toBe(false);
    expect(dialectApplies('empty-arguments', 'openai.chat', oneCall, true)).toBe(false);
    expect(dialectApplies('batched-function-calls', 'gemini.generateContent', oneCall, true)).toBe(false);
    expect(dialectApplies('whole-tool-input', 'anthropic.messages', text, true)).toBe(false);
    // A protocol without the dialect, and a plain reply where it has no plain shape.
    expect(dialectApplies('whole-tool-input', 'openai.chat', reply, true)).toBe(false);
    expect(dialectApplies('interleaved-tool-calls', 'openai.chat', reply, false)).toBe(false);
  });
});

describe('mid-stream errors (golden wire samples)', () => {
  for (const [protocol, codec] of Object.entries(CODECS))
    it(`on ${protocol}: part of the reply, then the provider's error event`, () => {
      const wire = withStreamError(protocol, codec.encodeStream(reply, conversationFor(protocol), ctx()), {
        message: 'Overloaded',
        afterChunks: 3,
      });
      expect(wire.status).toBe(200);
      expect(streamText(protocol, wire.events)).toBe(
        golden(`stream-error.${protocol}.${extensionOf(protocol)}`),
      );
    });

  it('never sends the reply’s finish before the error, whatever afterChunks says', () => {
    const wire = withStreamError(
      'anthropic.messages',
      CODECS['anthropic.messages'].encodeStream(reply, conversationFor('anthropic.messages'), ctx()),
      { message: 'x', afterChunks: 1000 },
    );
    const text = streamText('anthropic.messages', wire.events);
    expect(text).not.toContain('message_delta');
    expect(text.trimEnd().endsWith('"error":{"type":"overloaded_error","message":"x"}}')).toBe(true);
  });

  it('Responses: the error event instead of response.failed, numbered in sequence', () => {
    const wire = withStreamError(
      'openai.responses',
      CODECS['openai.responses'].encodeStream(reply, conversationFor('openai.responses'), ctx()),
      { message: 'Rate limited', code: 'rate_limit_exceeded', event: 'error', afterChunks: 2 },
    );
    expect(String(wire.events.at(-1))).toBe(
      'event: error\ndata: {"type":"error","code":"rate_limit_exceeded","message":"Rate limited","param":null,"sequence_number":2}\n\n',
    );
  });

  it('a plain request gets the failure as an error response', () => {
    expect(plainStreamError({ message: 'Overloaded', type: 'overloaded_error' })).toEqual({
      status: 529,
      type: 'overloaded_error',
      message: 'Overloaded',
    });
    expect(plainStreamError({ message: 'x', status: 503 })).toEqual({
      status: 503,
      type: 'server_error',
      message: 'x',
    });
  });
});

describe('choosing a dialect', () => {
  const fixture = (dialect?: Fixture['dialect']): Fixture => ({
    match: {},
    response: { content: 'x' },
    ...(dialect ? { dialect } : {}),
  });

  it('takes turns among the dialects that change the reply, from the seed, and starts again each test', () => {
    const chooser = new DialectChooser();
    const picks = () =>
      [0, 1, 2, 3, 4].map(() => chooser.choose(fixture(), 'openai.chat', reply, true, 'all'));
    const first = picks();
    expect(first).toEqual([
      'empty-choices',
      'keep-alive',
      'interleaved-tool-calls',
      'whole-tool-calls',
      'empty-arguments',
    ]);
    chooser.restart();
    expect(picks()).toEqual(first);
    chooser.restart();
    expect(chooser.choose(fixture(), 'openai.chat', reply, true, { dialects: 'all', seed: 2 })).toBe(
      'interleaved-tool-calls',
    );
  });

  it('prefers the fixture, then the test, then the file, then the option', () => {
    const chooser = new DialectChooser();
    chooser.set('file', ['keep-alive']);
    expect(chooser.choose(fixture(), 'openai.chat', reply, true, ['empty-choices'])).toBe('keep-alive');
    chooser.set('test', ['whole-tool-calls']);
    expect(chooser.choose(fixture(), 'openai.chat', reply, true, undefined)).toBe('whole-tool-calls');
    expect(chooser.choose(fixture('none'), 'openai.chat', reply, true, undefined)).toBeUndefined();
    chooser.clear('test', true);
    expect(chooser.choose(fixture(), 'openai.chat', reply, true, ['empty-choices'])).toBe('empty-choices');
    // aimock's openRouterProcessing is the keep-alive dialect on Chat.
    const openRouter: Fixture = { match: {}, response: { content: 'x' }, openRouterProcessing: true };
    expect(new DialectChooser().choose(openRouter, 'openai.chat', reply, true, undefined)).toBe('keep-alive');
    expect(
      new DialectChooser().choose(openRouter, 'anthropic.messages', reply, true, undefined),
    ).toBeUndefined();
  });

  it('names what is wrong with a setting', () => {
    expect(dialectSettingProblem('all')).toBeUndefined();
    expect(dialectSettingProblem(['keep-alive'])).toBeUndefined();
    expect(dialectSettingProblem(['keepalive'])).toBe(
      `unknown dialect "keepalive"; the dialects are ${DIALECT_NAMES.join(', ')}`,
    );
    expect(dialectSettingProblem({ dialects: 'all', seed: 1.5 })).toBe(
      'seed must be an integer, received 1.5',
    );
    expect(dialectSettingProblem({ dialects: 'all', order: 1 })).toBe(
      'unknown key "order"; expected { dialects, seed? }',
    );
    expect(dialectSettingProblem(true)).toBe('expected "all" or a list of dialect names, received true');
  });
});
