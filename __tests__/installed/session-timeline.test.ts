/**
 * The trace of a socket session, from the installed package, under Jest (CommonJS and ESM) and
 * Vitest: OpenAI Realtime (a tool loop, an answer the client cuts off, a spoken turn; a barge-in the
 * server hears; a dropped socket) and Gemini Live (a spoken question with a function call; the user
 * cutting in). The cases' project writes every test's trace; this reads the trace JSON and the
 * timeline HTML the package wrote, and `understudy report` on one of them, and checks that the
 * session, its turns, their order and text, and how much of a cut answer the user heard are there.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { readTrace, type SpanNode, type TraceTree } from '../../src/trace/read';
import { fileOf, type InstalledProjectRun, installedProject } from '../support/installed';
import { runnersOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';

const HOURS = 'We open at nine and close at six, every day but Sunday.';
const ANSWER = 'It is 18 degrees and sunny in Paris.';
const STORY = 'Once upon a time there was a very long story that went on and on.';

const all = (nodes: SpanNode[]): SpanNode[] => nodes.flatMap((n) => [n, ...all(n.children)]);

/** A test's trace files, by the start of its title (the runners name a test alike, here with no describe). */
function traceOf(run: InstalledProjectRun, file: string, title: string): { json: string; html: string } {
  const dir = join(run.project, '.understudy', 'traces', file);
  const name = existsSync(dir)
    ? readdirSync(dir).find((f) => f.startsWith(title) && f.endsWith('.trace.json'))
    : undefined;
  if (!name)
    throw new Error(
      `no trace for "${title}" in ${dir}: ${existsSync(dir) ? readdirSync(dir).join(', ') : 'no folder'}`,
    );
  const json = join(dir, name);
  return { json, html: json.replace(/\.json$/, '.html') };
}

/** The test's one session, and its turns in the order the trace gives them. */
function sessionOf(tree: TraceTree): { session: SpanNode; turns: SpanNode[] } {
  const sessions = all(tree.roots).filter((n) => n.type === 'session');
  expect(sessions).toHaveLength(1);
  const [session] = sessions;
  const turns = session.children.filter((c) => c.type === 'turn');
  expect(turns.map((t) => t.fields.turnIndex)).toEqual(turns.map((_, i) => i));
  const starts = turns.map((t) => t.start);
  expect(starts).toEqual([...starts].sort((a, b) => a - b));
  return { session, turns };
}

/** Each link of a turn reaches a model call or tool call span of the trace, the ones the turn names. */
function expectLinks(tree: TraceTree, turn: SpanNode, tools: string[]): void {
  const byId = new Map(all(tree.roots).map((n) => [n.id, n]));
  const targets = turn.links.map((l) => byId.get(l.spanId));
  expect(targets.every((t) => t !== undefined)).toBe(true);
  const calls = JSON.parse(String(turn.fields.turnModelCalls)) as number[];
  expect(targets.filter((t) => t!.type === 'model').map((t) => t!.fields.modelCallIndex)).toEqual(calls);
  expect(targets.filter((t) => t!.type === 'tool').map((t) => t!.fields.toolName)).toEqual(tools);
}

const toolCalls = (turn: SpanNode) =>
  (JSON.parse(String(turn.fields.turnToolCalls ?? '[]')) as Array<{ name: string; output?: unknown }>).map(
    (c) => [c.name, c.output],
  );

/** The page's text where the given phrases appear, in this order. */
function expectInOrder(page: string, phrases: string[]): void {
  let at = -1;
  for (const phrase of phrases) {
    const found = page.indexOf(phrase, at + 1);
    if (found < 0)
      throw new Error(`the timeline does not have ${JSON.stringify(phrase)} after position ${at}`);
    at = found;
  }
}

/** The timeline's text as the page shows it (its markup's escapes undone). */
const pageText = (file: string) =>
  readFileSync(file, 'utf8')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

describe.each(runnersOf(__filename))('the session timeline (%s)', (runner) => {
  let run: InstalledProjectRun;

  beforeAll(async () => {
    run = await sharedRun('session-timeline', runner);
  }, 240_000);

  it("runs the sessions (the agents' side passes)", () => {
    for (const name of [
      'session-timeline-realtime.case.js',
      'session-timeline-live.case.js',
      'session-timeline-responses.case.js',
    ]) {
      const file = fileOf(run, name);
      expect(file.tests.map((t) => [t.title, t.status, t.failureMessages.join('\n')])).toEqual(
        file.tests.map((t) => [t.title, 'passed', '']),
      );
    }
  });

  it('Realtime: the socket, then its turns in order: the tool loop, the answer cut where the client truncated it, the spoken turn', () => {
    const files = traceOf(run, 'session-timeline-realtime.case.js', 'a voice session');
    const tree = readTrace(readFileSync(files.json, 'utf8'));
    const { session, turns } = sessionOf(tree);
    expect(session.fields).toMatchObject({
      protocol: 'openai.realtime',
      url: 'wss://api.openai.com/v1/realtime?model=gpt-realtime',
      sessionClosedBy: 'client',
      sessionTurns: 3,
      outcome: 'closed',
    });
    expect(session.fields.sessionDropped).toBeUndefined();
    expect(turns.map((t) => [t.fields.turnInputVia, t.fields.turnUser, t.fields.turnAssistant])).toEqual([
      ['text', 'Where is order 7?', 'Order 7 has shipped.'],
      ['text', 'Tell me about your hours', 'We o'],
      ['audio', 'Stop, just tell me Sunday', 'Closed on Sunday.'],
    ]);
    expect(toolCalls(turns[0])).toEqual([['lookup_order', '{"id":7,"status":"shipped"}']]);
    expectLinks(tree, turns[0], ['lookup_order']);
    expect(JSON.parse(String(turns[0].fields.turnModelCalls))).toHaveLength(2);
    // What the user heard of the answer they cut off, never the fixture's whole text.
    expect(turns[1].fields).toMatchObject({
      outcome: 'interrupted',
      turnInterruptedBy: 'client',
      turnHeardMs: 160,
      turnHeardChars: 4,
      turnSaidChars: HOURS.length,
    });
    expect(turns.map((t) => t.fields.outcome)).toEqual(['answered', 'interrupted', 'answered']);

    const page = pageText(files.html);
    expectInOrder(page, [
      'Session 0',
      'openai.realtime',
      'closed by the client',
      'Turn 0',
      'user typed “Where is order 7?”',
      'called lookup_order {"id":7} → {"id":7,"status":"shipped"}',
      'assistant said “Order 7 has shipped.”',
      'Turn 1',
      'user typed “Tell me about your hours”',
      `assistant said “We o” (interrupted by the client after 160 ms of audio, at character 4 of ${HOURS.length})`,
      'Turn 2',
      'user said “Stop, just tell me Sunday”',
      'assistant said “Closed on Sunday.”',
    ]);
    expect(page).not.toContain(`assistant said “${HOURS}”`);
    // The turn links to its steps on the page.
    const anchors = [...page.matchAll(/<li class="sturn[^"]*" id="session-0-turn-0"[\s\S]*?<\/li>/g)][0][0];
    for (const [, anchor] of anchors.matchAll(/href="#([^"]+)"/g)) expect(page).toContain(`id="${anchor}"`);
    expect([...anchors.matchAll(/href="#/g)]).toHaveLength(3);

    // The plain tree, as `understudy report` prints it from the installed package.
    const main = join(installedProject(), 'node_modules', 'jest-understudy', 'dist', 'src', 'cli', 'main.js');
    const report = spawnSync(process.execPath, [main, 'report', files.json], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', NODE_OPTIONS: '' },
      timeout: 60_000,
    });
    expect(report.status).toBe(0);
    expectInOrder(report.stdout, [
      'session 0 openai.realtime wss://api.openai.com/v1/realtime?model=gpt-realtime  closed by the client',
      'turn 0  user typed “Where is order 7?”  answered',
      'called lookup_order {"id":7} → {"id":7,"status":"shipped"}',
      'assistant said “Order 7 has shipped.”',
      'turn 1  user typed “Tell me about your hours”  interrupted',
      `assistant said “We o” (interrupted by the client after 160 ms of audio, at character 4 of ${HOURS.length})`,
      'turn 2  user said “Stop, just tell me Sunday”  answered',
      'assistant said “Closed on Sunday.”',
    ]);
  });

  it('Realtime: a barge-in the server hears is the user’s interruption, the answer cut where they spoke', () => {
    const files = traceOf(run, 'session-timeline-realtime.case.js', 'a barge-in the server hears');
    const tree = readTrace(readFileSync(files.json, 'utf8'));
    const { turns } = sessionOf(tree);
    expect(turns.map((t) => [t.fields.turnInputVia, t.fields.turnUser])).toEqual([
      ['text', 'Tell me about your hours'],
      ['audio', 'Stop, just tell me Sunday'],
    ]);
    const cut = turns[0].fields;
    expect(cut.turnInterruptedBy).toBe('user');
    expect(cut.turnSaidChars).toBe(HOURS.length);
    const heard = String(cut.turnAssistant ?? '');
    expect(heard.length).toBeLessThan(20);
    expect(HOURS.startsWith(heard)).toBe(true);
    expect(cut.turnHeardChars).toBe(heard.length);
    expect(turns[1].fields.turnAssistant).toBe('Closed on Sunday.');
    expect(pageText(files.html)).toContain('(interrupted by the user');
  });

  it('Realtime: a dropped socket shows as dropped, its turn with what reached the client', () => {
    const files = traceOf(run, 'session-timeline-realtime.case.js', 'a socket dropped mid-answer');
    const tree = readTrace(readFileSync(files.json, 'utf8'));
    const { session, turns } = sessionOf(tree);
    expect(session.fields).toMatchObject({
      sessionDropped: true,
      sessionCloseCode: 1006,
      sessionClosedBy: 'server',
      outcome: 'dropped',
    });
    expect(session.status.code).toBe(2);
    expect(turns).toHaveLength(1);
    const turn = turns[0].fields;
    expect(turn.outcome).toBe('failed');
    expect(turn.turnFaults).toEqual([
      expect.stringMatching(/^cut: truncated \(\d+ of \d+ events reached the client\)$/),
      'the socket dropped (1006, no close frame)',
    ]);
    const reached = String(turn.turnAssistant ?? '');
    expect(reached).not.toBe('Order 7 has shipped.');
    expect('Order 7 has shipped.'.startsWith(reached)).toBe(true);
    const page = pageText(files.html);
    expect(page).toContain('dropped by the server (1006, no close frame)');
    expect(page).toContain('the socket dropped (1006, no close frame)');
  });

  it('Gemini Live: the spoken question as heard, the function call with its response, the answer', () => {
    const files = traceOf(run, 'session-timeline-live.case.js', 'a spoken question');
    const tree = readTrace(readFileSync(files.json, 'utf8'));
    const { session, turns } = sessionOf(tree);
    expect(session.fields).toMatchObject({
      protocol: 'gemini.live',
      sessionClosedBy: 'client',
      outcome: 'closed',
    });
    expect(turns.map((t) => [t.fields.turnInputVia, t.fields.turnUser, t.fields.turnAssistant])).toEqual([
      ['audio', 'What is the weather in Paris?', 'It is 18 degrees and sunny in Paris.'],
    ]);
    expect(toolCalls(turns[0])).toEqual([['get_weather', { city: 'Paris', tempC: 18 }]]);
    expectLinks(tree, turns[0], ['get_weather']);
    expectInOrder(pageText(files.html), [
      'gemini.live',
      'user said “What is the weather in Paris?”',
      'called get_weather {"city":"Paris"} → {"city":"Paris","tempC":18}',
      'assistant said “It is 18 degrees and sunny in Paris.”',
    ]);
  });

  it('Gemini Live over the served port: the same session, by the provider’s URL, credited to the test', () => {
    const files = traceOf(run, 'session-timeline-live.case.js', 'over the served port');
    const tree = readTrace(readFileSync(files.json, 'utf8'));
    const { session, turns } = sessionOf(tree);
    expect(session.fields).toMatchObject({
      protocol: 'gemini.live',
      sessionClosedBy: 'client',
      outcome: 'closed',
    });
    expect(String(session.fields.url)).toMatch(/^wss:\/\/generativelanguage\.googleapis\.com\//);
    expect(turns.map((t) => [t.fields.turnInputVia, t.fields.turnUser, t.fields.turnAssistant])).toEqual([
      ['text', 'Weather in Paris?', ANSWER],
    ]);
    expect(toolCalls(turns[0])).toEqual([['get_weather', { city: 'Paris', tempC: 18 }]]);
    expectLinks(tree, turns[0], ['get_weather']);
  });

  it('Responses WebSocket mode: each question a turn, its tool loop inside it, linked to the HTTP-pipeline calls', () => {
    const files = traceOf(run, 'session-timeline-responses.case.js', 'a tool loop over one socket');
    const tree = readTrace(readFileSync(files.json, 'utf8'));
    const { session, turns } = sessionOf(tree);
    expect(session.fields).toMatchObject({
      protocol: 'openai.responses.ws',
      url: 'wss://api.openai.com/v1/responses',
      sessionClosedBy: 'client',
      outcome: 'closed',
    });
    expect(turns.map((t) => [t.fields.turnInputVia, t.fields.turnUser, t.fields.turnAssistant])).toEqual([
      ['text', 'What is the weather in Paris, and the time there?', 'It is 18°C in Paris, and 09:30.'],
      ['text', 'And tomorrow?', 'Rain tomorrow.'],
    ]);
    expect(toolCalls(turns[0])).toEqual([
      ['get_weather', '{"city":"Paris","tempC":18}'],
      ['get_time', '{"tz":"Europe/Paris","time":"09:30"}'],
    ]);
    expectLinks(tree, turns[0], ['get_weather', 'get_time']);
    expect(JSON.parse(String(turns[0].fields.turnModelCalls))).toHaveLength(3);
    expectLinks(tree, turns[1], []);
    expectInOrder(pageText(files.html), [
      'openai.responses.ws',
      'user typed “What is the weather in Paris, and the time there?”',
      'called get_weather',
      'called get_time',
      'assistant said “It is 18°C in Paris, and 09:30.”',
      'user typed “And tomorrow?”',
      'assistant said “Rain tomorrow.”',
    ]);
  });

  it('Gemini Live: the user cutting in ends the turn with what reached them, and opens the next', () => {
    const files = traceOf(run, 'session-timeline-live.case.js', 'the user cuts in');
    const tree = readTrace(readFileSync(files.json, 'utf8'));
    const { turns } = sessionOf(tree);
    expect(turns.map((t) => [t.fields.turnInputVia, t.fields.turnUser, t.fields.turnAssistant])).toEqual([
      ['text', 'Tell me a story', 'Once upon '],
      ['text', 'Please stop', 'Stopping.'],
    ]);
    expect(turns[0].fields).toMatchObject({
      outcome: 'interrupted',
      turnInterruptedBy: 'user',
      turnHeardChars: 10,
      turnSaidChars: STORY.length,
    });
    const page = pageText(files.html);
    expectInOrder(page, [
      'user typed “Tell me a story”',
      `assistant said “Once upon ” (interrupted by the user, at character 10 of ${STORY.length})`,
      'user typed “Please stop”',
      'assistant said “Stopping.”',
    ]);
    expect(page).not.toContain('assistant said “Once upon a time');
  });
});
