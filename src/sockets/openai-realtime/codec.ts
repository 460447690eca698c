/**
 * The Realtime wire, as pure functions: the session's conversation items to a neutral
 * Conversation, a neutral reply to the server events of one response (text or audio with its
 * transcript, function calls, `response.done` with usage), and those events back to the reply
 * they carry (what reached the client when a response was cut short).
 */
import type { Conversation, NeutralMessage, NeutralReply, NeutralToolCall } from '../../conversation';
import { chunkText, DEFAULT_CHUNK_SIZE } from '../../providers/codec';
import { type AudioFormat, speak, toBase64 } from './audio';
import type { RealtimeSession } from './session-config';

type Obj = Record<string, any>;

/** One conversation item, as the API shows it (`realtime.item`). */
export type Item = Obj & { id: string; type: string };

/** Makes the session's ids, in order, so a replay sends the same ones. */
export class Ids {
  private count = 0;
  next(prefix: string): string {
    this.count++;
    return `${prefix}_${String(this.count).padStart(20, '0').slice(-20)}`;
  }
}

/** The text an item carries, for the model: a message's text or transcript parts, joined. */
export function itemText(item: Item): string | null {
  if (!Array.isArray(item.content)) return null;
  const parts: string[] = [];
  for (const c of item.content) {
    const t = c?.text ?? c?.transcript;
    if (typeof t === 'string') parts.push(t);
  }
  return parts.length > 0 ? parts.join('') : null;
}

/** The conversation the model sees: the session's instructions, then its items in order. */
export function conversationOf(
  session: RealtimeSession,
  items: readonly Item[],
  tools: readonly Obj[],
): Conversation {
  const messages: NeutralMessage[] = [];
  if (session.instructions) messages.push({ role: 'system', text: session.instructions });
  for (const item of items) {
    if (item.type === 'message') {
      const role = item.role === 'system' ? 'system' : item.role === 'assistant' ? 'assistant' : 'user';
      messages.push({ role, text: itemText(item) });
    } else if (item.type === 'function_call') {
      const call: NeutralToolCall = { id: item.call_id, name: item.name, arguments: item.arguments ?? '' };
      const last = messages[messages.length - 1];
      // Calls of one response are one assistant turn.
      if (last?.role === 'assistant' && last.toolCalls && last.text === null) last.toolCalls.push(call);
      else messages.push({ role: 'assistant', text: null, toolCalls: [call] });
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', text: String(item.output ?? ''), toolCallId: item.call_id });
    }
  }
  return {
    provider: 'openai',
    protocol: 'openai.realtime',
    model: session.model,
    messages,
    tools: tools
      .filter((t) => t.type === 'function' && typeof t.name === 'string')
      .map((t) => ({
        name: t.name,
        ...(t.description && { description: t.description }),
        ...(t.parameters && { parameters: t.parameters }),
      })),
    stream: true,
    streamUsage: true,
  };
}

/** What shapes one response on the wire. */
export interface ResponseShape {
  responseId: string;
  conversationId: string;
  /** The item the first new item follows in the conversation (null: it is the first). */
  previousItemId: string | null;
  modalities: Array<'text' | 'audio'>;
  format: AudioFormat;
  voice: string;
  maxOutputTokens: number | 'inf';
  metadata: unknown;
  chunkSize?: number;
  /** Out of band (`conversation: "none"`): its items join no conversation. */
  outOfBand: boolean;
  ids: Ids;
}

/** A server event of the response, before its `event_id` is stamped as it goes out. */
export type PlannedEvent = Obj & { type: string };

export interface ResponsePlan {
  events: PlannedEvent[];
  /** The items the response makes, as they are when it completes. */
  items: Item[];
  /** `response.done`'s response, less its status: the caller sets it as the response ends. */
  response: Obj;
}

function usageOf(reply: NeutralReply, audio: boolean): Obj {
  const u = reply.usage;
  return {
    total_tokens: u.totalTokens,
    input_tokens: u.inputTokens,
    output_tokens: u.outputTokens,
    input_token_details: {
      text_tokens: u.inputTokens,
      audio_tokens: 0,
      image_tokens: 0,
      cached_tokens: u.cachedInputTokens,
      cached_tokens_details: { text_tokens: u.cachedInputTokens, audio_tokens: 0, image_tokens: 0 },
    },
    output_token_details: audio
      ? { text_tokens: 0, audio_tokens: u.outputTokens }
      : { text_tokens: u.outputTokens, audio_tokens: 0 },
  };
}

/** The server events of one response answering with `reply`, from `response.created` to `response.done`. */
export function planResponse(reply: NeutralReply, shape: ResponseShape): ResponsePlan {
  const { responseId, ids } = shape;
  const audio = shape.modalities.includes('audio');
  const size = shape.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const response: Obj = {
    object: 'realtime.response',
    id: responseId,
    status: 'in_progress',
    status_details: null,
    output: [],
    conversation_id: shape.outOfBand ? null : shape.conversationId,
    output_modalities: shape.modalities,
    max_output_tokens: shape.maxOutputTokens,
    audio: { output: { format: shape.format, voice: shape.voice } },
    usage: null,
    metadata: shape.metadata ?? null,
  };
  const events: PlannedEvent[] = [{ type: 'response.created', response: { ...response } }];
  const items: Item[] = [];
  let previous = shape.previousItemId;
  const added = (item: Item, output_index: number) => {
    events.push({
      type: 'response.output_item.added',
      response_id: responseId,
      output_index,
      item: { ...item },
    });
    if (!shape.outOfBand)
      events.push({ type: 'conversation.item.added', previous_item_id: previous, item: { ...item } });
  };
  const done = (item: Item, output_index: number) => {
    events.push({ type: 'response.output_item.done', response_id: responseId, output_index, item });
    if (!shape.outOfBand) events.push({ type: 'conversation.item.done', previous_item_id: previous, item });
    previous = item.id;
    items.push(item);
  };

  const text = reply.content ?? '';
  if (text !== '') {
    const output_index = items.length;
    const id = ids.next('item');
    const item: Item = {
      id,
      type: 'message',
      object: 'realtime.item',
      status: 'in_progress',
      role: 'assistant',
      content: [],
    };
    added(item, output_index);
    const at = { response_id: responseId, item_id: id, output_index, content_index: 0 };
    events.push({
      type: 'response.content_part.added',
      ...at,
      part: audio ? { type: 'audio', transcript: '' } : { type: 'text', text: '' },
    });
    for (const chunk of chunkText(text, size)) {
      if (audio) {
        events.push({
          type: 'response.output_audio.delta',
          ...at,
          delta: toBase64(speak(chunk, shape.format)),
        });
        events.push({ type: 'response.output_audio_transcript.delta', ...at, delta: chunk });
      } else events.push({ type: 'response.output_text.delta', ...at, delta: chunk });
    }
    if (audio) {
      events.push({ type: 'response.output_audio.done', ...at });
      events.push({ type: 'response.output_audio_transcript.done', ...at, transcript: text });
    } else events.push({ type: 'response.output_text.done', ...at, text });
    events.push({
      type: 'response.content_part.done',
      ...at,
      part: audio ? { type: 'audio', transcript: text } : { type: 'text', text },
    });
    done(
      {
        ...item,
        status: 'completed',
        content: [audio ? { type: 'output_audio', transcript: text } : { type: 'output_text', text }],
      },
      output_index,
    );
  }

  for (const call of reply.toolCalls) {
    const output_index = items.length;
    const id = ids.next('item');
    const item: Item = {
      id,
      type: 'function_call',
      object: 'realtime.item',
      status: 'in_progress',
      name: call.name,
      call_id: call.id,
      arguments: '',
    };
    added(item, output_index);
    const at = { response_id: responseId, item_id: id, output_index, call_id: call.id };
    for (const chunk of chunkText(call.arguments, size))
      events.push({ type: 'response.function_call_arguments.delta', ...at, delta: chunk });
    events.push({
      type: 'response.function_call_arguments.done',
      ...at,
      name: call.name,
      arguments: call.arguments,
    });
    done({ ...item, status: 'completed', arguments: call.arguments }, output_index);
  }

  response.output = items;
  response.usage = usageOf(reply, audio);
  return { events, items, response };
}

/**
 * The reply the client could put together from `events` (a prefix of a response's): the text
 * or transcript deltas it got, the calls whose arguments it got whole, a call cut mid-way marked
 * `incomplete`, and the usage only when `response.done` arrived.
 */
export function replyReached(events: readonly PlannedEvent[], whole: NeutralReply): NeutralReply {
  let content = '';
  const calls = new Map<string, NeutralToolCall>();
  let usage = false;
  for (const e of events) {
    switch (e.type) {
      case 'response.output_text.delta':
      case 'response.output_audio_transcript.delta':
        content += e.delta;
        break;
      case 'response.function_call_arguments.delta': {
        const call = calls.get(e.call_id);
        if (call) call.arguments += e.delta;
        break;
      }
      case 'response.output_item.added':
        if (e.item.type === 'function_call')
          calls.set(e.item.call_id, {
            id: e.item.call_id,
            name: e.item.name,
            arguments: '',
            incomplete: true,
          });
        break;
      case 'response.function_call_arguments.done': {
        const call = calls.get(e.call_id);
        if (call) {
          call.arguments = e.arguments;
          delete call.incomplete;
        }
        break;
      }
      case 'response.done':
        usage = true;
        break;
    }
  }
  return {
    ...whole,
    content: content === '' ? null : content,
    toolCalls: [...calls.values()],
    usage: usage
      ? whole.usage
      : { inputTokens: 0, outputTokens: 0, totalTokens: 0, cachedInputTokens: 0, reasoningTokens: 0 },
  };
}
