/** Anthropic Messages events, rewritten from the canonical stream (src/providers/anthropic-messages/encode.ts). */
import type { NeutralReply } from '../../conversation';
import { isEmptyArguments } from '../partial-json';
import { dataFrame, type SseFrame } from './frames';
import type { ProtocolDialect } from './types';

/** The block indexes of `tool_use` blocks whose call matches `keep`, from their `content_block_start`. */
function toolBlocks(frames: SseFrame[], reply: NeutralReply, keep: (args: string) => boolean) {
  const blocks = new Map<number, string>();
  for (const f of frames) {
    const block = f.event === 'content_block_start' ? f.data.content_block : undefined;
    if (block?.type !== 'tool_use') continue;
    const call = reply.toolCalls.find((c) => c.id === block.id);
    if (call && keep(call.arguments)) blocks.set(f.data.index, call.arguments);
  }
  return blocks;
}

const isInputDelta = (f: SseFrame, blocks: Map<number, string>) =>
  f.event === 'content_block_delta' && f.data.delta?.type === 'input_json_delta' && blocks.has(f.data.index);

function parsesWhole(args: string): boolean {
  try {
    const value = JSON.parse(args);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * A `tool_use` block whose input comes whole on `content_block_start`, with no
 * `input_json_delta` after it (programmatic tool calls, Anthropic-compatible gateways).
 */
const wholeToolInput: ProtocolDialect<SseFrame> = {
  applies: (reply, streamed) =>
    streamed && reply.toolCalls.some((c) => !isEmptyArguments(c.arguments) && parsesWhole(c.arguments)),
  stream(frames, reply) {
    const blocks = toolBlocks(frames, reply, (args) => !isEmptyArguments(args) && parsesWhole(args));
    return frames
      .filter((f) => !isInputDelta(f, blocks))
      .map((f) => {
        const args = f.event === 'content_block_start' ? blocks.get(f.data.index) : undefined;
        if (args === undefined) return f;
        return {
          ...f,
          data: { ...f.data, content_block: { ...f.data.content_block, input: JSON.parse(args) } },
        };
      });
  },
};

/** A zero-argument `tool_use`: its `content_block_start` and `content_block_stop`, no delta between. */
const emptyArguments: ProtocolDialect<SseFrame> = {
  applies: (reply, streamed) => streamed && reply.toolCalls.some((c) => isEmptyArguments(c.arguments)),
  stream(frames, reply) {
    const blocks = toolBlocks(frames, reply, isEmptyArguments);
    return frames.filter((f) => !isInputDelta(f, blocks));
  },
};

/** `ping` events between the others, as the API sends them to keep a slow stream open. */
const keepAlive: ProtocolDialect<SseFrame> = {
  applies: (_reply, streamed) => streamed,
  stream(frames) {
    const out: SseFrame[] = [];
    frames.forEach((f, i) => {
      out.push(f);
      if (i < frames.length - 2 && f.event !== 'ping' && frames[i + 1].event !== 'ping')
        out.push(dataFrame({ type: 'ping' }, f.eol, 'ping'));
    });
    return out;
  },
};

export const messagesDialects = {
  'whole-tool-input': wholeToolInput,
  'empty-arguments': emptyArguments,
  'keep-alive': keepAlive,
};
