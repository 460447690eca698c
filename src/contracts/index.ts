/**
 * Request contracts: the checks each real API makes before it answers, applied to every
 * request the mock model serves, and the checks on what a fixture answers (it must be a
 * reply the API could send). Pure functions over the wire body, the decoded conversation,
 * the file's store and the chosen fixture; violations come back as values.
 */
import type { Conversation, ConversationStore, NeutralReply } from '../conversation';
import { type Fixture, sourceOf } from '../fixtures/types';
import { checkKnownModel } from './known-models';
import { checkOfferedTools } from './offered-tools';
import { checkParameters } from './parameters';
import type { ContractRule } from './rules';
import { checkReply, outputContractOf } from './structured-output';
import type { RequestFacts, Violation } from './violation';

export {
  CONTRACT_RULES,
  type ContractRule,
  type ContractsSetting,
  enabledRules,
  RULE_IDS,
  settingProblem,
} from './rules';
export { describeViolation, type Violation, violation } from './violation';

type ProtocolCheck = (
  facts: RequestFacts,
  on: (rule: ContractRule) => boolean,
  model: string,
) => Violation | undefined;

/**
 * Each protocol's own checks, loaded when the file first sends that protocol a request: a file
 * pays for the protocols its agent speaks, not for all six.
 */
const PROTOCOL_CHECKS: Record<string, () => ProtocolCheck> = {
  'openai.chat': () => (require('./openai-chat') as typeof import('./openai-chat')).checkChat,
  'openai.responses': () =>
    (require('./openai-responses') as typeof import('./openai-responses')).checkResponses,
  'anthropic.messages': () =>
    (require('./anthropic-messages') as typeof import('./anthropic-messages')).checkMessages,
  'gemini.generateContent': () => (require('./gemini') as typeof import('./gemini')).checkGemini,
  'bedrock.converse': () =>
    (require('./bedrock-converse') as typeof import('./bedrock-converse')).checkConverse,
  'ollama.chat': () => (require('./ollama') as typeof import('./ollama')).checkOllamaChat,
};
const loadedChecks = new Map<string, ProtocolCheck | undefined>();

function protocolCheck(protocol: string): ProtocolCheck | undefined {
  if (!loadedChecks.has(protocol)) loadedChecks.set(protocol, PROTOCOL_CHECKS[protocol]?.());
  return loadedChecks.get(protocol);
}

export interface RequestCheck {
  protocol: string;
  body: unknown;
  conversation: Conversation;
  store: ConversationStore;
  /** See `RequestFacts.soleIssuer`. */
  soleIssuer: boolean;
  /** See `RequestFacts.header`. */
  header?: (name: string) => string | null;
}

/** The first contract the request breaks (in the order the APIs check), or undefined. */
export function checkRequest(check: RequestCheck, rules: ReadonlySet<ContractRule>): Violation | undefined {
  if (rules.size === 0 || typeof check.body !== 'object' || check.body === null) return undefined;
  const facts: RequestFacts = {
    body: check.body as Record<string, any>,
    store: check.store,
    soleIssuer: check.soleIssuer,
    ...(check.header && { header: check.header }),
  };
  const on = (rule: ContractRule) => rules.has(rule);
  const parameters = checkParameters(check.protocol, facts, on, check.conversation.model);
  if (parameters) return parameters;
  return protocolCheck(check.protocol)?.(facts, on, check.conversation.model);
}

export interface AnswerCheck {
  protocol: string;
  body: unknown;
  conversation: Conversation;
  /** Path below the provider's base URL (Gemini names the API version there). */
  path: string;
  fixture: Fixture;
  /** The fixture's registration order, to name it when it has no file. */
  order: number;
  /** The reply it makes, when it answers with one (not an error). */
  reply?: NeutralReply;
}

/** The request fields that ask for a shape of output, on any protocol. */
const OUTPUT_FIELDS = [
  'response_format',
  'text',
  'tool_choice',
  'output_config',
  'output_format',
  'generationConfig',
  'generation_config',
  'toolConfig',
  'tool_config',
  'format',
];

/** Cheap test first: most requests ask for no particular output, and their reply needs no schema. */
function asksForOutput(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, any>;
  for (const f of OUTPUT_FIELDS) if (b[f] !== undefined) return true;
  return (
    Array.isArray(b.tools) && b.tools.some((t: any) => t?.strict === true || t?.function?.strict === true)
  );
}

function fixtureLabel(fixture: Fixture, order: number): string {
  const source = sourceOf(fixture);
  if (source?.file) return `${source.file} ${source.path ?? ''}`.trim();
  return `fixture #${order}${fixture.id ? ` (${JSON.stringify(fixture.id)})` : ''}`;
}

/** A cassette's fixture: recording checks its tool calls against the request (`CASSETTE_TOOL_MISSING`). */
const recorded = (fixture: Fixture) =>
  typeof fixture.metadata?.promptHash === 'string' || fixture.metadata?.request !== undefined;

/**
 * What is wrong with answering the request with this fixture: a model the fixture's file
 * does not know (the API's 404), a call to a tool the request does not offer, or a reply
 * that breaks the output the request asked for.
 */
export function checkAnswer(check: AnswerCheck, rules: ReadonlySet<ContractRule>): Violation | undefined {
  if (rules.has('known-models')) {
    const unknown = checkKnownModel(
      check.conversation.provider,
      check.conversation.model,
      check.fixture,
      check.path,
    );
    if (unknown) return unknown;
  }
  if (
    check.reply &&
    rules.has('offered-tools') &&
    typeof check.body === 'object' &&
    check.body !== null &&
    !recorded(check.fixture)
  ) {
    const unoffered = checkOfferedTools(
      check.protocol,
      check.body as Record<string, any>,
      check.reply,
      fixtureLabel(check.fixture, check.order),
    );
    if (unoffered) return unoffered;
  }
  if (!check.reply || !rules.has('structured-output') || !asksForOutput(check.body)) return undefined;
  const contract = outputContractOf(check.protocol, check.body as Record<string, any>);
  if (!contract.json && !contract.forcedTool && contract.schemas.size === 0) return undefined;
  return checkReply(contract, check.reply, fixtureLabel(check.fixture, check.order));
}
