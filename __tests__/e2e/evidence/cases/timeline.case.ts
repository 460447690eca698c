import { describe, expect, it } from '@jest/globals';
import { script, understudy } from 'jest-understudy';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';

const TOOLS = [
  'get_deploy',
  'list_pods',
  'get_logs',
  'query_metrics',
  'check_alerts',
  'get_runbook',
  'verify_healthcheck',
  'rollback',
  'scale',
  'notify_oncall',
];

const definitions: ChatCompletionTool[] = TOOLS.map((name) => ({
  type: 'function',
  function: {
    name,
    description: `The ${name.replace(/_/g, ' ')} tool.`,
    parameters: { type: 'object', properties: { ns: { type: 'string' }, service: { type: 'string' } } },
  },
}));

function fakeTool(name: string, args: Record<string, unknown>): unknown {
  if (name === 'get_logs') return { error: 'log backend timed out', retryable: true };
  if (name === 'verify_healthcheck') return { healthy: args.ns !== 'canary', checks: 3 };
  return { ok: true, tool: name, ...args };
}

/** An incident responder: asks the model, runs the tools it names (in parallel), until it answers. */
async function respond(incident: string): Promise<string> {
  const client = new OpenAI({ maxRetries: 0 });
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are the on-call agent. Verify health before any rollback.' },
    { role: 'user', content: incident },
  ];
  for (let step = 0; step < 30; step++) {
    const c = await client.chat.completions.create({ model: 'gpt-4o', messages, tools: definitions });
    const message = c.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content ?? '';
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue;
      const result = fakeTool(call.function.name, JSON.parse(call.function.arguments));
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
    }
  }
  throw new Error('too many steps');
}

const PLAN: Array<[string, string]> = [
  ['get_deploy', 'check_alerts'],
  ['list_pods', 'get_logs'],
  ['query_metrics', 'get_runbook'],
  ['get_logs', 'list_pods'],
  ['rollback', 'notify_oncall'],
  ['query_metrics', 'check_alerts'],
  ['verify_healthcheck', 'list_pods'],
  ['scale', 'query_metrics'],
  ['get_deploy', 'check_alerts'],
  ['verify_healthcheck', 'get_logs'],
  ['list_pods', 'query_metrics'],
  ['scale', 'notify_oncall'],
  ['verify_healthcheck', 'check_alerts'],
  ['get_runbook', 'query_metrics'],
  ['list_pods', 'notify_oncall'],
];

describe('incident response', () => {
  it('verifies health before rolling the canary back', async () => {
    let s = script().user('checkout latency incident');
    for (const [a, b] of PLAN)
      s = s.callsTools([
        { name: a, args: { ns: 'canary', service: 'checkout' } },
        { name: b, args: { ns: 'canary', service: 'checkout' } },
      ]);
    understudy.model.use(s.replies('Rolled back checkout in canary; latency is back to normal.'));

    const run = await understudy.run(() => respond('checkout latency incident'));

    // World operations as the world engine reports them (built by hand here).
    let seq = 0;
    for (const call of run.toolCalls) {
      if (!['rollback', 'scale', 'notify_oncall'].includes(call.name)) continue;
      seq++;
      const frozen = call.name === 'scale' && seq > 3;
      // The last page fails without any override: the pager was busy, the tool call still succeeded.
      const busy = seq === 6;
      (run.operations as unknown[]).push({
        seq,
        packageId: call.name === 'notify_oncall' ? 'pager' : 'k8s',
        operationId: call.name === 'notify_oncall' ? 'pages.create' : `deployments.${call.name}`,
        input: call.arguments,
        outcome: frozen
          ? { kind: 'error', error: { code: 'FROZEN', message: 'deploys to canary are frozen', status: 423 } }
          : busy
            ? { kind: 'error', error: { code: 'BUSY', message: 'pager busy', status: 503 } }
            : { kind: 'ok', value: { revision: 41 + seq } },
        ...(frozen && {
          override: { id: 'freeze-canary', scope: 'scenario', outcome: 'error', matchCount: 1 },
        }),
        toolCallId: call.id,
      });
    }

    expect(run).toHaveCalledToolSequence(['get_deploy', 'verify_healthcheck', 'rollback'], {
      mode: 'ordered',
    });
  });
});
