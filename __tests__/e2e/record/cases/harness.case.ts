import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from '@jest/globals';
import { createAgentHarness, script, writeFixtures } from 'jest-understudy';
import { anthropicAgent, chatAgent, save } from './agents';

const out = () => process.env.RUN_OUT ?? '/tmp';
const file = () => join(out(), 'harness.fixture.yaml');
const phase = process.env.CASE_PHASE;
/** The prompt carries the time it was asked: normalized away on both sides, so the recording replays. */
const normalize = (text: string) => text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, '<time>');
const asked = (offsetMs: number) =>
  `Where is order C-3003? Asked at ${new Date(Date.now() + offsetMs).toISOString()}.`;

it('records the latest run with a harness and writes it as a cassette', async () => {
  if (phase === 'record') {
    const harness = createAgentHarness({
      agent: (q: string) => chatAgent(q, true),
      record: true,
      normalize,
      redact: (fixture) => {
        fixture.metadata = { ...fixture.metadata, reviewedBy: 'redact hook' };
      },
    });
    const run = await harness.run(asked(0));
    const fixtures = harness.getRecordedFixtures();
    expect(fixtures.map((f) => f.match)).toEqual([
      { userMessage: 'Where is order C-3003? Asked at <time>.', turnIndex: 0, hasToolResult: false },
      { userMessage: 'Where is order C-3003? Asked at <time>.', turnIndex: 1, hasToolResult: true },
    ]);
    writeFixtures(file(), fixtures);
    await harness.close();
    save('harness', run);
  } else {
    const harness = createAgentHarness({
      agent: (q: string) => chatAgent(q, true),
      fixtures: file(),
      normalize,
    });
    const run = await harness.run(asked(86_400_000));
    expect(run.modelCalls.every((c) => c.fixture !== undefined && !c.recorded)).toBe(true);
    save('harness', run);
  }
});

it('live mode proxies to the provider, registers no fixtures and writes nothing', async () => {
  if (phase !== 'record') return;
  const harness = createAgentHarness({
    agent: (q: string) => anthropicAgent(q, false),
    live: true,
    // Ignored in live mode: the provider answers.
    fixtures: script().user('Where is order D-4004?').replies('from a fixture'),
  });
  const run = await harness.run('Where is order D-4004?');
  expect(run.output).toContain('packing');
  expect(run.modelCalls.map((c) => c.recorded)).toEqual([true, true]);
  expect(run.toolsCalled).toEqual(['lookup_order']);
  expect(existsSync(join(__dirname, '__cassettes__'))).toBe(false);
  expect(readFileSync(file(), 'utf8')).not.toContain('D-4004');
});
