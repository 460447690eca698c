/**
 * Golden wire samples for the Realtime codec (src/sockets/openai-realtime/codec.ts). The samples
 * are written from the API reference's event shapes and typed with the `openai` SDK's own
 * Realtime types (`satisfies`), so a field the API does not have, or of the wrong type, fails
 * the type check as well as the comparison.
 */
import { describe, expect, it } from '@jest/globals';
import type {
  RealtimeConversationItemAssistantMessage,
  RealtimeConversationItemFunctionCall,
  RealtimeResponse,
  RealtimeServerEvent,
  SessionUpdateEvent,
} from 'openai/resources/realtime/realtime';
import type { NeutralReply } from '../../../../../src/conversation';
import { speak } from '../../../../../src/sockets/openai-realtime/audio';
import {
  conversationOf,
  Ids,
  type Item,
  planResponse,
  replyReached,
} from '../../../../../src/sockets/openai-realtime/codec';
import {
  applySessionUpdate,
  checkSessionUpdate,
  defaultSession,
} from '../../../../../src/sockets/openai-realtime/session-config';

const usage = { inputTokens: 12, outputTokens: 5, totalTokens: 17, cachedInputTokens: 0, reasoningTokens: 0 };
const reply = (content: string | null, toolCalls: NeutralReply['toolCalls'] = []): NeutralReply => ({
  content,
  toolCalls,
  finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
  usage,
  model: 'gpt-realtime',
});
const PCM = { type: 'audio/pcm', rate: 24000 } as const;
const shape = (modalities: Array<'text' | 'audio'>) => ({
  responseId: 'resp_1',
  conversationId: 'conv_1',
  previousItemId: 'item_user',
  modalities,
  format: PCM,
  voice: 'marin',
  maxOutputTokens: 'inf' as const,
  metadata: null,
  outOfBand: false,
  ids: new Ids(),
});
const stamped = (events: ReadonlyArray<Record<string, unknown>>) =>
  events.map((e) => ({ event_id: 'event', ...e }));

const USAGE = {
  total_tokens: 17,
  input_tokens: 12,
  output_tokens: 5,
  input_token_details: {
    text_tokens: 12,
    audio_tokens: 0,
    image_tokens: 0,
    cached_tokens: 0,
    cached_tokens_details: { text_tokens: 0, audio_tokens: 0, image_tokens: 0 },
  },
};

describe('the Realtime codec', () => {
  it('puts a text answer and a function call on the wire as the API does', () => {
    const plan = planResponse(
      reply('Checking.', [{ id: 'call_1', name: 'lookup', arguments: '{"id":7}' }]),
      shape(['text']),
    );
    // The API sends `status_details: null` and `usage: null` until the response ends (the SDK types them optional).
    const response: RealtimeResponse = {
      object: 'realtime.response',
      id: 'resp_1',
      status: 'in_progress',
      conversation_id: 'conv_1',
      output_modalities: ['text'],
      max_output_tokens: 'inf',
      audio: { output: { format: { ...PCM }, voice: 'marin' } },
      metadata: null,
    };
    const pending = { status_details: null, usage: null };
    const message: RealtimeConversationItemAssistantMessage = {
      id: 'item_00000000000000000001',
      type: 'message',
      object: 'realtime.item',
      role: 'assistant',
      content: [],
    };
    const call: RealtimeConversationItemFunctionCall = {
      id: 'item_00000000000000000002',
      type: 'function_call',
      object: 'realtime.item',
      name: 'lookup',
      call_id: 'call_1',
      arguments: '',
    };
    const at = {
      response_id: 'resp_1',
      item_id: 'item_00000000000000000001',
      output_index: 0,
      content_index: 0,
    };
    const callAt = {
      response_id: 'resp_1',
      item_id: 'item_00000000000000000002',
      output_index: 1,
      call_id: 'call_1',
    };
    const doneMessage: RealtimeConversationItemAssistantMessage = {
      ...message,
      status: 'completed',
      content: [{ type: 'output_text', text: 'Checking.' }],
    };
    const doneCall: RealtimeConversationItemFunctionCall = {
      ...call,
      status: 'completed',
      arguments: '{"id":7}',
    };
    const golden = [
      {
        event_id: 'event',
        type: 'response.created',
        response: { ...response, output: [] },
      },
      {
        event_id: 'event',
        type: 'response.output_item.added',
        response_id: 'resp_1',
        output_index: 0,
        item: { ...message, status: 'in_progress' },
      },
      {
        event_id: 'event',
        type: 'conversation.item.added',
        previous_item_id: 'item_user',
        item: { ...message, status: 'in_progress' },
      },
      { event_id: 'event', type: 'response.content_part.added', ...at, part: { type: 'text', text: '' } },
      { event_id: 'event', type: 'response.output_text.delta', ...at, delta: 'Checking.' },
      { event_id: 'event', type: 'response.output_text.done', ...at, text: 'Checking.' },
      {
        event_id: 'event',
        type: 'response.content_part.done',
        ...at,
        part: { type: 'text', text: 'Checking.' },
      },
      {
        event_id: 'event',
        type: 'response.output_item.done',
        response_id: 'resp_1',
        output_index: 0,
        item: doneMessage,
      },
      { event_id: 'event', type: 'conversation.item.done', previous_item_id: 'item_user', item: doneMessage },
      {
        event_id: 'event',
        type: 'response.output_item.added',
        response_id: 'resp_1',
        output_index: 1,
        item: { ...call, status: 'in_progress' },
      },
      {
        event_id: 'event',
        type: 'conversation.item.added',
        previous_item_id: message.id,
        item: { ...call, status: 'in_progress' },
      },
      { event_id: 'event', type: 'response.function_call_arguments.delta', ...callAt, delta: '{"id":7}' },
      {
        event_id: 'event',
        type: 'response.function_call_arguments.done',
        ...callAt,
        name: 'lookup',
        arguments: '{"id":7}',
      },
      {
        event_id: 'event',
        type: 'response.output_item.done',
        response_id: 'resp_1',
        output_index: 1,
        item: doneCall,
      },
      { event_id: 'event', type: 'conversation.item.done', previous_item_id: message.id, item: doneCall },
    ] satisfies RealtimeServerEvent[];
    const events = stamped(plan.events);
    expect(events[0]).toEqual({ ...golden[0], response: { ...golden[0].response, ...pending } });
    expect(events.slice(1)).toEqual(golden.slice(1));
    const done = {
      event_id: 'event',
      type: 'response.done',
      response: {
        ...response,
        status: 'completed',
        output: [doneMessage, doneCall],
        usage: { ...USAGE, output_token_details: { text_tokens: 5, audio_tokens: 0 } },
      },
    } satisfies RealtimeServerEvent;
    expect({
      event_id: 'event',
      type: 'response.done',
      response: { ...plan.response, status: 'completed' },
    }).toEqual({ ...done, response: { ...done.response, status_details: null } });
  });

  it('speaks an audio answer with its transcript alongside, in the output format', () => {
    const plan = planResponse(reply('Hi'), shape(['audio']));
    const at = {
      response_id: 'resp_1',
      item_id: 'item_00000000000000000001',
      output_index: 0,
      content_index: 0,
    };
    const golden = [
      {
        event_id: 'event',
        type: 'response.content_part.added',
        ...at,
        part: { type: 'audio', transcript: '' },
      },
      {
        event_id: 'event',
        type: 'response.output_audio.delta',
        ...at,
        delta: Buffer.from(speak('Hi', PCM)).toString('base64'),
      },
      { event_id: 'event', type: 'response.output_audio_transcript.delta', ...at, delta: 'Hi' },
      { event_id: 'event', type: 'response.output_audio.done', ...at },
      { event_id: 'event', type: 'response.output_audio_transcript.done', ...at, transcript: 'Hi' },
      {
        event_id: 'event',
        type: 'response.content_part.done',
        ...at,
        part: { type: 'audio', transcript: 'Hi' },
      },
    ] satisfies RealtimeServerEvent[];
    expect(stamped(plan.events).slice(3, 9)).toEqual(golden);
    // 40 ms a character of PCM16 at 24 kHz; G.711 is one byte a sample at 8 kHz.
    expect(speak('Hi', PCM).byteLength).toBe(2 * 960 * 2);
    expect(speak('Hi', { type: 'audio/pcmu', rate: 8000 }).byteLength).toBe(2 * 320);
    expect(plan.items[0].content).toEqual([{ type: 'output_audio', transcript: 'Hi' }]);
  });

  it('reads back what a cut response delivered: text so far, a call cut mid-arguments marked incomplete', () => {
    const whole = reply('Hello there', [{ id: 'call_1', name: 'lookup', arguments: '{"id":7777}' }]);
    const plan = planResponse(whole, { ...shape(['text']), chunkSize: 4 });
    const upTo = (type: string, n = 1) => {
      let seen = 0;
      return plan.events.findIndex((e) => e.type === type && ++seen === n) + 1;
    };
    const text = replyReached(plan.events.slice(0, upTo('response.output_text.delta', 2)), whole);
    expect(text.content).toBe('Hello th');
    expect(text.toolCalls).toEqual([]);
    const args = replyReached(plan.events.slice(0, upTo('response.function_call_arguments.delta', 1)), whole);
    expect(args.toolCalls).toEqual([{ id: 'call_1', name: 'lookup', arguments: '{"id', incomplete: true }]);
    expect(args.usage.totalTokens).toBe(0);
  });

  it('reads the conversation the model sees from the items', () => {
    const session = applySessionUpdate(defaultSession('sess_1', 'gpt-realtime', 0), {
      instructions: 'Be brief.',
    });
    const items: Item[] = [
      {
        id: 'a',
        type: 'message',
        role: 'user',
        content: [{ type: 'input_audio', transcript: 'refund order 7' }],
      },
      { id: 'b', type: 'function_call', call_id: 'call_1', name: 'refund', arguments: '{"id":7}' },
      { id: 'c', type: 'function_call', call_id: 'call_2', name: 'notify', arguments: '{}' },
      { id: 'd', type: 'function_call_output', call_id: 'call_1', output: '{"ok":true}' },
      {
        id: 'e',
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_audio', transcript: 'Done.' }],
      },
    ];
    const conversation = conversationOf(session, items, [
      { type: 'function', name: 'refund' },
      { type: 'mcp', server_label: 'x' },
    ]);
    expect(conversation.messages).toEqual([
      { role: 'system', text: 'Be brief.' },
      { role: 'user', text: 'refund order 7' },
      {
        role: 'assistant',
        text: null,
        toolCalls: [
          { id: 'call_1', name: 'refund', arguments: '{"id":7}' },
          { id: 'call_2', name: 'notify', arguments: '{}' },
        ],
      },
      { role: 'tool', text: '{"ok":true}', toolCallId: 'call_1' },
      { role: 'assistant', text: 'Done.' },
    ]);
    expect(conversation.tools).toEqual([{ name: 'refund' }]);
  });

  it('accepts the GA session.update a voice agent sends (no false alarm)', () => {
    const event = {
      type: 'session.update',
      session: {
        type: 'realtime',
        model: 'gpt-realtime',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            noise_reduction: { type: 'far_field' },
            transcription: { model: 'gpt-4o-mini-transcribe' },
            turn_detection: {
              create_response: true,
              interrupt_response: false,
              prefix_padding_ms: 300,
              silence_duration_ms: 750,
              threshold: 0.5,
              type: 'server_vad',
            },
          },
          output: { format: { type: 'audio/pcm', rate: 24000 }, speed: 1, voice: 'coral' },
        },
        instructions: 'Help.',
        max_output_tokens: 1024,
        output_modalities: ['audio'],
        tool_choice: 'auto',
        tools: [{ type: 'function', name: 'lookup', description: 'Finds', parameters: { type: 'object' } }],
        tracing: null,
        truncation: 'auto',
      },
    } satisfies SessionUpdateEvent;
    const session = defaultSession('sess_1', 'gpt-realtime', 0);
    expect(checkSessionUpdate(event.session, session, false)).toBeUndefined();
    const next = applySessionUpdate(session, event.session);
    expect(next.audio.input.turn_detection).toMatchObject({
      interrupt_response: false,
      silence_duration_ms: 750,
    });
    expect(next.audio.output.voice).toBe('coral');
  });
});
