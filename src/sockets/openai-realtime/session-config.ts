/**
 * A Realtime session's configuration (GA shape: `session.type: "realtime"`, `output_modalities`,
 * `audio.input`/`audio.output`), its defaults, and the rules the API checks on `session.update`
 * before it applies one: a problem comes back as the `error` event the API sends, as a value.
 */
import type { NeutralError } from '../../conversation';
import { type AudioFormat, DEFAULT_FORMAT } from './audio';

type Obj = Record<string, any>;

export interface TurnDetection {
  type: 'server_vad' | 'semantic_vad';
  silence_duration_ms?: number;
  create_response: boolean;
  interrupt_response: boolean;
  [key: string]: unknown;
}

/** The session as `session.created`/`session.updated` show it. */
export interface RealtimeSession {
  type: 'realtime';
  object: 'realtime.session';
  id: string;
  model: string;
  output_modalities: Array<'text' | 'audio'>;
  instructions: string;
  tools: Obj[];
  tool_choice: unknown;
  max_output_tokens: number | 'inf';
  tracing: unknown;
  truncation: unknown;
  prompt: unknown;
  expires_at: number;
  include: unknown;
  audio: {
    input: {
      format: AudioFormat;
      transcription: Obj | null;
      noise_reduction: Obj | null;
      turn_detection: TurnDetection | null;
    };
    output: { format: AudioFormat; voice: string; speed: number };
  };
  [key: string]: unknown;
}

export const VOICES = [
  'alloy',
  'ash',
  'ballad',
  'coral',
  'echo',
  'sage',
  'shimmer',
  'verse',
  'marin',
  'cedar',
];

const SERVER_VAD: TurnDetection = {
  type: 'server_vad',
  threshold: 0.5,
  prefix_padding_ms: 300,
  silence_duration_ms: 500,
  idle_timeout_ms: null,
  create_response: true,
  interrupt_response: true,
};

export function defaultSession(id: string, model: string, created: number): RealtimeSession {
  return {
    type: 'realtime',
    object: 'realtime.session',
    id,
    model,
    output_modalities: ['audio'],
    instructions: '',
    tools: [],
    tool_choice: 'auto',
    max_output_tokens: 'inf',
    tracing: null,
    truncation: 'auto',
    prompt: null,
    expires_at: created + 3600,
    include: null,
    audio: {
      input: {
        format: { ...DEFAULT_FORMAT },
        transcription: null,
        noise_reduction: null,
        turn_detection: { ...SERVER_VAD },
      },
      output: { format: { ...DEFAULT_FORMAT }, voice: 'alloy', speed: 1 },
    },
  };
}

/** The session fields a client may send, and the read-only ones it may echo back. */
const SESSION_KEYS = new Set([
  'type',
  'model',
  'instructions',
  'output_modalities',
  'audio',
  'include',
  'max_output_tokens',
  'prompt',
  'tool_choice',
  'tools',
  'tracing',
  'truncation',
  'reasoning',
  'parallel_tool_calls',
  'id',
  'object',
  'expires_at',
]);
const AUDIO_INPUT_KEYS = new Set(['format', 'transcription', 'noise_reduction', 'turn_detection']);
const AUDIO_OUTPUT_KEYS = new Set(['format', 'voice', 'speed']);
const VAD_KEYS: Record<string, Set<string>> = {
  server_vad: new Set([
    'type',
    'threshold',
    'prefix_padding_ms',
    'silence_duration_ms',
    'idle_timeout_ms',
    'create_response',
    'interrupt_response',
  ]),
  semantic_vad: new Set(['type', 'eagerness', 'create_response', 'interrupt_response']),
};

const problem = (code: string, param: string, message: string): NeutralError => ({
  status: 400,
  type: 'invalid_request_error',
  code,
  param,
  message,
});
const unknown = (param: string) => problem('unknown_parameter', param, `Unknown parameter: '${param}'.`);
const invalid = (param: string, value: unknown, supported: readonly unknown[]) =>
  problem(
    'invalid_value',
    param,
    `Invalid value: ${JSON.stringify(value)}. Supported values are: ${supported.map((s) => JSON.stringify(s)).join(', ')}.`,
  );
const wrongType = (param: string, expected: string, value: unknown) =>
  problem(
    'invalid_type',
    param,
    `Invalid type for '${param}': expected ${expected}, but got ${Array.isArray(value) ? 'an array' : typeof value} instead.`,
  );
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function unknownKey(value: Obj, allowed: Set<string>, at: string): NeutralError | undefined {
  for (const key of Object.keys(value)) if (!allowed.has(key)) return unknown(`${at}.${key}`);
  return undefined;
}

function checkFormat(format: unknown, at: string): NeutralError | undefined {
  if (!isObject(format)) return wrongType(at, 'an object', format);
  const types = ['audio/pcm', 'audio/pcmu', 'audio/pcma'];
  if (!types.includes(format.type)) return invalid(`${at}.type`, format.type, types);
  if (format.type === 'audio/pcm' && format.rate !== undefined && format.rate !== 24000)
    return invalid(`${at}.rate`, format.rate, [24000]);
  return undefined;
}

function checkTurnDetection(td: unknown, at: string): NeutralError | undefined {
  if (td === null) return undefined;
  if (!isObject(td)) return wrongType(at, 'an object', td);
  const keys = VAD_KEYS[td.type];
  if (!keys) return invalid(`${at}.type`, td.type, Object.keys(VAD_KEYS));
  const extra = unknownKey(td, keys, at);
  if (extra) return extra;
  if (
    td.threshold !== undefined &&
    (typeof td.threshold !== 'number' || td.threshold < 0 || td.threshold > 1)
  )
    return problem(
      'decimal_out_of_range',
      `${at}.threshold`,
      `Invalid '${at}.threshold': expected a number between 0 and 1, but got ${JSON.stringify(td.threshold)} instead.`,
    );
  if (td.eagerness !== undefined && !['low', 'medium', 'high', 'auto'].includes(td.eagerness))
    return invalid(`${at}.eagerness`, td.eagerness, ['low', 'medium', 'high', 'auto']);
  return undefined;
}

function checkTools(tools: unknown, at: string): NeutralError | undefined {
  if (!Array.isArray(tools)) return wrongType(at, 'an array', tools);
  for (const [i, t] of tools.entries()) {
    const where = `${at}[${i}]`;
    if (!isObject(t)) return wrongType(where, 'an object', t);
    if (t.type !== 'function' && t.type !== 'mcp')
      return invalid(`${where}.type`, t.type, ['function', 'mcp']);
    if (t.type === 'function') {
      if (typeof t.name !== 'string')
        return problem(
          'missing_required_parameter',
          `${where}.name`,
          `Missing required parameter: '${where}.name'.`,
        );
      if (!/^[a-zA-Z0-9_-]{1,64}$/.test(t.name))
        return problem(
          'invalid_value',
          `${where}.name`,
          `Invalid '${where}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$' (at most 64 characters).`,
        );
      const extra = unknownKey(t, new Set(['type', 'name', 'description', 'parameters']), where);
      if (extra) return extra;
    }
  }
  return undefined;
}

function checkToolChoice(choice: unknown, tools: readonly Obj[], at: string): NeutralError | undefined {
  if (typeof choice === 'string') {
    const options = ['auto', 'none', 'required'];
    return options.includes(choice) ? undefined : invalid(at, choice, options);
  }
  if (!isObject(choice)) return wrongType(at, 'a string or an object', choice);
  if (choice.type === 'function') {
    if (!tools.some((t) => t.type === 'function' && t.name === choice.name))
      return problem(
        'invalid_value',
        `${at}.name`,
        `Tool choice '${String(choice.name)}' not found in 'tools' parameter.`,
      );
    return undefined;
  }
  if (choice.type === 'mcp') return undefined;
  return invalid(`${at}.type`, choice.type, ['function', 'mcp']);
}

/** The first rule `update` (a `session.update`'s `session`) breaks, or undefined. */
export function checkSessionUpdate(
  update: unknown,
  current: RealtimeSession,
  audioSent: boolean,
): NeutralError | undefined {
  if (!isObject(update)) return wrongType('session', 'an object', update);
  if (update.type === undefined)
    return problem(
      'missing_required_parameter',
      'session.type',
      "Missing required parameter: 'session.type'.",
    );
  if (update.type !== 'realtime') return invalid('session.type', update.type, ['realtime']);
  const extra = unknownKey(update, SESSION_KEYS, 'session');
  if (extra) return extra;
  if (update.instructions !== undefined && typeof update.instructions !== 'string')
    return wrongType('session.instructions', 'a string', update.instructions);
  const modalities = update.output_modalities;
  if (modalities !== undefined) {
    if (!Array.isArray(modalities)) return wrongType('session.output_modalities', 'an array', modalities);
    const ok = modalities.length === 1 && (modalities[0] === 'text' || modalities[0] === 'audio');
    if (!ok)
      return problem(
        'invalid_value',
        'session.output_modalities',
        `Invalid modalities: ${JSON.stringify(modalities)}. Supported combinations are: ["text"] and ["audio"].`,
      );
  }
  const max = update.max_output_tokens;
  if (max !== undefined && max !== 'inf') {
    if (!Number.isInteger(max)) return wrongType('session.max_output_tokens', "an integer or 'inf'", max);
    if (max < 1 || max > 4096)
      return problem(
        max < 1 ? 'integer_below_min_value' : 'integer_above_max_value',
        'session.max_output_tokens',
        `Invalid 'session.max_output_tokens': expected a value between 1 and 4096, but got ${max} instead.`,
      );
  }
  if (update.tools !== undefined) {
    const bad = checkTools(update.tools, 'session.tools');
    if (bad) return bad;
  }
  if (update.tool_choice !== undefined) {
    const bad = checkToolChoice(update.tool_choice, update.tools ?? current.tools, 'session.tool_choice');
    if (bad) return bad;
  }
  const audio = update.audio;
  if (audio !== undefined) {
    if (!isObject(audio)) return wrongType('session.audio', 'an object', audio);
    const bad = unknownKey(audio, new Set(['input', 'output']), 'session.audio');
    if (bad) return bad;
    if (audio.input !== undefined) {
      const input = audio.input;
      if (!isObject(input)) return wrongType('session.audio.input', 'an object', input);
      const e =
        unknownKey(input, AUDIO_INPUT_KEYS, 'session.audio.input') ??
        (input.format !== undefined ? checkFormat(input.format, 'session.audio.input.format') : undefined) ??
        (input.turn_detection !== undefined
          ? checkTurnDetection(input.turn_detection, 'session.audio.input.turn_detection')
          : undefined);
      if (e) return e;
    }
    if (audio.output !== undefined) {
      const output = audio.output;
      if (!isObject(output)) return wrongType('session.audio.output', 'an object', output);
      const e =
        unknownKey(output, AUDIO_OUTPUT_KEYS, 'session.audio.output') ??
        (output.format !== undefined ? checkFormat(output.format, 'session.audio.output.format') : undefined);
      if (e) return e;
      const voice = output.voice;
      if (voice !== undefined && typeof voice !== 'string' && !isObject(voice))
        return wrongType('session.audio.output.voice', 'a string', voice);
      if (typeof voice === 'string' && voice !== current.audio.output.voice && audioSent)
        return problem(
          'cannot_update_voice',
          'session.audio.output.voice',
          "Cannot update a conversation's voice if assistant audio is present.",
        );
      if (
        output.speed !== undefined &&
        (typeof output.speed !== 'number' || output.speed < 0.25 || output.speed > 1.5)
      )
        return problem(
          'decimal_out_of_range',
          'session.audio.output.speed',
          `Invalid 'session.audio.output.speed': expected a number between 0.25 and 1.5, but got ${JSON.stringify(output.speed)} instead.`,
        );
    }
  }
  return undefined;
}

/** `current` with a checked update applied (fields absent from the update keep their value). */
export function applySessionUpdate(current: RealtimeSession, update: Obj): RealtimeSession {
  const next: RealtimeSession = {
    ...current,
    audio: { input: { ...current.audio.input }, output: { ...current.audio.output } },
  };
  for (const key of [
    'instructions',
    'output_modalities',
    'tools',
    'tool_choice',
    'max_output_tokens',
    'tracing',
    'truncation',
    'prompt',
    'include',
    'reasoning',
    'parallel_tool_calls',
  ])
    if (update[key] !== undefined) next[key] = update[key];
  const input = update.audio?.input;
  if (input) {
    if (input.format)
      next.audio.input.format = { rate: input.format.type === 'audio/pcm' ? 24000 : 8000, ...input.format };
    if (input.transcription !== undefined) next.audio.input.transcription = input.transcription;
    if (input.noise_reduction !== undefined) next.audio.input.noise_reduction = input.noise_reduction;
    if (input.turn_detection !== undefined)
      next.audio.input.turn_detection =
        input.turn_detection === null
          ? null
          : {
              ...(input.turn_detection.type === 'server_vad'
                ? SERVER_VAD
                : {
                    type: 'semantic_vad',
                    eagerness: 'auto',
                    create_response: true,
                    interrupt_response: true,
                  }),
              ...input.turn_detection,
            };
  }
  const output = update.audio?.output;
  if (output) {
    if (output.format)
      next.audio.output.format = {
        rate: output.format.type === 'audio/pcm' ? 24000 : 8000,
        ...output.format,
      };
    if (output.voice !== undefined) next.audio.output.voice = output.voice;
    if (output.speed !== undefined) next.audio.output.speed = output.speed;
  }
  return next;
}
