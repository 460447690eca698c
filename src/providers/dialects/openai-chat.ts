/**
 * Chat Completions as gateways and OpenAI-compatible servers stream it, rewritten from the
 * canonical chunk sequence (src/providers/openai-chat/encode.ts).
 */
import type { NeutralReply } from '../../conversation';
import { chunkText } from '../codec';
import { isEmptyArguments } from '../partial-json';
import { commentFrame, dataFrame, type SseFrame } from './frames';
import type { ProtocolDialect } from './types';

type Chunk = Record<string, any>;

const choiceOf = (f: SseFrame): Record<string, any> | undefined => f.data?.choices?.[0];
const toolFragmentsOf = (f: SseFrame): Array<Record<string, any>> | undefined =>
  choiceOf(f)?.delta?.tool_calls;

/** A chunk like `template`, carrying `delta` (and nothing else the template's choice said). */
function chunkLike(template: Chunk, delta: Record<string, unknown>): Chunk {
  return { ...template, choices: [{ ...template.choices[0], delta, finish_reason: null }] };
}

const SAFE = { filtered: false, severity: 'safe' };
const FILTER_RESULTS = { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE };

/**
 * Azure OpenAI's content filter: a first chunk with empty `choices` (and empty id, model and
 * object) that carries `prompt_filter_results`, then `content_filter_results` on each choice.
 */
const emptyChoices: ProtocolDialect<SseFrame> = {
  applies: (_reply, streamed) => streamed,
  stream(frames) {
    const out = frames.map((f) => {
      const choice = choiceOf(f);
      if (!choice) return f;
      const text = typeof choice.delta?.content === 'string' && choice.delta.content !== '';
      const filtered = { ...choice, content_filter_results: text ? FILTER_RESULTS : {} };
      return { ...f, data: { ...f.data, choices: [filtered] } };
    });
    const preamble = {
      choices: [],
      created: 0,
      id: '',
      model: '',
      object: '',
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: FILTER_RESULTS }],
    };
    return [dataFrame(preamble), ...out];
  },
};

/** OpenRouter's keep-alive comments (`: OPENROUTER PROCESSING`) before and between chunks. */
const keepAliveChat: ProtocolDialect<SseFrame> = {
  applies: (_reply, streamed) => streamed,
  stream(frames) {
    const out: SseFrame[] = [commentFrame('OPENROUTER PROCESSING')];
    frames.forEach((f, i) => {
      out.push(f);
      if (i % 2 === 1 && i < frames.length - 1) out.push(commentFrame('OPENROUTER PROCESSING'));
    });
    return out;
  },
};

/** The tool-call fragments of a stream, by call index, and where they sit. */
function toolFragments(frames: SseFrame[]) {
  const byIndex = new Map<number, SseFrame[]>();
  let first = -1;
  let last = -1;
  frames.forEach((f, i) => {
    const fragments = toolFragmentsOf(f);
    if (!fragments) return;
    if (first === -1) first = i;
    last = i;
    const index = fragments[0].index as number;
    byIndex.set(index, [...(byIndex.get(index) ?? []), f]);
  });
  return { byIndex, first, last };
}

/**
 * Parallel calls streamed side by side: every call's header fragment first, then the calls'
 * argument fragments in turn, each fragment keyed by its `index` only.
 */
const interleavedToolCalls: ProtocolDialect<SseFrame> = {
  applies: (reply, streamed) => streamed && reply.toolCalls.length > 1,
  stream(frames) {
    const { byIndex, first, last } = toolFragments(frames);
    const lists = [...byIndex.values()];
    const longest = Math.max(...lists.map((l) => l.length));
    const interleaved: SseFrame[] = [];
    for (let k = 0; k < longest; k++)
      for (const list of lists) if (k < list.length) interleaved.push(list[k]);
    return [...frames.slice(0, first), ...interleaved, ...frames.slice(last + 1)];
  },
};

/** Each call in one fragment, id, name and whole arguments together (Ollama's `/v1`, Gemini's OpenAI API). */
const wholeToolCalls: ProtocolDialect<SseFrame> = {
  applies: (reply, streamed) => streamed && reply.toolCalls.length > 0,
  stream(frames, reply) {
    const { byIndex, first, last } = toolFragments(frames);
    const whole = [...byIndex.entries()].map(([index, list]) => {
      const call = reply.toolCalls[index];
      return dataFrame(
        chunkLike(list[0].data, {
          tool_calls: [
            {
              index,
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.arguments },
            },
          ],
        }),
      );
    });
    return [...frames.slice(0, first), ...whole, ...frames.slice(last + 1)];
  },
};

const hasEmptyArguments = (reply: NeutralReply) => reply.toolCalls.some((c) => isEmptyArguments(c.arguments));

/**
 * A zero-argument call's arguments as `""`, never `{}`: the header fragment and nothing after
 * it when streamed (Claude behind OpenAI-compatible gateways), `""` in a plain reply (OpenAI
 * itself, for strict tools without parameters).
 */
const emptyArgumentsChat: ProtocolDialect<SseFrame> = {
  applies: (reply) => hasEmptyArguments(reply),
  stream(frames, reply) {
    return frames.filter((f) => {
      const fragment = toolFragmentsOf(f)?.[0];
      if (!fragment || fragment.id !== undefined) return true;
      return !isEmptyArguments(reply.toolCalls[fragment.index]?.arguments ?? 'x');
    });
  },
  plain(body) {
    for (const call of body.choices?.[0]?.message?.tool_calls ?? [])
      if (isEmptyArguments(call.function.arguments)) call.function.arguments = '';
    return body;
  },
};

/** What a reasoning model behind an OpenAI-compatible API thinks aloud, when the fixture says nothing. */
export const SYNTHETIC_REASONING = 'Working out what the request needs before answering.';

/**
 * `reasoning_content` before the answer, as DeepSeek, vLLM and SGLang send it (`content`
 * null beside it while the model thinks); the fixture's `reasoning`, or a short made-up one.
 */
const reasoningDeltas: ProtocolDialect<SseFrame> = {
  applies: () => true,
  stream(frames, reply) {
    const roleAt = frames.findIndex((f) => choiceOf(f)?.delta?.role === 'assistant');
    if (roleAt === -1) return frames;
    const template = frames[roleAt].data;
    const thinking = chunkText(reply.reasoning ?? SYNTHETIC_REASONING, 20).map((piece) =>
      dataFrame(chunkLike(template, { content: null, reasoning_content: piece })),
    );
    return [...frames.slice(0, roleAt + 1), ...thinking, ...frames.slice(roleAt + 1)];
  },
  plain(body, reply) {
    const message = body.choices?.[0]?.message;
    if (message) message.reasoning_content = reply.reasoning ?? SYNTHETIC_REASONING;
    return body;
  },
};

export const chatDialects = {
  'empty-choices': emptyChoices,
  'keep-alive': keepAliveChat,
  'interleaved-tool-calls': interleavedToolCalls,
  'whole-tool-calls': wholeToolCalls,
  'empty-arguments': emptyArgumentsChat,
  'reasoning-deltas': reasoningDeltas,
};
