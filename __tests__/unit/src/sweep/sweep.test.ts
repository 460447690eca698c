/**
 * Fault sweeps from source: the guards that keep a variant from passing for the wrong reason.
 *
 * @jest-environment ./environment/jest/index.ts
 */
import { describe, expect, it } from '@jest/globals';
import { script, understudy } from 'jest-understudy';

class Store {
  saved: string[] = [];
  save({ id }: { id: string }) {
    this.saved.push(id);
    return { id };
  }
  get({ id }: { id: string }) {
    return { id };
  }
}

const flow = () =>
  script().user('save a').callsTool('save', { id: 'a' }).callsTool('get', { id: 'a' }).replies('Saved a.');

const scenario = understudy
  .scenario()
  .withFixtures([{ match: { toolResultContains: '"error"' }, response: { content: 'Could not save a.' } }])
  .withFixtures(flow())
  .withToolFake('store', () => new Store(), { errors: { save: [{ code: 'FULL', status: 507 }] } });

async function loop({ user, tools }: { user: string; tools: Record<string, (a: unknown) => unknown> }) {
  const OpenAI = (await import('openai')).default;
  const client = new OpenAI({ apiKey: 'test' });
  const messages: any[] = [{ role: 'user', content: user }];
  for (let i = 0; i < 5; i++) {
    const reply = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      tools: Object.keys(tools).map((name) => ({ type: 'function' as const, function: { name } })),
    });
    const message = reply.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue;
      let content: unknown;
      try {
        content = await tools[call.function.name](JSON.parse(call.function.arguments));
      } catch (e) {
        content = { error: (e as Error).message };
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(content) });
    }
  }
}

describe('understudy.sweep', () => {
  it('answers each call with its declared errors and a timeout, in call order', async () => {
    const sweep = await understudy.sweep(async ({ fault }) => {
      const run = await scenario.executeAgent(loop, { user: 'save a' });
      expect(run).toHaveTerminalState('succeeded');
      if (fault?.call.operationId === 'save') expect(run.finalMessage).toBe('Could not save a.');
    });
    expect(sweep.calls.map((c) => [c.operation, c.tool, c.ordinal, c.transport])).toEqual([
      ['store/save', 'save', 1, 'fake'],
      ['store/get', 'get', 1, 'fake'],
    ]);
    expect(sweep.variants.map((v) => [v.id, v.verdict])).toEqual([
      ['save#1 FULL', 'handled'],
      ['save#1 TIMEOUT', 'handled'],
      ['get#1 TIMEOUT', 'handled'],
    ]);
    // The injected fault is in the variant's evidence, and the method never ran.
    const [full] = sweep.variants;
    expect(full.runs[0].operations[0]).toMatchObject({
      operationId: 'save',
      outcome: { kind: 'error', error: { code: 'FULL', status: 507 } },
      faults: [{ id: 'injected', kind: 'error' }],
    });
    expect(full.trace.some((s) => s.name.includes('save'))).toBe(true);
    expect(sweep.table).toContain('Fault sweep: 2 calls, 3 faults: 3 handled, 0 not handled');
  });

  it('keeps only the codes asked for', async () => {
    const sweep = await understudy.sweep(() => scenario.executeAgent(loop, { user: 'save a' }), {
      faults: ['TIMEOUT'],
    });
    expect(sweep.variants.map((v) => v.id)).toEqual(['save#1 TIMEOUT', 'get#1 TIMEOUT']);
  });

  it('no false green: a variant whose fault never landed is not handled', async () => {
    let executions = 0;
    const sweep = await understudy.sweep(async () => {
      // After the baseline this body never calls the tools: no fault can land.
      const skip = executions++ > 0;
      await scenario.executeAgent(
        ({ user, tools }) => (skip ? 'skipped' : loop({ user, tools: tools as never })),
        { user: 'save a' },
      );
    });
    expect(sweep.unhandled).toHaveLength(3);
    expect(sweep.unhandled[0].reasons[0]).toBe(
      'the fault never landed: the run did not make call #1 of store/save',
    );
  });

  it('refuses bad options, naming them', async () => {
    await expect(understudy.sweep(async () => {}, { faults: 'all' as never })).rejects.toThrow(
      `understudy.sweep(): faults must be 'declared' or a list of error codes, received "all"`,
    );
    await expect(understudy.sweep(42 as never)).rejects.toThrow(
      'understudy.sweep(): expected a test body (async ({ fault }) => { … }) or runDrills options ({ drill, agent }), received number',
    );
  });
});
