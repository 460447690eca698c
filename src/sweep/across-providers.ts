/**
 * `understudy.acrossProviders(fn)`: the same test body once per wire protocol. Fixtures are
 * provider-neutral, so an agent that works on every provider must do the same on each: the
 * body gets the protocol to use, every execution starts from the same world and fixtures, and
 * the runs are compared with the first protocol's (the reference): tool calls (names and
 * arguments) in order, the final message and the terminal state.
 *
 * An execution that failed (the body threw, a run ended badly unseen, a model request no
 * fixture answered), that made no model request, or whose requests went to another protocol
 * than the one it was given (an agent that ignores the choice would agree with itself), fails
 * the test; so does a divergence, unless `divergence: 'report'` asks for the matrix instead.
 */
import type { ProviderId } from '../conversation';
import { UnderstudyError } from '../errors';
import { PROVIDERS } from '../providers/registry';
import { peek } from '../run/outcomes';
import type { Run } from '../run/types';
import { getContext } from '../sandbox/runtime';
import { deepEqual } from '../world/values';
import { executeBody } from './body';
import { columns } from './table';

/** The protocols a body runs on by default. */
export const DEFAULT_PROTOCOLS = [
  'openai.chat',
  'openai.responses',
  'anthropic.messages',
  'gemini.generateContent',
] as const;

export type Protocol = (typeof DEFAULT_PROTOCOLS)[number] | (string & {});

/** What the body gets: which protocol (and provider) the agent must use. */
export interface ProviderContext {
  protocol: Protocol;
  provider: ProviderId;
}

export interface AcrossProvidersOptions {
  /** Default: OpenAI Chat, OpenAI Responses, Anthropic Messages, Gemini. The first is the reference. */
  protocols?: Protocol[];
  /** 'fail' (default): a divergence fails the test; 'report': return the matrix to assert on. */
  divergence?: 'fail' | 'report';
}

export interface TrajectoryStep {
  name: string;
  args: Record<string, unknown>;
}

export interface ProtocolResult<T = unknown> {
  protocol: Protocol;
  provider: ProviderId;
  /** What the body returned. */
  value: T | undefined;
  /** The run compared: the Run the body returned, else its last run. */
  run: Run<any, any> | undefined;
  runs: Run<any, any>[];
  trajectory: TrajectoryStep[];
  finalMessage: string | undefined;
  terminalState: string | undefined;
  /** Why the execution failed (empty when it passed). */
  reasons: string[];
}

export interface Divergence {
  protocol: Protocol;
  reference: Protocol;
  /** "tool call 3", "final message", "terminal state". */
  at: string;
  expected: unknown;
  received: unknown;
}

export interface PortabilityMatrix<T = unknown> {
  reference: Protocol;
  results: ProtocolResult<T>[];
  byProtocol: Record<string, ProtocolResult<T>>;
  divergences: Divergence[];
  /** No execution failed and none diverged. */
  consistent: boolean;
  table: string;
}

const WHERE = 'understudy.acrossProviders()';

function providerOf(protocol: string): ProviderId | undefined {
  for (const p of PROVIDERS) if (p.codecs.some((c) => c.protocol === protocol)) return p.id;
  return undefined;
}

function checkOptions(options: AcrossProvidersOptions): Required<AcrossProvidersOptions> {
  const bad = (m: string) => new UnderstudyError('BAD_ARGUMENT', `${WHERE}: ${m}`);
  if (typeof options !== 'object' || options === null) throw bad('options must be an object');
  for (const key of Object.keys(options))
    if (key !== 'protocols' && key !== 'divergence')
      throw bad(`unknown option ${JSON.stringify(key)} (expected protocols, divergence)`);
  const protocols = options.protocols ?? [...DEFAULT_PROTOCOLS];
  if (!Array.isArray(protocols) || protocols.length < 2)
    throw bad('protocols must list at least two protocols to compare');
  const known = PROVIDERS.flatMap((p) => p.codecs.map((c) => c.protocol));
  for (const p of protocols)
    if (!known.includes(p))
      throw bad(
        `unknown protocol ${JSON.stringify(p)} (known: ${known.map((k) => JSON.stringify(k)).join(', ')})`,
      );
  if (new Set(protocols).size !== protocols.length) throw bad('protocols lists a protocol twice');
  const divergence = options.divergence ?? 'fail';
  if (divergence !== 'fail' && divergence !== 'report')
    throw bad(`divergence must be 'fail' or 'report', received ${JSON.stringify(divergence)}`);
  return { protocols, divergence };
}

const isRun = (v: unknown): v is Run<any, any> =>
  typeof v === 'object' &&
  v !== null &&
  Array.isArray((v as Run).toolCalls) &&
  Array.isArray((v as Run).modelCalls);

export async function acrossProviders<T>(
  fn: (context: ProviderContext) => T | Promise<T>,
  options: AcrossProvidersOptions = {},
): Promise<PortabilityMatrix<T>> {
  if (typeof fn !== 'function')
    throw new UnderstudyError(
      'BAD_ARGUMENT',
      `${WHERE}: expected a test body async ({ protocol, provider }) => { … }`,
    );
  const settings = checkOptions(options);
  const runtime = getContext();
  const results: ProtocolResult<T>[] = [];
  for (const protocol of settings.protocols) {
    const provider = providerOf(protocol)!;
    const done = await executeBody(runtime, () => fn({ protocol, provider }), {
      label: `across providers: ${protocol}`,
      ownOutcomes: true,
      acceptUnmatched: false,
      where: WHERE,
    });
    const run = isRun(done.value) ? done.value : done.runs.at(-1);
    const reasons = [...done.reasons];
    const requests = done.runs.flatMap((r) => r.modelCalls);
    if (requests.length === 0) reasons.push('the agent made no model request');
    const elsewhere = [...new Set(requests.map((c) => c.protocol).filter((p) => p !== protocol))];
    if (elsewhere.length > 0)
      reasons.push(
        `the agent was given ${protocol} but its model requests went to ${elsewhere.join(', ')}: it must build its client from the protocol it is given`,
      );
    results.push({
      protocol,
      provider,
      value: done.value,
      run,
      runs: done.runs,
      trajectory: (run?.toolCalls ?? []).map((c) => ({ name: c.name, args: c.arguments })),
      finalMessage: run?.finalMessage,
      // Comparing is not the test looking at how the run ended.
      terminalState: run && peek(run, 'terminalState'),
      reasons,
    });
  }
  const [reference, ...others] = results;
  const divergences = others.flatMap((r) => diverges(reference, r));
  const failed = results.filter((r) => r.reasons.length > 0);
  const matrix: PortabilityMatrix<T> = {
    reference: reference.protocol,
    results,
    byProtocol: Object.fromEntries(results.map((r) => [r.protocol, r])),
    divergences,
    consistent: failed.length === 0 && divergences.length === 0,
    table: matrixTable(reference.protocol, results, divergences),
  };
  if (failed.length > 0 || (divergences.length > 0 && settings.divergence === 'fail')) {
    const error = new UnderstudyError(
      'PORTABILITY_FAILED',
      `${WHERE}: the agent does not behave the same on every protocol:\n\n${matrix.table}` +
        (divergences.length > 0 && settings.divergence === 'fail'
          ? "\n\n(pass { divergence: 'report' } to get the matrix back and assert on it)"
          : ''),
    );
    throw Object.assign(error, { matrix });
  }
  return matrix;
}

const show = (v: unknown) => (v === undefined ? 'nothing' : JSON.stringify(v));

function diverges(ref: ProtocolResult, r: ProtocolResult): Divergence[] {
  const base = { protocol: r.protocol, reference: ref.protocol };
  const n = Math.max(ref.trajectory.length, r.trajectory.length);
  for (let i = 0; i < n; i++) {
    const a = ref.trajectory[i];
    const b = r.trajectory[i];
    if (!a || !b || a.name !== b.name || !deepEqual(a.args, b.args))
      // The first difference only: every step after it follows from it.
      return [{ ...base, at: `tool call ${i + 1}`, expected: a, received: b }];
  }
  const out: Divergence[] = [];
  if (ref.finalMessage !== r.finalMessage)
    out.push({ ...base, at: 'final message', expected: ref.finalMessage, received: r.finalMessage });
  if (ref.terminalState !== r.terminalState)
    out.push({ ...base, at: 'terminal state', expected: ref.terminalState, received: r.terminalState });
  return out;
}

function matrixTable(
  reference: Protocol,
  results: readonly ProtocolResult[],
  divergences: readonly Divergence[],
): string {
  const rows = [
    ['protocol', 'tool calls', 'ended', 'verdict'],
    ...results.map((r) => {
      const own = divergences.filter((d) => d.protocol === r.protocol);
      const verdict =
        r.reasons.length > 0
          ? `✗ failed: ${r.reasons.join('; ')}`
          : own.length > 0
            ? `✗ diverges: ${own.map((d) => `${d.at}: expected ${show(d.expected)}, received ${show(d.received)}`).join('; ')}`
            : r.protocol === reference
              ? '✓ reference'
              : '✓ same';
      return [
        r.protocol,
        r.trajectory.map((s) => s.name).join(', ') || '(none)',
        r.terminalState ?? '-',
        verdict,
      ];
    }),
  ];
  return [`Across providers (reference ${reference}):`, ...columns(rows).map((l) => `  ${l}`)].join('\n');
}
