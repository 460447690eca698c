/**
 * A model calls only the tools the request gives it. A fixture whose reply calls another one
 * (a typo, a tool renamed since, a tool the agent never registered) describes an answer the API
 * could not give, however well the agent then handles it. Tools the provider hosts (web search,
 * file search, code execution…) are the API's to run: it never asks the client to call them,
 * and the model runs them only when the request offers them.
 */
import type { NeutralReply } from '../conversation';
import { suggestName } from '../file-format/suggest';
import { type Violation, violation } from './violation';

type Body = Record<string, any>;

const isObject = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);
const field = (obj: Body | undefined, camel: string, snake: string) => obj?.[camel] ?? obj?.[snake];

/** A tool the provider runs itself, as the request offers it. */
interface HostedTool {
  /** How the request names it: its `type` (`web_search`, `code_execution_20250825`) or Gemini's key (`googleSearch`). */
  type: string;
  /** The name the model would use for it, where the API gives one (Anthropic's `web_search`). */
  name?: string;
  /** It searches the web (a fixture's `webSearches` are its calls). */
  webSearch: boolean;
}

/** What the request lets the model call. */
export interface OfferedTools {
  /** Tools the client runs, by the name the model calls them, in the request's order. */
  client: string[];
  hosted: HostedTool[];
  /** The request narrows the calls the model may make (`tool_choice: "none"`, an allowed list). */
  only?: { names: string[]; why: string };
  /** Any name may be one of the provider's predefined actions (Gemini computer use): names are not checked. */
  open?: boolean;
}

/** Anthropic tools the client runs under the fixed name the API gives them (bash, the text editor…). */
const ANTHROPIC_CLIENT_TYPES = /^(?:bash|text_editor|computer|memory)_\d{8}$/;
const WEB_SEARCH = /web_search|google_search|googlesearch/i;

function openaiOffered(body: Body, chat: boolean): OfferedTools {
  const offered: OfferedTools = { client: [], hosted: [] };
  for (const t of Array.isArray(body.tools) ? body.tools : []) {
    if (!isObject(t)) continue;
    const type = typeof t.type === 'string' ? t.type : 'function';
    const own = chat ? (type === 'custom' ? t.custom : t.function) : t;
    if ((type === 'function' || type === 'custom') && typeof own?.name === 'string')
      offered.client.push(own.name);
    else if (type !== 'function' && type !== 'custom')
      offered.hosted.push({ type, webSearch: WEB_SEARCH.test(type) });
  }
  if (chat && Array.isArray(body.functions))
    for (const f of body.functions) if (typeof f?.name === 'string') offered.client.push(f.name);
  const choice = chat ? (body.tool_choice ?? body.function_call) : body.tool_choice;
  if (choice === 'none')
    offered.only = {
      names: [],
      why: `${chat && body.tool_choice === undefined ? 'function_call' : 'tool_choice'} is "none"`,
    };
  else if (isObject(choice) && choice.type === 'allowed_tools') {
    const allowed = chat ? choice.allowed_tools?.tools : choice.tools;
    const names = (Array.isArray(allowed) ? allowed : [])
      .map((t: Body) => (chat ? (t?.function?.name ?? t?.custom?.name) : t?.name))
      .filter((n: unknown): n is string => typeof n === 'string');
    offered.only = { names, why: 'tool_choice allowed_tools' };
  }
  return offered;
}

function anthropicOffered(body: Body): OfferedTools {
  const offered: OfferedTools = { client: [], hosted: [] };
  for (const t of Array.isArray(body.tools) ? body.tools : []) {
    if (!isObject(t) || typeof t.name !== 'string') continue;
    const type = typeof t.type === 'string' ? t.type : 'custom';
    if (type === 'custom' || t.input_schema !== undefined || ANTHROPIC_CLIENT_TYPES.test(type))
      offered.client.push(t.name);
    else offered.hosted.push({ type, name: t.name, webSearch: WEB_SEARCH.test(type) });
  }
  for (const s of Array.isArray(body.mcp_servers) ? body.mcp_servers : [])
    if (isObject(s)) offered.hosted.push({ type: `mcp server ${String(s.name ?? s.url)}`, webSearch: false });
  if (body.tool_choice?.type === 'none') offered.only = { names: [], why: 'tool_choice is { type: "none" }' };
  return offered;
}

function geminiOffered(body: Body): OfferedTools {
  const offered: OfferedTools = { client: [], hosted: [] };
  for (const t of Array.isArray(body.tools) ? body.tools : []) {
    if (!isObject(t)) continue;
    for (const [key, value] of Object.entries(t)) {
      if (value === undefined || value === null) continue;
      if (key === 'functionDeclarations' || key === 'function_declarations') {
        for (const d of Array.isArray(value) ? value : [])
          if (typeof d?.name === 'string') offered.client.push(d.name);
      } else if (key === 'computerUse' || key === 'computer_use') offered.open = true;
      else offered.hosted.push({ type: key, webSearch: WEB_SEARCH.test(key) });
    }
  }
  const calling = field(
    field(body, 'toolConfig', 'tool_config'),
    'functionCallingConfig',
    'function_calling_config',
  );
  const mode = String(calling?.mode ?? '').toUpperCase();
  const allowed = field(calling, 'allowedFunctionNames', 'allowed_function_names');
  if (mode === 'NONE') offered.only = { names: [], why: 'toolConfig.functionCallingConfig.mode is NONE' };
  else if ((mode === 'ANY' || mode === 'VALIDATED') && Array.isArray(allowed))
    offered.only = {
      names: allowed.map(String),
      why: 'toolConfig.functionCallingConfig.allowedFunctionNames',
    };
  return offered;
}

function converseOffered(body: Body): OfferedTools {
  const offered: OfferedTools = { client: [], hosted: [] };
  const tools =
    isObject(body.toolConfig) && Array.isArray(body.toolConfig.tools) ? body.toolConfig.tools : [];
  for (const t of tools) {
    if (isObject(t?.toolSpec) && typeof t.toolSpec.name === 'string') offered.client.push(t.toolSpec.name);
    else if (isObject(t?.systemTool))
      offered.hosted.push({ type: String(t.systemTool.name), webSearch: false });
  }
  return offered;
}

/** The tools `body` (on `protocol`) offers; undefined for a protocol this rule does not know. */
export function offeredToolsOf(protocol: string, body: Body): OfferedTools | undefined {
  switch (protocol) {
    case 'openai.chat':
      return openaiOffered(body, true);
    // Realtime sessions offer tools in the Responses shape (`{ type: 'function', name }`).
    case 'openai.responses':
    case 'openai.realtime':
      return openaiOffered(body, false);
    case 'anthropic.messages':
      return anthropicOffered(body);
    case 'gemini.generateContent':
      return geminiOffered(body);
    case 'bedrock.converse':
      return converseOffered(body);
    // Ollama's tools are Chat's shape; `/api/generate` offers none.
    case 'ollama.chat':
    case 'ollama.generate':
      return openaiOffered(body, true);
    default:
      return undefined;
  }
}

/** Protocols whose replies carry a fixture's `webSearches` (the others have no place for them). */
const SEARCHES_ON_THE_WIRE = new Set(['openai.responses', 'anthropic.messages', 'gemini.generateContent']);

/** What a request offers its model to search the web with, per protocol, for the message. */
const SEARCH_TOOL: Record<string, string> = {
  'openai.responses': 'a `{ type: "web_search" }` tool',
  'anthropic.messages': 'a `web_search_20250305` server tool',
  'gemini.generateContent': 'a `googleSearch` tool',
};

const quoted = (names: readonly string[]) => names.map((n) => JSON.stringify(n)).join(', ');
/** A tool type without its version: `web_search_20250305`, `web_search_2025_08_26`, `web_search_preview_2025_03_11`. */
const dateless = (type: string) => type.replace(/(?:_(?:\d{8}|\d{4}_\d{2}_\d{2}|preview))+$/, '');
const fold = (name: string) => name.toLowerCase().replace(/[_-]/g, '');

function didYouMean(name: string, candidates: readonly string[]): string {
  const guess = suggestName(
    name,
    candidates.filter((c) => c !== name),
  );
  if (!guess) return '';
  const caseOnly = guess.toLowerCase() === name.toLowerCase();
  return ` Did you mean ${JSON.stringify(guess)}?${caseOnly ? ' (tool names are case-sensitive)' : ''}`;
}

/** A hosted tool the fixture's call names (by its name, or by its type without the date). */
function hostedByName(name: string, hosted: readonly HostedTool[]): HostedTool | undefined {
  return hosted.find((h) => h.name === name || fold(dateless(h.type)) === fold(name));
}

/**
 * Where the fixture's reply calls a tool the request does not let its model call, or runs a web
 * search the request does not offer; undefined when it does neither.
 */
export function checkOfferedTools(
  protocol: string,
  body: Body,
  reply: NeutralReply,
  fixture: string,
): Violation | undefined {
  if (reply.toolCalls.length === 0 && !reply.webSearches?.length) return undefined;
  const offered = offeredToolsOf(protocol, body);
  if (!offered) return undefined;
  for (const [i, call] of reply.toolCalls.entries()) {
    const { name } = call;
    const at = `${fixture} response.toolCalls[${i}]`;
    if (offered.only && !offered.only.names.includes(name)) {
      const allowed = offered.only.names.filter((n) => offered.client.includes(n));
      if (offered.client.includes(name) || allowed.length === 0)
        return violation(
          'offered-tools',
          at,
          `the fixture calls ${JSON.stringify(name)}, but ${offered.only.why}: the model may call ${allowed.length === 0 ? 'no tool' : `only ${quoted(allowed)}`} in this request`,
        );
    }
    if (offered.client.includes(name) || offered.open) continue;
    const hosted = hostedByName(name, offered.hosted);
    if (hosted)
      return violation(
        'offered-tools',
        at,
        `the fixture calls ${JSON.stringify(name)}, which the request offers only as the built-in tool ${hosted.type}, ` +
          'not as a function the client runs: the model never asks the client to call a built-in tool' +
          (hosted.webSearch
            ? '; a fixture says the model searched the web with `webSearches: ["<query>"]`'
            : ''),
      );
    const candidates = offered.only
      ? offered.only.names.filter((n) => offered.client.includes(n))
      : offered.client;
    return violation(
      'offered-tools',
      at,
      `the fixture calls ${JSON.stringify(name)}, but the request offers ${offered.client.length === 0 ? 'no tools' : `only ${quoted(offered.client)}`}` +
        `${offered.hosted.length > 0 ? ` (and the built-in ${offered.hosted.map((h) => h.type).join(', ')})` : ''}: ` +
        `a model cannot call a tool it was not given.${didYouMean(name, candidates)}`,
    );
  }
  if (
    reply.webSearches?.length &&
    SEARCHES_ON_THE_WIRE.has(protocol) &&
    !offered.hosted.some((h) => h.webSearch)
  )
    return violation(
      'offered-tools',
      `${fixture} response.webSearches`,
      `the fixture says the model searched the web (${quoted(reply.webSearches)}), but the request offers no web search tool (${SEARCH_TOOL[protocol]}): the model searches only when the request lets it`,
    );
  return undefined;
}
