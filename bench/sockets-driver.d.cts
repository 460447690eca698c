import type { Fixture } from 'jest-understudy';

export type SocketProtocol = 'responses-ws' | 'realtime' | 'live';

export interface SocketRow {
  id: string;
  protocol: SocketProtocol;
  key: string;
  /** A function call, its output sent back, and the answer. */
  trip: boolean;
}

/** One model response of a turn: streamed text, function calls, how it ended. */
export interface ResponseSummary {
  text: string | null;
  toolCalls: Array<{ id: string; name: string; arguments: unknown }>;
  end: string;
}

/** The SDK classes and `ws` module a client is built from (inside the Jest sandbox: the sandbox's own). */
export interface SocketSdks {
  OpenAI: new (options: any) => unknown;
  ResponsesWS: new (client: any) => unknown;
  GoogleGenAI: new (options: any) => unknown;
  ws: unknown;
}

export interface TargetClients {
  realtimeURL: string;
  openai: unknown;
  genai: unknown;
}

export interface Session {
  turn(row: SocketRow): Promise<ResponseSummary[]>;
  close(): Promise<void>;
}

export interface FrameLog {
  sent: number;
  frames: Array<{ after: number; data: Buffer; binary: boolean }>;
}

export interface TurnSamples {
  wall: number[];
  cpu: number[];
  open: number[];
}

export declare const API_KEY: string;
export declare const CODECS: Record<SocketProtocol, string>;
export declare const FIXTURES: Fixture[];
export declare const ROWS: SocketRow[];
export declare function clientsFor(
  sdks: SocketSdks,
  origin?: string,
  options?: { livePrefix?: string },
): TargetClients;
export declare function openSession(
  row: SocketRow,
  sdks: SocketSdks,
  clients: TargetClients,
): Promise<Session>;
export declare function summarize(
  row: SocketRow,
  sdks: SocketSdks,
  clients: TargetClients,
): Promise<ResponseSummary[]>;
export declare function measureTurns<K extends string>(
  row: SocketRow,
  sdks: SocketSdks,
  targets: Record<K, TargetClients>,
  plan: { warmup: number; calls: number },
): Promise<Record<K, TurnSamples>>;
export declare function captureFrames(ws: unknown, fn: (log: FrameLog) => Promise<void>): Promise<FrameLog>;
export declare function replayServer(
  ws: unknown,
  log: FrameLog,
): Promise<{ origin: string; close(): Promise<void> }>;
export declare function differences(
  expected: unknown,
  got: unknown,
  path?: string,
): Array<{ path: string; expected: unknown; got: unknown }>;
