/** The Responses API's event stream, rewritten from the canonical one (src/providers/openai-responses/encode.ts). */
import type { NeutralReply } from '../../conversation';
import { isEmptyArguments } from '../partial-json';
import type { SseFrame } from './frames';
import type { ProtocolDialect } from './types';

/** Every event numbered again from 0, after events were added or dropped. */
export function renumber(frames: SseFrame[]): SseFrame[] {
  let seq = 0;
  for (const f of frames)
    if (f.data && typeof f.data.sequence_number === 'number') f.data.sequence_number = seq++;
  return frames;
}

function emptyCallIds(reply: NeutralReply, output: unknown[]): Set<string> {
  const ids = new Set<string>();
  for (const item of output as Array<Record<string, any>>)
    if (
      item?.type === 'function_call' &&
      reply.toolCalls.some((c) => c.id === item.call_id && isEmptyArguments(c.arguments))
    )
      ids.add(item.id);
  return ids;
}

function blankArguments(output: unknown[], ids: Set<string>): void {
  for (const item of output as Array<Record<string, any>>)
    if (item?.type === 'function_call' && ids.has(item.id)) item.arguments = '';
}

/**
 * A zero-argument call's arguments as `""` (OpenAI does this for strict tools without
 * parameters): no argument deltas, `""` in the `.done` event and in the finished items.
 */
const emptyArguments: ProtocolDialect<SseFrame> = {
  applies: (reply) => reply.toolCalls.some((c) => isEmptyArguments(c.arguments)),
  stream(frames, reply) {
    const final = frames[frames.length - 1]?.data?.response;
    const ids = emptyCallIds(reply, final?.output ?? []);
    const out = frames.filter(
      (f) => !(f.event === 'response.function_call_arguments.delta' && ids.has(f.data?.item_id)),
    );
    for (const f of out) {
      if (f.event === 'response.function_call_arguments.done' && ids.has(f.data.item_id))
        f.data.arguments = '';
      if (f.event === 'response.output_item.done') blankArguments([f.data.item], ids);
      if (f.data?.response?.output) blankArguments(f.data.response.output, ids);
    }
    return renumber(out);
  },
  plain(body, reply) {
    blankArguments(body.output ?? [], emptyCallIds(reply, body.output ?? []));
    return body;
  },
};

export const responsesDialects = { 'empty-arguments': emptyArguments };
