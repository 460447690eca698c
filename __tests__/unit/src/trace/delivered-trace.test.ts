/**
 * The trace and the timeline of a reply cut short on the wire show what was received, say the
 * reply was cut, and mark a tool call whose arguments never ended.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { describe, expect, it } from '@jest/globals';
import { understudy } from 'jest-understudy';
import OpenAI from 'openai';
import type { TestEvidence } from '../../../../src/trace/evidence';
import { renderTimeline } from '../../../../src/trace/html';
import { testTrace } from '../../../../src/trace/otlp';
import { readTrace } from '../../../../src/trace/read';
import { renderTree } from '../../../../src/trace/tree';

const attrs = (span: { attributes: Array<{ key: string; value: Record<string, unknown> }> }) =>
  Object.fromEntries(span.attributes.map((a) => [a.key, Object.values(a.value)[0]]));

describe('a cut reply in run.trace', () => {
  it('the model call span says cut, with what arrived; the tool call span says incomplete', async () => {
    understudy.model.use([
      {
        match: {},
        response: {
          content: 'Sending.',
          toolCalls: [{ name: 'transfer', arguments: { to: 'alice', amount: 100 } }],
          chunkSize: 4,
          truncateAfterChunks: 5,
        },
      },
    ]);
    const run = await understudy.run(async () => {
      const stream = await new OpenAI({ maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Send alice 100' }],
        tools: [{ type: 'function', function: { name: 'transfer', parameters: { type: 'object' } } }],
        stream: true,
      });
      for await (const _ of stream);
    });
    const chat = run.trace.find((s) => s.name.startsWith('chat '))!;
    const a = attrs(chat as never);
    expect(a['understudy.outcome']).toBe('cut');
    expect(a['understudy.cut.reason']).toBe('truncated');
    expect(a['understudy.cut.delivered']).toBe('5');
    expect(a['gen_ai.response.finish_reasons']).toBeUndefined();
    expect(JSON.parse(String(a['gen_ai.output.messages'])).toolCalls).toEqual([
      expect.objectContaining({ name: 'transfer', incomplete: true }),
    ]);
    expect(JSON.parse(String(a['understudy.whole'])).toolCalls[0].arguments).toBe(
      '{"to":"alice","amount":100}',
    );
    expect(chat.status?.code).toBe(2);
    expect(chat.status?.message).toContain('cut short on the wire (truncated): 5 of');
    const tool = run.trace.find((s) => s.name === 'execute_tool transfer')!;
    expect(attrs(tool as never)).toMatchObject({
      'understudy.outcome': 'incomplete',
      'understudy.tool.incomplete': true,
    });
    expect(tool.status?.code).toBe(2);
  });
});

describe('a cut reply in the timeline and the text tree', () => {
  const evidence: TestEvidence = {
    timeOrigin: 1_767_225_600_000,
    looseCalls: [],
    runs: [
      {
        index: 0,
        kind: 'run',
        phase: 'test',
        incomplete: false,
        terminalState: 'failed',
        startedAt: 10,
        durationMs: 5,
        modelCalls: [
          {
            index: 0,
            provider: 'openai',
            protocol: 'openai.chat',
            url: 'https://api.openai.com/v1/chat/completions',
            model: 'gpt-4o-mini',
            streamed: true,
            unmatched: false,
            matchKeys: {
              userMessage: 'weather',
              turnIndex: 0,
              hasToolResult: false,
              toolCallId: null,
              toolResult: null,
              toolNames: [],
              model: 'gpt-4o-mini',
              systemMessage: '',
            },
            messages: [{ role: 'user', text: 'weather' }],
            tools: [],
            response: {
              content: 'It is 18 C in P',
              toolCalls: [],
              finishReason: 'stop',
              usage: {
                inputTokens: 0,
                outputTokens: 0,
                totalTokens: 0,
                cachedInputTokens: 0,
                reasoningTokens: 0,
              },
              model: 'gpt-4o-mini',
            },
            cut: { reason: 'aborted', delivered: 4, of: 12 },
            whole: {
              content: 'It is 18 C in Paris. A storm is coming.',
              toolCalls: [],
              finishReason: 'stop',
              usage: {
                inputTokens: 9,
                outputTokens: 9,
                totalTokens: 18,
                cachedInputTokens: 0,
                reasoningTokens: 0,
              },
              model: 'gpt-4o-mini',
            },
            startedAt: 11,
            durationMs: 1,
            phase: 'test',
          },
        ],
        toolCalls: [],
        operations: [],
      },
    ],
  };
  const tree = readTrace(
    JSON.stringify(testTrace({ file: 'a.test.ts', name: 'cut', status: 'failed', errors: [] }, evidence)),
  );

  it('marks the step cut, with what was received beside what was sent', () => {
    const html = renderTimeline(tree);
    expect(html).toContain('cut: aborted');
    expect(html).toContain('Cut short on the wire (aborted)');
    expect(html).toContain('It is 18 C in P');
    expect(html).toContain('Sent whole');
    expect(html).toContain('A storm is coming.');
  });

  it('says so in the text tree', () => {
    expect(renderTree(tree)).toContain('cut: aborted');
  });
});
