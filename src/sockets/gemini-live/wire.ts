/**
 * Gemini Live's BidiGenerateContent messages, read and written: client messages parsed and
 * checked against the API's rules, server messages framed as the API frames them (JSON in binary
 * WebSocket frames, which the SDK reads as a Buffer or Blob).
 */
import type { NeutralError, NeutralUsage } from '../../conversation';
import type { SocketData } from '../protocol';

/** A client message the API refuses: the close it answers with, and what is wrong for the test. */
export interface Refusal {
  /** WebSocket close code: 1007 for an invalid argument, 1008 for a policy (an unknown model). */
  code: number;
  /** The close frame's reason, as the API words it. */
  reason: string;
  /** The JSON path at fault, e.g. `setup.generationConfig.responseModalities`. */
  at: string;
  /** What is wrong, in plain words. */
  problem: string;
}

export type Modality = 'TEXT' | 'AUDIO';

/** The session's configuration, from `setup`. */
export interface LiveSetup {
  /** Without the `models/` prefix (`tunedModels/…` keeps its own). */
  model: string;
  modality: Modality;
  /** `systemInstruction` as sent (a Content). */
  systemInstruction?: unknown;
  /** `tools` as sent. */
  tools?: unknown[];
  generationConfig?: Record<string, unknown>;
  inputTranscription: boolean;
  outputTranscription: boolean;
  /** `realtimeInputConfig.automaticActivityDetection.disabled`: the client marks turns with activityStart/End. */
  manualActivity: boolean;
  /** `realtimeInputConfig.activityHandling: NO_INTERRUPTION`: speech does not cut the model off. */
  noInterruption: boolean;
}

export type ClientMessage =
  | { kind: 'setup'; setup: Record<string, any> }
  | { kind: 'clientContent'; turns: unknown[]; turnComplete: boolean }
  | { kind: 'realtimeInput'; input: Record<string, any> }
  | { kind: 'toolResponse'; responses: Array<Record<string, any>> }
  | { kind: 'contextUpdate'; update: Record<string, any> };

const INVALID = 'Request contains an invalid argument.';

export const invalid = (at: string, problem: string, reason = INVALID): Refusal => ({
  code: 1007,
  reason,
  at,
  problem,
});

const isObject = (v: unknown): v is Record<string, any> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The REST and socket APIs take proto field names in camelCase or snake_case. */
const snake = (camel: string) => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
function field(obj: Record<string, any>, camel: string): any {
  return obj[camel] !== undefined ? obj[camel] : obj[snake(camel)];
}

function unknownField(obj: Record<string, any>, known: readonly string[], at: string): Refusal | undefined {
  const names = new Set(known.flatMap((k) => [k, snake(k)]));
  const stray = Object.keys(obj).find((k) => !names.has(k));
  if (stray === undefined) return undefined;
  return invalid(
    `${at}.${stray}`,
    `${at} has no field ${JSON.stringify(stray)} (it has ${known.join(', ')})`,
    `Invalid JSON payload received. Unknown name "${stray}" at '${at}': Cannot find field.`,
  );
}

const MESSAGES = ['setup', 'clientContent', 'realtimeInput', 'toolResponse', 'contextUpdate'] as const;

/** The fields `setup` has (the Developer API's, as @google/genai sends them). */
const SETUP_FIELDS = [
  'model',
  'generationConfig',
  'systemInstruction',
  'tools',
  'toolConfig',
  'realtimeInputConfig',
  'sessionResumption',
  'contextWindowCompression',
  'inputAudioTranscription',
  'outputAudioTranscription',
  'proactivity',
  'avatarConfig',
  'safetySettings',
  'labels',
  'historyConfig',
];

const REALTIME_FIELDS = [
  'mediaChunks',
  'audio',
  'video',
  'text',
  'audioStreamEnd',
  'activityStart',
  'activityEnd',
];

const utf8 = new TextDecoder();

/** One client frame: a JSON object with exactly one message. Text and binary frames are both JSON. */
export function readClientMessage(data: SocketData): ClientMessage | Refusal {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof data === 'string' ? data : utf8.decode(data));
  } catch {
    return invalid('(message)', 'the message is not JSON', 'Invalid JSON payload received.');
  }
  if (!isObject(parsed)) return invalid('(message)', 'the message is not a JSON object');
  const stray = unknownField(parsed, MESSAGES, 'BidiGenerateContentClientMessage');
  if (stray) return stray;
  const set = MESSAGES.filter((m) => field(parsed, m) !== undefined && field(parsed, m) !== null);
  if (set.length !== 1)
    return invalid(
      '(message)',
      set.length === 0
        ? `the message sets none of ${MESSAGES.join(', ')}`
        : `the message sets ${set.join(' and ')}; a client message carries exactly one`,
    );
  const kind = set[0];
  const body = field(parsed, kind);
  if (!isObject(body)) return invalid(kind, `${kind} must be an object`);
  switch (kind) {
    case 'setup':
      return { kind, setup: body };
    case 'clientContent': {
      const turns = body.turns ?? [];
      if (!Array.isArray(turns)) return invalid('clientContent.turns', 'turns must be a list of Content');
      for (let i = 0; i < turns.length; i++) {
        const t = turns[i];
        if (!isObject(t) || !Array.isArray(t.parts))
          return invalid(`clientContent.turns[${i}].parts`, 'each turn must be a Content with parts');
        if (t.role !== undefined && t.role !== 'user' && t.role !== 'model')
          return invalid(
            `clientContent.turns[${i}].role`,
            `role must be user or model, not ${JSON.stringify(t.role)}`,
          );
      }
      return { kind, turns, turnComplete: field(body, 'turnComplete') === true };
    }
    case 'realtimeInput': {
      const strayInput = unknownField(body, REALTIME_FIELDS, 'realtimeInput');
      return strayInput ?? { kind, input: body };
    }
    case 'toolResponse': {
      const responses = field(body, 'functionResponses');
      if (!Array.isArray(responses) || responses.length === 0)
        return invalid('toolResponse.functionResponses', 'functionResponses must be a non-empty list');
      for (let i = 0; i < responses.length; i++) {
        const r = responses[i];
        if (!isObject(r) || typeof r.name !== 'string' || r.name === '')
          return invalid(
            `toolResponse.functionResponses[${i}].name`,
            'each function response needs the name of its call',
          );
      }
      return { kind, responses };
    }
    default:
      return { kind: 'contextUpdate', update: body };
  }
}

const MODALITIES = new Set(['TEXT', 'AUDIO']);
const ACTIVITY_HANDLING = new Set([
  'ACTIVITY_HANDLING_UNSPECIFIED',
  'START_OF_ACTIVITY_INTERRUPTS',
  'NO_INTERRUPTION',
]);

/** `setup` checked against the API's rules, as its session configuration. */
export function readSetup(setup: Record<string, any>): LiveSetup | Refusal {
  const stray = unknownField(setup, SETUP_FIELDS, 'setup');
  if (stray) return stray;
  const model = setup.model;
  if (typeof model !== 'string' || model === '')
    return invalid('setup.model', 'setup needs the model, as `models/{model}`');
  // The SDKs send `models/{model}`; a bare name is read as one (nothing says the API refuses it).
  const name = model.startsWith('models/') ? model.slice('models/'.length) : model;

  const config = field(setup, 'generationConfig');
  if (config !== undefined && !isObject(config))
    return invalid('setup.generationConfig', 'generationConfig must be an object');
  const modalities = config ? field(config, 'responseModalities') : undefined;
  let modality: Modality = 'AUDIO';
  if (modalities !== undefined) {
    const at = 'setup.generationConfig.responseModalities';
    if (!Array.isArray(modalities) || modalities.some((m) => !MODALITIES.has(m)))
      return invalid(at, `responseModalities takes TEXT or AUDIO, not ${JSON.stringify(modalities)}`);
    if (modalities.length > 1)
      return invalid(
        at,
        `a Live session answers in one modality; ${JSON.stringify(modalities)} asks for ${modalities.length}`,
      );
    if (modalities.length === 1) modality = modalities[0];
  }
  if (modality === 'TEXT' && /native-audio/.test(name))
    return invalid(
      'setup.generationConfig.responseModalities',
      `${name} is a native audio model: it answers in AUDIO only (use outputAudioTranscription for the text)`,
      'Cannot extract voices from a non-audio request.',
    );

  const tools = setup.tools;
  if (tools !== undefined && !Array.isArray(tools))
    return invalid('setup.tools', 'tools must be a list of Tool');
  if (Array.isArray(tools))
    for (let i = 0; i < tools.length; i++) {
      const decls = isObject(tools[i]) ? field(tools[i], 'functionDeclarations') : undefined;
      if (decls === undefined) continue;
      if (!Array.isArray(decls))
        return invalid(`setup.tools[${i}].functionDeclarations`, 'functionDeclarations must be a list');
      for (let j = 0; j < decls.length; j++)
        if (!isObject(decls[j]) || typeof decls[j].name !== 'string' || decls[j].name === '')
          return invalid(
            `setup.tools[${i}].functionDeclarations[${j}].name`,
            'a function declaration needs a name',
          );
    }

  const realtime = field(setup, 'realtimeInputConfig');
  let manualActivity = false;
  let noInterruption = false;
  if (realtime !== undefined) {
    if (!isObject(realtime))
      return invalid('setup.realtimeInputConfig', 'realtimeInputConfig must be an object');
    const detection = field(realtime, 'automaticActivityDetection');
    manualActivity = isObject(detection) && detection.disabled === true;
    const handling = field(realtime, 'activityHandling');
    if (handling !== undefined && !ACTIVITY_HANDLING.has(handling))
      return invalid(
        'setup.realtimeInputConfig.activityHandling',
        `activityHandling takes ${[...ACTIVITY_HANDLING].join(', ')}, not ${JSON.stringify(handling)}`,
      );
    noInterruption = handling === 'NO_INTERRUPTION';
  }

  const system = field(setup, 'systemInstruction');
  return {
    model: name,
    modality,
    ...(system !== undefined && system !== null ? { systemInstruction: system } : {}),
    ...(Array.isArray(tools) ? { tools } : {}),
    ...(config ? { generationConfig: config } : {}),
    inputTranscription: isObject(field(setup, 'inputAudioTranscription')),
    outputTranscription: isObject(field(setup, 'outputAudioTranscription')),
    manualActivity,
    noInterruption,
  };
}

export function isRefusal(value: unknown): value is Refusal {
  return isObject(value) && typeof value.code === 'number' && typeof value.reason === 'string';
}

/** A close frame's reason is at most 123 bytes (RFC 6455): the API's long messages are cut to fit. */
export function closeReason(text: string): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= 123) return text;
  let cut = 123;
  while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut--;
  return utf8.decode(bytes.slice(0, cut));
}

/**
 * How the API ends a session for a failed model turn: 1007 for an invalid argument, 1008 for a
 * refusal of policy (key, permission, unknown model), 1011 for quota and server errors.
 */
export function closeFor(error: NeutralError): { code: number; reason: string } {
  const code = error.status === 400 ? 1007 : error.status >= 401 && error.status <= 404 ? 1008 : 1011;
  return { code, reason: closeReason(error.message.trim()) };
}

// Server messages.

export type ServerMessage = Record<string, unknown>;

const utf8Encoder = new TextEncoder();

/** The API sends every message as JSON in a binary frame. */
export function frame(message: ServerMessage): Uint8Array {
  return utf8Encoder.encode(JSON.stringify(message));
}

export const setupComplete = (): ServerMessage => ({ setupComplete: {} });

export const modelText = (text: string): ServerMessage => ({
  serverContent: { modelTurn: { parts: [{ text }] } },
});

export const AUDIO_OUT_RATE = 24000;

export const modelAudio = (base64: string): ServerMessage => ({
  serverContent: {
    modelTurn: { parts: [{ inlineData: { mimeType: `audio/pcm;rate=${AUDIO_OUT_RATE}`, data: base64 } }] },
  },
});

export const outputTranscription = (text: string): ServerMessage => ({
  serverContent: { outputTranscription: { text } },
});

export const inputTranscription = (text: string): ServerMessage => ({
  serverContent: { inputTranscription: { text } },
});

export const generationComplete = (): ServerMessage => ({ serverContent: { generationComplete: true } });

export const interrupted = (): ServerMessage => ({ serverContent: { interrupted: true } });

export const turnComplete = (usage?: NeutralUsage, modality?: Modality): ServerMessage => ({
  serverContent: { turnComplete: true },
  ...(usage && modality ? { usageMetadata: usageMetadata(usage, modality) } : {}),
});

export interface WireCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export const toolCall = (calls: WireCall[], usage?: NeutralUsage, modality?: Modality): ServerMessage => ({
  toolCall: { functionCalls: calls.map((c) => ({ id: c.id, name: c.name, args: c.args })) },
  ...(usage && modality ? { usageMetadata: usageMetadata(usage, modality) } : {}),
});

export const toolCallCancellation = (ids: string[]): ServerMessage => ({ toolCallCancellation: { ids } });

/** `timeLeft` as a protobuf Duration (`"10s"`). */
export const goAway = (secondsLeft: number): ServerMessage => ({ goAway: { timeLeft: `${secondsLeft}s` } });

/** Live reports `responseTokenCount` (not generateContent's `candidatesTokenCount`) and tokens by modality. */
export function usageMetadata(usage: NeutralUsage, modality: Modality): Record<string, unknown> {
  return {
    promptTokenCount: usage.inputTokens,
    responseTokenCount: usage.outputTokens,
    totalTokenCount: usage.totalTokens,
    ...(usage.cachedInputTokens ? { cachedContentTokenCount: usage.cachedInputTokens } : {}),
    ...(usage.reasoningTokens ? { thoughtsTokenCount: usage.reasoningTokens } : {}),
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: usage.inputTokens }],
    responseTokensDetails: [{ modality, tokenCount: usage.outputTokens }],
  };
}
