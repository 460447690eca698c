/** Gemini `generateContent`: what the API checks in `contents` and `tools` before it answers. */
import type { NeutralError } from '../conversation';
import { isGemini3 } from '../providers/gemini/models';
import { issuedFor } from '../providers/tokens';
import type { ContractRule } from './rules';
import { geminiToolProblem } from './tool-definitions';
import { type RequestFacts, type Violation, violation } from './violation';

type Part = Record<string, any>;

const invalid = (message: string): NeutralError => ({ status: 400, type: 'INVALID_ARGUMENT', message });

const partsOf = (c: unknown): Part[] => {
  const parts = (c as { parts?: unknown } | null)?.parts;
  return Array.isArray(parts) ? parts.filter((p) => typeof p === 'object' && p !== null) : [];
};

const callOf = (p: Part) => p.functionCall ?? p.function_call;
const responseOf = (p: Part) => p.functionResponse ?? p.function_response;
const roleOf = (c: unknown) => (c as { role?: unknown } | null)?.role ?? 'user';

const calls = (c: unknown) => (roleOf(c) === 'model' ? partsOf(c).filter((p) => callOf(p)) : []);
const responses = (c: unknown) => (roleOf(c) !== 'model' ? partsOf(c).filter((p) => responseOf(p)) : []);

/** Consecutive contents of one side (model, or user and function) form one turn, as the API reads them. */
interface Turn {
  model: boolean;
  /** Index of its first content. */
  at: number;
  calls: Part[];
  responses: Part[];
  contents: number[];
}

function turnsOf(contents: unknown[]): Turn[] {
  const turns: Turn[] = [];
  for (let i = 0; i < contents.length; i++) {
    const model = roleOf(contents[i]) === 'model';
    let turn = turns.at(-1);
    if (!turn || turn.model !== model) {
      turn = { model, at: i, calls: [], responses: [], contents: [] };
      turns.push(turn);
    }
    turn.contents.push(i);
    turn.calls.push(...calls(contents[i]));
    turn.responses.push(...responses(contents[i]));
  }
  return turns;
}

/** Whether the pairing holds, counted without building the turns (the common case, on every request). */
function paired(contents: unknown[]): boolean {
  let model: boolean | undefined;
  let calls = 0;
  let answered = 0;
  let pending = 0;
  for (let i = 0; i <= contents.length; i++) {
    const side = i < contents.length ? roleOf(contents[i]) === 'model' : !model;
    if (side !== model && model !== undefined) {
      // A turn ends: a model turn leaves its calls to answer; a user turn must answer exactly those.
      if (model) pending = calls;
      else if (answered !== pending && (answered > 0 || pending > 0)) return false;
      else pending = 0;
      calls = 0;
      answered = 0;
    }
    if (i === contents.length) break;
    model = side;
    const parts = (contents[i] as { parts?: unknown } | null)?.parts;
    if (!Array.isArray(parts)) continue;
    for (const p of parts) {
      if (p === null || typeof p !== 'object') continue;
      if (side ? callOf(p) : responseOf(p)) {
        if (side) calls++;
        else answered++;
      }
    }
  }
  return pending === 0;
}

/** The turn after a function call turn answers it with exactly as many function responses as it made calls. */
function toolResults(contents: unknown[]): Violation | undefined {
  if (paired(contents)) return undefined;
  const turns = turnsOf(contents);
  for (let t = 0; t < turns.length; t++) {
    const turn = turns[t];
    if (!turn.model && turn.responses.length > 0 && (t === 0 || turns[t - 1].calls.length === 0))
      return violation(
        'tool-results',
        `contents[${turn.at}]`,
        'the function responses do not follow a model turn that made function calls',
        invalid('Please ensure that function response turn comes immediately after a function call turn.'),
        turn.at,
      );
    if (!turn.model || turn.calls.length === 0) continue;
    const next = turns[t + 1];
    const answered = next?.responses.length ?? 0;
    if (answered === turn.calls.length) continue;
    return violation(
      'tool-results',
      next ? `contents[${next.at}]` : `contents[${turn.at}]`,
      `the model turn at contents[${turn.at}] made ${turn.calls.length} function call${turn.calls.length > 1 ? 's' : ''} (${turn.calls.map((p) => callOf(p).name).join(', ')}); ${next ? `the turn at contents[${next.at}] answers ${answered}` : 'no function response follows'}`,
      invalid(
        'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
      ),
      next ? next.at : turn.at,
    );
  }
  return undefined;
}

/** Signatures Google documents for function calls whose real signature is lost. */
const SENTINELS = new Set(['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go']);

/**
 * Gemini 3: in the current turn (since the latest user text), the first function call of
 * each model step carries the thought signature the model sent with it.
 */
function thoughtSignatures(contents: unknown[], facts: RequestFacts): Violation | undefined {
  const turns = turnsOf(contents);
  let start = 0;
  for (let t = turns.length - 1; t >= 0; t--) {
    const texts = turns[t].contents.some((i) => partsOf(contents[i]).some((p) => typeof p.text === 'string'));
    if (!turns[t].model && texts && turns[t].responses.length === 0) {
      start = t + 1;
      break;
    }
  }
  for (const turn of turns.slice(start)) {
    if (!turn.model || turn.calls.length === 0) continue;
    const part = turn.calls[0];
    const i = turn.contents.find((c) => partsOf(contents[c]).includes(part)) ?? turn.at;
    const j = partsOf(contents[i]).indexOf(part);
    const name = String(callOf(part)?.name);
    const signature = part.thoughtSignature ?? part.thought_signature;
    if (typeof signature !== 'string')
      return violation(
        'reasoning',
        `contents[${i}].parts[${j}]`,
        `the function call ${name} comes back without the thoughtSignature the model sent with it`,
        invalid(
          `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
        ),
        i,
      );
    if (
      facts.soleIssuer &&
      !SENTINELS.has(signature) &&
      issuedFor(facts.store, 'gemini.thought', signature) === undefined
    )
      return violation(
        'reasoning',
        `contents[${i}].parts[${j}]`,
        `the function call ${name} carries a thoughtSignature the model never issued`,
        invalid('Corrupted thought signature.'),
        i,
      );
  }
  return undefined;
}

export function checkGemini(
  facts: RequestFacts,
  on: (rule: ContractRule) => boolean,
  model: string,
): Violation | undefined {
  const { body } = facts;
  if (on('tool-definitions')) {
    const problem = geminiToolProblem(body.tools);
    if (problem) return violation('tool-definitions', problem.at, problem.problem, problem.error);
  }
  const contents: unknown[] = Array.isArray(body.contents) ? body.contents : [];
  return (
    (on('tool-results') ? toolResults(contents) : undefined) ??
    (on('reasoning') && isGemini3(model) ? thoughtSignatures(contents, facts) : undefined)
  );
}
