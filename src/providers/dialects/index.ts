/**
 * Stream dialects: the legal but awkward shapes real providers and gateways send, replayed
 * from the same fixture so an agent's parser meets them in a test. Each is a pure rewrite of
 * what a codec encoded (see ./types); a protocol a dialect does not name is left as it is.
 */
import type { NeutralReply } from '../../conversation';
import type { DialectName } from '../../fixtures/stream-dialects';
import type { WireResponse, WireStream } from '../codec';
import { messagesDialects } from './anthropic-messages';
import { bedrockDialects } from './bedrock-converse';
import { eventCodecOf } from './events';
import { geminiDialects } from './gemini';
import { chatDialects } from './openai-chat';
import { responsesDialects } from './openai-responses';
import type { ProtocolDialect } from './types';

type Table = Partial<Record<DialectName, ProtocolDialect<any>>>;

const BY_PROTOCOL: Record<string, Table> = {
  'openai.chat': chatDialects,
  'openai.responses': responsesDialects,
  'anthropic.messages': messagesDialects,
  'gemini.generateContent': geminiDialects,
  'bedrock.converse': bedrockDialects,
};

function dialectOf(name: DialectName, protocol: string): ProtocolDialect<any> | undefined {
  return BY_PROTOCOL[protocol]?.[name];
}

/** Whether `name` changes this reply on this protocol (so choosing it is worth a variant). */
export function dialectApplies(
  name: DialectName,
  protocol: string,
  reply: NeutralReply,
  streamed: boolean,
): boolean {
  const d = dialectOf(name, protocol);
  if (!d || !(streamed ? d.stream : d.plain)) return false;
  return d.applies(reply, streamed);
}

export function applyStreamDialect(
  name: DialectName,
  protocol: string,
  wire: WireStream,
  reply: NeutralReply,
): WireStream {
  const rewrite = dialectOf(name, protocol)?.stream;
  if (!rewrite) return wire;
  const codec = eventCodecOf(protocol);
  const events = rewrite(
    wire.events.map((e) => codec.read(e)),
    reply,
  ).map((e) => codec.write(e));
  return { ...wire, events };
}

export function applyPlainDialect(
  name: DialectName,
  protocol: string,
  wire: WireResponse,
  reply: NeutralReply,
): WireResponse {
  const rewrite = dialectOf(name, protocol)?.plain;
  if (!rewrite) return wire;
  return { ...wire, body: JSON.stringify(rewrite(JSON.parse(wire.body), reply)) };
}

/** The dialects a protocol has. */
export function dialectsOf(protocol: string): DialectName[] {
  return Object.keys(BY_PROTOCOL[protocol] ?? {}) as DialectName[];
}
