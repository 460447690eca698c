/**
 * The attribute table is the only place a trace attribute is named: the writer and every reader go
 * through it, so renaming an attribute there cannot leave the timeline reading a name nobody writes.
 * Proven here by a round trip (evidence → OTLP → read → the same evidence, through the readers'
 * typed fields only), by the table covering exactly what is written, by the sources naming no
 * attribute outside the table, and at the type level (the `@ts-expect-error` lines below fail
 * `npm run typecheck` when a field the table lacks would compile).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import {
  type AttributeKey,
  TRACE_ATTRIBUTE_PREFIXES,
  TRACE_ATTRIBUTES,
  type TraceFields,
} from '../../../../src/trace/attributes';
import type { CallEvidence, HttpEvidence, ToolCallEvidence } from '../../../../src/trace/evidence';
import { testTrace, traceAttributes } from '../../../../src/trace/otlp';
import { parsed, readTrace, type SpanNode, type TraceTree } from '../../../../src/trace/read';
import { goldenEvidence, goldenTest } from './golden.evidence';

const root = join(__dirname, '..', '..', '..', '..');
const { withAttributeTable } = require('../../../../scripts/write-docs.cjs') as {
  withAttributeTable(doc: string, table: unknown): string;
};

const all = (nodes: SpanNode[]): SpanNode[] => nodes.flatMap((n) => [n, ...all(n.children)]);
const ofType = (tree: TraceTree, type: SpanNode['type']) => all(tree.roots).filter((n) => n.type === type);
const defined = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** A model call's evidence as the readers see it, from the typed fields alone. */
function callOf(f: TraceFields): Partial<CallEvidence> {
  const fixtureSource = defined({ file: f.fixtureFile, path: f.fixturePath });
  return defined({
    index: f.modelCallIndex,
    provider: f.providerName,
    protocol: f.protocol,
    url: f.url,
    model: f.requestModel,
    streamed: f.streamed,
    unmatched: f.unmatched,
    fixture: f.fixtureId,
    fixtureSource: Object.keys(fixtureSource).length > 0 ? fixtureSource : undefined,
    turnIndexRelaxed: f.turnIndexRelaxed,
    fault: f.fault,
    messages: parsed(f.inputMessages) as CallEvidence['messages'],
    omittedMessages: f.omittedMessages,
    response: parsed(f.outputMessages) as CallEvidence['response'],
    error: parsed(f.modelError) as CallEvidence['error'],
    cut:
      f.cutReason === undefined
        ? undefined
        : defined({ reason: f.cutReason, delivered: f.cutDelivered!, of: f.cutOf }),
    whole: parsed(f.whole) as CallEvidence['whole'],
    durationMs: f.durationMs,
    phase: f.phase as CallEvidence['phase'],
  });
}

function callOfEvidence(c: CallEvidence): Partial<CallEvidence> {
  const { matchKeys, tools, startedAt, ...rest } = c;
  return { ...rest, tools: undefined } as Partial<CallEvidence> & { tools: undefined };
}

describe('the trace attribute table', () => {
  const trace = testTrace(goldenTest, goldenEvidence);
  const tree = readTrace(JSON.parse(JSON.stringify(trace)));
  const names = new Map<string, string>(
    Object.entries(TRACE_ATTRIBUTES).map(([key, info]) => [info.name, key]),
  );
  const written = trace.resourceSpans.flatMap((rs) => [
    ...rs.resource.attributes,
    ...rs.scopeSpans.flatMap((ss) =>
      ss.spans.flatMap((s) => [...s.attributes, ...(s.events ?? []).flatMap((e) => e.attributes)]),
    ),
  ]);

  it('names every attribute the writer writes, and the golden trace writes every one it names', () => {
    const prefixes = Object.values(TRACE_ATTRIBUTE_PREFIXES).map((p) => p.name);
    const unnamed = written
      .map((kv) => kv.key)
      .filter((key) => !names.has(key) && !prefixes.some((p) => key.startsWith(p)));
    expect(unnamed).toEqual([]);
    const seen = new Set(written.map((kv) => kv.key));
    expect([...names.keys()].filter((name) => !seen.has(name))).toEqual([]);
    expect(new Set(names.keys()).size).toBe(Object.keys(TRACE_ATTRIBUTES).length);
  });

  it("reads every written attribute back into a field of the table's type", () => {
    const nodes = all(tree.roots);
    const fields = [
      tree.resourceFields,
      ...nodes.map((n) => n.fields),
      ...nodes.flatMap((n) => n.events.map((e) => e.fields)),
    ];
    const named = written.filter((kv) => names.has(kv.key)).length;
    expect(fields.reduce((n, f) => n + Object.keys(f).length, 0)).toBe(named);
  });

  it('round-trips the evidence: evidence → OTLP → read → the same evidence, through the typed fields', () => {
    const run = goldenEvidence.runs[0];
    const calls = ofType(tree, 'model').map((n) => callOf(n.fields));
    const expected = [...goldenEvidence.looseCalls, ...run.modelCalls].map(callOfEvidence);
    expect(calls.map((c) => ({ ...c, tools: undefined }))).toEqual(
      expected.map((c) => defined({ ...c, tools: undefined })),
    );
    for (const [node, call] of ofType(tree, 'model').map(
      (n, i) => [n, [...goldenEvidence.looseCalls, ...run.modelCalls][i]] as const,
    )) {
      const f = node.fields;
      expect(
        defined({
          userMessage: f.matchUserMessage,
          turnIndex: f.matchTurnIndex,
          hasToolResult: f.matchHasToolResult,
          toolCallId: f.matchToolCallId,
          toolNames: f.matchToolNames,
          model: f.matchModel,
        }),
      ).toEqual(
        defined({
          ...call.matchKeys,
          userMessage: call.matchKeys.userMessage ?? undefined,
          toolCallId: call.matchKeys.toolCallId ?? undefined,
          toolResult: undefined,
          systemMessage: undefined,
        }),
      );
      expect(parsed(f.toolDefinitions) ?? []).toEqual(call.tools);
    }

    const tools = ofType(tree, 'tool').map(
      (n): Partial<ToolCallEvidence> =>
        defined({
          id: n.fields.toolCallId,
          name: n.fields.toolName,
          arguments: parsed(n.fields.toolCallArguments),
          answered: n.fields.toolAnswered,
          incomplete: n.fields.toolIncomplete,
          fileModelCallIndex: n.fields.toolRequestedBy,
          [n.fields.outcome === 'error' ? 'error' : 'result']: parsed(n.fields.toolCallResult),
        }),
    );
    expect(tools).toEqual(run.toolCalls.map(({ modelCallIndex, ...t }) => t));

    const operations = ofType(tree, 'operation').map((n) => parsed(n.fields.operation));
    expect(new Set(operations)).toEqual(new Set(run.operations));
    for (const node of ofType(tree, 'operation')) {
      const op = parsed(node.fields.operation) as (typeof run.operations)[number];
      expect(
        defined({
          seq: node.fields.operationSeq,
          packageId: node.fields.operationPackageId,
          operationId: node.fields.operationId,
          input: parsed(node.fields.operationInput),
          outcome: parsed(node.fields.operationOutcome),
          toolCallId: node.fields.operationToolCallId,
          files: parsed(node.fields.operationFiles),
          override: parsed(node.fields.override),
        }),
      ).toEqual(
        defined({
          seq: op.seq,
          packageId: op.packageId,
          operationId: op.operationId,
          input: op.input,
          outcome: op.outcome,
          toolCallId: op.toolCallId,
          files: op.files,
          override: op.override,
        }),
      );
      const override = op.override as { id?: string } | string | undefined;
      expect(node.fields.overrideId).toBe(typeof override === 'object' ? override.id : override);
    }

    const http = ofType(tree, 'http').map(
      (n): Partial<HttpEvidence> =>
        defined({
          method: n.fields.httpMethod,
          url: n.fields.url,
          status: n.fields.httpStatus ?? (n.fields.errorType === 'network_error' ? 0 : undefined),
          handler: n.fields.httpHandler,
          source: n.fields.httpSource,
          durationMs: n.fields.durationMs,
          phase: n.fields.phase as HttpEvidence['phase'],
        }),
    );
    expect(http).toEqual(
      [...(goldenEvidence.looseHttp ?? []), ...(run.httpRequests ?? [])].map(({ startedAt, ...h }) => h),
    );

    const runs = ofType(tree, 'run').map((n) =>
      defined({
        index: n.fields.runIndex,
        kind: n.fields.runKind,
        phase: n.fields.phase,
        incomplete: n.fields.runIncomplete ?? false,
        input: parsed(n.fields.runInput),
        output: parsed(n.fields.runOutput),
        files: parsed(n.fields.runFiles),
        finalMessage: n.fields.finalMessage,
        terminalState: n.fields.runIncomplete ? undefined : n.fields.terminalState,
        omitted: parsed(n.fields.runOmitted),
        drill:
          n.fields.drillName === undefined
            ? undefined
            : {
                name: n.fields.drillName,
                build: parsed(n.fields.drillBuild),
                seed: Number(n.fields.drillSeed),
                verdict: parsed(n.fields.drillVerdict),
              },
        error: n.events
          .filter((e) => e.name === 'exception')
          .map((e) => ({
            name: e.fields.exceptionType,
            message: e.fields.exceptionMessage,
            stack: e.fields.exceptionStacktrace,
          }))[0],
        counts: [n.fields.modelCalls, n.fields.toolCalls, n.fields.operations, n.fields.httpRequests],
      }),
    );
    expect(runs).toEqual(
      goldenEvidence.runs.map((r) =>
        defined({
          index: r.index,
          kind: r.kind,
          phase: r.phase,
          incomplete: r.incomplete,
          input: r.input,
          output: r.output,
          files: r.files,
          finalMessage: r.finalMessage,
          terminalState: r.terminalState,
          omitted: r.omitted,
          drill: r.drill,
          error: r.error,
          counts: [
            r.modelCalls.length + (r.omitted?.modelCalls ?? 0),
            r.toolCalls.length + (r.omitted?.toolCalls ?? 0),
            r.operations.length + (r.omitted?.operations ?? 0),
            (r.httpRequests?.length ?? 0) + (r.omitted?.httpRequests ?? 0) || undefined,
          ],
        }),
      ),
    );

    const test = tree.roots[0];
    expect(test.type).toBe('test');
    expect(parsed(test.fields.expectation)).toEqual(goldenEvidence.expectation);
    expect(parsed(test.fields.omitted)).toEqual(goldenEvidence.omitted);
    expect([test.fields.testFile, test.fields.testName, test.fields.testStatus, test.fields.runs]).toEqual([
      goldenTest.file,
      goldenTest.name,
      goldenTest.status,
      goldenEvidence.runs.length,
    ]);
    expect(
      test.events.map((e) => [e.fields.phase, e.fields.exceptionType, e.fields.exceptionMessage]),
    ).toEqual(goldenTest.errors.map((e) => [e.phase, e.error.name, e.error.message]));
    expect([tree.resourceFields.serviceName, tree.resourceFields.testFile]).toEqual([
      'jest-understudy',
      goldenTest.file,
    ]);
  });

  it("round-trips the sessions: each a span, its turns its children in order, each linked to its calls' spans", () => {
    const sessions = ofType(tree, 'session');
    const byId = new Map(all(tree.roots).map((n) => [n.id, n]));
    const read = sessions.map((n) =>
      defined({
        index: n.fields.sessionIndex,
        url: n.fields.url,
        protocol: n.fields.protocol,
        closeCode: n.fields.sessionCloseCode,
        closeReason: n.fields.sessionCloseReason,
        closedBy: n.fields.sessionClosedBy,
        dropped: n.fields.sessionDropped,
        omittedTurns: n.fields.sessionOmittedTurns,
        durationMs: n.fields.durationMs,
        turns: n.children.map((t) => {
          const f = t.fields;
          const interrupted = defined({
            by: f.turnInterruptedBy,
            heardMs: f.turnHeardMs,
            heardChars: f.turnHeardChars,
            ofChars: f.turnSaidChars,
          });
          // The links reach the spans of exactly the calls the turn names.
          const linked = t.links.map((l) => byId.get(l.spanId)!);
          expect(linked.filter((c) => c.type === 'model').map((c) => c.fields.modelCallIndex)).toEqual(
            parsed(f.turnModelCalls),
          );
          return defined({
            index: f.turnIndex,
            user:
              f.turnInputVia === undefined ? undefined : { via: f.turnInputVia, text: f.turnUser ?? null },
            assistant: f.turnAssistant,
            modelCalls: parsed(f.turnModelCalls),
            toolCalls: parsed(f.turnToolCalls) ?? [],
            interrupted: Object.keys(interrupted).length > 0 ? interrupted : undefined,
            faults: f.turnFaults,
            durationMs: f.durationMs,
            tools: linked.filter((c) => c.type === 'tool').map((c) => c.fields.toolCallId),
          });
        }),
      }),
    );
    expect(read).toEqual(
      (goldenEvidence.sessions ?? []).map(({ startedAt, turns, ...s }) =>
        defined({
          ...s,
          turns: turns.map(({ startedAt: _, ...t }) =>
            defined({ ...t, tools: t.toolCalls.map((c) => c.id) }),
          ),
        }),
      ),
    );
  });

  it('leaves a value not of the type the table says out of the fields (a foreign trace), keeping it by name', () => {
    const doc = {
      resourceSpans: [
        {
          resource: { attributes: [] },
          scopeSpans: [
            {
              scope: { name: 'other' },
              spans: [
                {
                  traceId: 't',
                  spanId: 's',
                  name: 'x',
                  kind: 1,
                  startTimeUnixNano: '1',
                  endTimeUnixNano: '2',
                  attributes: [
                    { key: TRACE_ATTRIBUTES.runIndex.name, value: { stringValue: 'three' } },
                    { key: TRACE_ATTRIBUTES.runKind.name, value: { stringValue: 'drill' } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const [span] = readTrace(doc).roots;
    expect(span.fields).toEqual({ runKind: 'drill' });
    expect(span.attributes[TRACE_ATTRIBUTES.runIndex.name]).toBe('three');
  });

  it("names an override's id as the prefix of its fields does", () => {
    expect(`${TRACE_ATTRIBUTE_PREFIXES.overrideField.name}id`).toBe(TRACE_ATTRIBUTES.overrideId.name);
  });

  it('is the only place the sources name an attribute', () => {
    const files = ['src', 'environment'].flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
        .filter((name) => /\.(ts|cjs|mjs|js)$/.test(name))
        .map((name) => join(dir, name)),
    );
    const quoted = [...names.keys()].map((name) => new RegExp(`['"\`]${name.replace(/\./g, '\\.')}['"\`]`));
    const offenders: string[] = [];
    for (const file of files) {
      if (file.endsWith('src/trace/attributes.ts')) continue;
      const text = readFileSync(join(root, file), 'utf8');
      for (const re of quoted) if (re.test(text)) offenders.push(`${file} ${re}`);
    }
    expect(offenders).toEqual([]);
  });

  it('types the fields by the table (checked by the type checker)', () => {
    const node = tree.roots[0];
    // @ts-expect-error: a field the table does not have does not compile.
    expect(node.fields.notAnAttribute).toBeUndefined();
    const index: number | undefined = ofType(tree, 'run')[0].fields.runIndex;
    // @ts-expect-error: a field's value has the table's type (runIndex is a number).
    const wrong: string | undefined = ofType(tree, 'run')[0].fields.runIndex;
    expect([index, wrong]).toEqual([0, 0]);
    expect(() =>
      // @ts-expect-error: the writer takes only the table's keys…
      traceAttributes({ 'understudy.run.index': 0 }),
    ).toThrow();
    // @ts-expect-error: …with values of the table's type.
    traceAttributes({ runIndex: 'first' });
    const key: AttributeKey = 'runIndex';
    expect(traceAttributes({ [key]: 3 })).toEqual([
      { key: 'understudy.run.index', value: { intValue: '3' } },
    ]);
  });

  it('is listed in docs/traces.md as the table says (npm run docs)', () => {
    const doc = readFileSync(join(root, 'docs', 'traces.md'), 'utf8');
    expect(doc).toBe(withAttributeTable(doc, { TRACE_ATTRIBUTES, TRACE_ATTRIBUTE_PREFIXES }));
    for (const info of Object.values(TRACE_ATTRIBUTES)) expect(doc).toContain(`| \`${info.name}\` |`);
  });
});
