/**
 * runDrills beyond the world's rules (tool-overrides.test.ts, state-and-evidence.test.ts): what the
 * agent gets, criteria and verdicts over trials, reproduction of random faults from build + seed, and
 * runs seeing the world.
 *
 * @understudy-world ../../../../fixtures/worlds/records.world.yaml
 * @jest-environment ./environment/jest/index.ts
 */
import { describe, expect, it } from '@jest/globals';
import {
  createAgentHarness,
  type DrillAgentContext,
  type DrillBuild,
  mockTool,
  runDrills,
  script,
  understudy,
  WorldError,
} from 'jest-understudy';
import OpenAI from 'openai';

const SAVE = { packageId: 'record-store', operationId: 'records.save' } as const;
const tool = (name: string) => ({
  type: 'function' as const,
  function: { name, parameters: { type: 'object' } },
});
const ARCHIVE = { packageId: 'record-store', operationId: 'records.archive' } as const;

describe('runDrills', () => {
  it('gives the agent { task, binding, world } for the drill and returns the verdict with runs, build and seed', async () => {
    let seen: DrillAgentContext | undefined;
    const result = await runDrills({
      drill: 'archive-record',
      agent: async (context) => {
        seen = context;
        mockTool(context.binding, { mode: 'sync', operation: ARCHIVE })({ id: 'record-2' });
        return 'archived';
      },
    });
    expect(seen?.task).toEqual({ id: 'archive-record', instruction: 'Archive record-2.', actorId: 'agent' });
    expect(seen?.binding.actorId).toBe('agent');
    expect(seen?.binding.expired).toBe(true); // the trial is over
    expect(seen?.world.state['record-store'].records['record-2'].archived).toBe(true);
    expect(result).toHavePassedDrill();
    expect(result).toMatchObject({ drill: 'archive-record', verdict: 'passed', reasons: [], seed: 7 });
    expect(result.runs).toHaveLength(1);
    expect(result.runs[0]).toMatchObject({
      output: 'archived',
      terminalState: 'succeeded',
      input: seen?.task,
    });
    expect(result.runs[0].operations.map((o) => o.operationId)).toEqual(['records.archive']);
    expect(result.criteria.map((c) => [c.description, c.passed])).toEqual([
      ['state $.record-store.records.record-2.archived equals true', true],
      ['record-store/records.delete never called', true],
    ]);
    // The drill ran on a world of its own: the file's world is untouched.
    expect(understudy.world.operations).toEqual([]);
    expect(understudy.world.state['record-store'].records['record-2'].archived).toBeUndefined();
  });

  it('HTTP calls made during a drill reach the drill world, as its actor', async () => {
    const result = await runDrills({
      drill: 'playground',
      agent: async () => {
        await fetch('https://records.example.test/v1/records/record-1', { method: 'DELETE' });
      },
    });
    expect(result.evidence).toEqual([
      expect.objectContaining({ operationId: 'records.delete', transport: 'http', actorId: 'agent' }),
    ]);
    expect(result.state['record-store'].records['record-1']).toBeUndefined();
    expect(understudy.world.state['record-store'].records['record-1']).toBeDefined();
  });

  it('fails the verdict with every failed criterion, an agent error and a timeout; each trial must pass', async () => {
    const failing = await runDrills({
      drill: 'save-record',
      trials: 2,
      agent: async () => Promise.reject(new TypeError('no model')),
    });
    expect(failing.verdict).toBe('failed');
    expect(failing.trials.map((t) => t.seed)).toEqual([7, expect.any(Number)]);
    expect(failing.trials[1].seed).not.toBe(7);
    expect(failing.reasons).toEqual([
      'trial 1: state $.record-store.records.record-1.text equals "final": found "first draft"',
      'trial 1: state $.record-store.records.record-1.version equals 2: found 1',
      'trial 1: record-store/records.save with {"id":"record-1"} succeeding (not replays) called exactly once: it was never called',
      'trial 1: the agent threw TypeError: no model',
      'trial 2: state $.record-store.records.record-1.text equals "final": found "first draft"',
      'trial 2: state $.record-store.records.record-1.version equals 2: found 1',
      'trial 2: record-store/records.save with {"id":"record-1"} succeeding (not replays) called exactly once: it was never called',
      'trial 2: the agent threw TypeError: no model',
    ]);
    const slow = await runDrills({
      drill: 'playground',
      timeoutMs: 20,
      agent: () => new Promise((r) => setTimeout(r, 1000)),
    });
    expect(slow.reasons).toEqual(['the agent did not finish within 20 ms']);
    expect(slow.runs[0].terminalState).toBe('timed_out');
  });

  it('evaluates each kind of criterion over the final state and the evidence', async () => {
    const result = await runDrills({
      drill: 'save-record',
      setup: { scenario: 'busy-store' },
      agent: async ({ binding }) => {
        const save = mockTool(binding, { mode: 'async', operation: SAVE, idempotencyKey: () => 'one' });
        await save({ id: 'record-1', text: 'final' }).catch(() => undefined);
        await save({ id: 'record-1', text: 'final' });
        await save({ id: 'record-1', text: 'final' }); // a replay: not counted by replayed: false
      },
    });
    expect(result).toHavePassedDrill();
    expect(result.criteria.map((c) => c.passed)).toEqual([true, true, true, true]);
  });

  it('refuses an unknown drill, a foreign build and overlapping options, saying why', async () => {
    const agent = async () => undefined;
    await expect(runDrills({ drill: 'save-recrd', agent })).rejects.toThrow(
      'world "records" has no drill "save-recrd"; did you mean "save-record"?',
    );
    const { build } = await runDrills({ drill: 'playground', agent });
    const foreign: DrillBuild = { ...build, world: { ...build.world, hash: 'sha256:0' } };
    await expect(runDrills({ build: foreign, agent })).rejects.toMatchObject({ code: 'BUILD_MISMATCH' });
    await expect(runDrills({ build, setup: {}, agent })).rejects.toThrow('a build already holds its setup');
    await expect(runDrills({ build: { nonsense: true } as never, agent })).rejects.toThrow(WorldError);
    await expect(runDrills({ drill: 'playground', agent: 'nope' as never })).rejects.toThrow(
      'agent must be a function',
    );
  });
});

describe('reproduction from build + seed', () => {
  /** An agent on the OpenAI SDK whose tool calls go through a flaky store (random BUSY, seeded). */
  const agent = async ({ binding, task }: DrillAgentContext) => {
    const save = mockTool(binding, { mode: 'async', operation: SAVE });
    const client = new OpenAI({ maxRetries: 0 });
    const messages: any[] = [{ role: 'user', content: task.instruction }];
    for (let step = 0; step < 6; step++) {
      const { choices } = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages,
        tools: [tool('save_record')],
      });
      const message = choices[0].message;
      messages.push(message);
      if (!message.tool_calls?.length) return message.content;
      for (const call of message.tool_calls) {
        if (call.type !== 'function') continue;
        let result: unknown;
        for (let attempt = 0; attempt < 4; attempt++) {
          try {
            result = await save(JSON.parse(call.function.arguments));
            break;
          } catch (error) {
            result = { error: (error as Error).message };
          }
        }
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
      }
    }
  };
  const flaky = {
    scenario: {
      faults: [{ id: 'flaky', operation: SAVE, kind: 'error' as const, code: 'BUSY', rate: 0.5 }],
      toolOverrides: [
        {
          id: 'lock-2',
          operation: SAVE,
          when: { arguments: { id: 'record-2' } },
          times: 1,
          outcome: { kind: 'error' as const, code: 'LOCKED' },
        },
      ],
    },
  };
  const fixtures = () =>
    script()
      .user('Save record-1')
      .callsTool('save_record', { id: 'record-1', text: 'final' })
      .callsTool('save_record', { id: 'record-2', text: 'also' })
      .replies('Done.');

  it('the same build and seed give identical evidence (per-test rules and seeded faults included); another seed differs', async () => {
    understudy.model.use(fixtures());
    const first = await runDrills({ drill: 'save-record', setup: flaky, seed: 1234, agent });
    const again = await runDrills({ build: first.build, seed: first.seed, agent });
    expect(again.evidence).toEqual(first.evidence);
    expect(again.trials[0].events).toEqual(first.trials[0].events);
    expect(again.state).toEqual(first.state);
    expect(first.evidence.some((o) => o.faults?.[0]?.id === 'flaky')).toBe(true);
    expect(first.evidence.some((o) => o.override?.id === 'lock-2')).toBe(true);

    const other = await runDrills({ build: first.build, seed: 99, agent });
    expect(other.evidence.map((o) => o.outcome.kind)).not.toEqual(first.evidence.map((o) => o.outcome.kind));
  });

  it('several trials: each trial gets its own seed, and the build reproduces all of them', async () => {
    understudy.model.use(fixtures());
    const first = await runDrills({ drill: 'save-record', setup: flaky, seed: 5, trials: 3, agent });
    const again = await runDrills({ build: first.build, agent });
    expect(again.trials.map((t) => t.evidence)).toEqual(first.trials.map((t) => t.evidence));
    expect(new Set(first.trials.map((t) => t.seed)).size).toBe(3);
  });
});

describe('runs see the world', () => {
  it('a Run lists the operations executed during it (not those before or after)', async () => {
    const save = mockTool(understudy.world.bind(), { mode: 'sync', operation: SAVE });
    save({ id: 'record-1', text: 'before' });
    const run = await understudy.run(async () => {
      save({ id: 'record-1', text: 'inside' });
      await fetch('https://records.example.test/v1/records/record-2');
    });
    save({ id: 'record-1', text: 'after' });
    expect(run.operations.map((o) => [o.seq, o.operationId, o.transport])).toEqual([
      [2, 'records.save', 'direct'],
      [3, 'records.get', 'http'],
    ]);
    expect(run.operations[0]).toMatchObject({
      startedAt: expect.any(Number),
      durationMs: expect.any(Number),
    });
  });

  it('concurrent runs each get their own operations', async () => {
    const save = mockTool(understudy.world.bind(), { mode: 'async', operation: SAVE });
    const runAs = (text: string) =>
      understudy.run(async () => {
        for (let i = 0; i < 3; i++) {
          await save({ id: 'record-1', text });
          await new Promise((r) => setTimeout(r, 1));
        }
      });
    const [a, b] = await Promise.all([runAs('a'), runAs('b')]);
    expect(a.operations.map((o) => (o.input as { text: string }).text)).toEqual(['a', 'a', 'a']);
    expect(b.operations.map((o) => (o.input as { text: string }).text)).toEqual(['b', 'b', 'b']);
  });

  it('harness runs link tool calls to operations by window and tool name; parallel calls by their arguments', async () => {
    const get = mockTool(understudy.world.bind(), {
      mode: 'async',
      operation: { packageId: 'record-store', operationId: 'records.get' },
    });
    const harness = createAgentHarness({
      agent: async (question: string) => {
        const client = new OpenAI({ maxRetries: 0 });
        const messages: any[] = [{ role: 'user', content: question }];
        for (;;) {
          const { choices } = await client.chat.completions.create({
            model: 'gpt-4o-mini',
            messages,
            tools: [tool('get_record')],
          });
          const message = choices[0].message;
          messages.push(message);
          if (!message.tool_calls?.length) return message.content;
          // Parallel calls, answered in reverse order: linking must still follow the arguments.
          const calls = [...message.tool_calls].reverse();
          const results = await Promise.all(
            calls.map((c: any) => get(JSON.parse(c.function.arguments)).catch(() => null)),
          );
          for (const [i, c] of calls.entries())
            messages.push({ role: 'tool', tool_call_id: c.id, content: JSON.stringify(results[i]) });
        }
      },
      fixtures: script()
        .user('Compare')
        .callsTools([
          { name: 'get_record', args: { id: 'record-1' } },
          { name: 'get_record', args: { id: 'record-2' } },
        ])
        .replies('Compared.'),
    });
    const run = await harness.run('Compare record-1 and record-2');
    await harness.close();
    expect(run.toolCalls.map((c) => [c.arguments.id, c.operations])).toEqual([
      ['record-1', [2]],
      ['record-2', [1]],
    ]);
    expect(run.operations.map((o) => [o.seq, o.toolCallId])).toEqual([
      [1, run.toolCalls[1].id],
      [2, run.toolCalls[0].id],
    ]);
  });
});
