/** @jest-environment ./environment/jest/index.ts */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import {
  createAgentHarness,
  type Fixture,
  loadFixtures,
  script,
  UnderstudyError,
  understudy,
  writeFixtures,
} from 'jest-understudy';
import OpenAI from 'openai';
import { resolveOptions } from '../../../../environment/options';
import { fingerprintOf } from '../../../../src/record/prompt-hash';

const saved = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
  understudy.model.normalize(undefined);
});

function thrown(fn: () => unknown): UnderstudyError {
  try {
    fn();
  } catch (error) {
    return error as UnderstudyError;
  }
  throw new Error('expected a throw');
}

const agent = async (q: string) =>
  (await new OpenAI().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: q }] }))
    .choices[0].message.content;

describe('the harness in record and live modes', () => {
  it('refuses to record or go live when CI is set', () => {
    process.env.CI = 'true';
    process.env.OPENAI_API_KEY = 'sk-real-looking-key-0123456789';
    const error = thrown(() => createAgentHarness({ agent, record: true }));
    expect(error).toBeInstanceOf(UnderstudyError);
    expect(error.code).toBe('RECORD_REFUSED');
    expect(error.message).toBe(
      'jest-understudy: createAgentHarness({ record: true }) asks for record mode, but CI is set (CI="true"). ' +
        'record mode calls the real model provider, so it runs only on a developer machine; CI replays committed ' +
        'fixtures. Record locally, review the files, commit them, and let CI replay them.',
    );
    expect(thrown(() => createAgentHarness({ agent, live: true })).code).toBe('RECORD_REFUSED');
    process.env.CI = 'false';
    expect(() => createAgentHarness({ agent, live: true })).not.toThrow();
  });

  it('needs a real key: the replay placeholder does not count, and the message names the variables', () => {
    delete process.env.CI;
    for (const name of [
      'OPENAI_API_KEY',
      'ANTHROPIC_API_KEY',
      'GEMINI_API_KEY',
      'GOOGLE_API_KEY',
      'GOOGLE_GENERATIVE_AI_API_KEY',
    ])
      delete process.env[name];
    process.env.OPENAI_API_KEY = 'sk-understudy-replay';
    const error = thrown(() => createAgentHarness({ agent, record: true }));
    expect(error.code).toBe('RECORD_KEY_MISSING');
    expect(error.message).toContain(
      'no provider key is set. Set OPENAI_API_KEY (OpenAI), ANTHROPIC_API_KEY (Anthropic)',
    );
  });

  it('takes record or live, not both', () => {
    expect(thrown(() => createAgentHarness({ agent, record: true, live: true })).code).toBe('BAD_ARGUMENT');
  });

  it('getRecordedFixtures() says when there is nothing recorded', async () => {
    const harness = createAgentHarness({ agent, fixtures: script().user('hi').replies('hello') });
    expect(thrown(() => harness.getRecordedFixtures()).message).toBe(
      'harness.getRecordedFixtures(): no run yet; call harness.run(input) first',
    );
    await harness.run('hi');
    expect(thrown(() => harness.getRecordedFixtures()).message).toContain(
      'the latest run made 1 model call(s) and none went to the provider. Create the harness with `record: true`',
    );
  });
});

describe('normalize', () => {
  it('rewrites dynamic values in the request before matching', async () => {
    understudy.model.normalize((text) =>
      text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>'),
    );
    understudy.model.use([
      { match: { userMessage: 'Cancel booking <uuid> now' }, response: { content: 'Cancelled.' } },
    ]);
    const run = await understudy.run(() => agent('Cancel booking 9b2f6a1e-2c3d-4e5f-8a9b-0c1d2e3f4a5b now'));
    expect(run.output).toBe('Cancelled.');
  });

  it('rejects what is not a function', () => {
    expect(() => understudy.model.normalize('x' as never)).toThrow(
      'understudy.model.normalize(fn): expected a function',
    );
  });
});

describe('cassette staleness on replay', () => {
  const recordedAgainst = (system: string, tools: string[]) =>
    fingerprintOf({
      provider: 'openai',
      protocol: 'openai.chat',
      model: 'gpt-4o',
      messages: [{ role: 'system', text: system }],
      tools: tools.map((name) => ({ name, parameters: { type: 'object' } })),
      stream: false,
      streamUsage: false,
    });

  it('warns once per fixture, naming it and what changed (prompt and tools)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'understudy-stale-'));
    const old = recordedAgainst('You are a support agent.', ['lookup_order', 'refund']);
    const fixtures: Fixture[] = [
      { id: 'greeting', match: { userMessage: 'Hello' }, response: { content: 'Hi!' }, metadata: old },
      { match: { userMessage: 'Bye' }, response: { content: 'Bye!' }, metadata: old },
    ];
    const file = writeFixtures(join(dir, 'support.cassette.json'), fixtures);
    understudy.model.use(loadFixtures(file));
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const ask = (content: string) =>
        new OpenAI().chat.completions.create({
          model: 'gpt-4o',
          messages: [
            { role: 'system', content: 'You are a support agent. Be brief.' },
            { role: 'user', content },
          ],
          tools: [
            { type: 'function', function: { name: 'lookup_order', parameters: { type: 'object' } } },
            { type: 'function', function: { name: 'escalate', parameters: { type: 'object' } } },
          ],
        });
      await ask('Hello');
      await ask('Hello');
      await ask('Bye');
      expect(warn).toHaveBeenCalledTimes(2);
      expect(warn.mock.calls[0][0]).toBe(
        `jest-understudy: stale cassette: fixture "greeting" (${file} $.fixtures[0]) answered this openai.chat ` +
          'request (POST https://api.openai.com/v1/chat/completions), but the system prompt changed and the tool ' +
          'manifest changed (added "escalate"; removed "refund") since it was recorded. Record it again ' +
          '(`understudy record --stale`, or `understudy record -- <test file> -t "<test name>"`), or set strictCassettes to fail on this.',
      );
      expect(warn.mock.calls[1][0]).toContain(`fixture (${file} $.fixtures[1])`);
    } finally {
      warn.mockRestore();
    }
  });

  it('says nothing when the prompt and tools are unchanged (same schema, keys in another order)', async () => {
    const metadata = fingerprintOf({
      provider: 'openai',
      protocol: 'openai.chat',
      model: 'gpt-4o',
      messages: [{ role: 'system', text: 'Same.' }],
      tools: [{ name: 't', parameters: { type: 'object', properties: { a: { type: 'string' } } } }],
      stream: false,
      streamUsage: false,
    });
    understudy.model.use([{ match: { userMessage: 'same' }, response: { content: 'ok' }, metadata }]);
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      await new OpenAI().chat.completions.create({
        model: 'gpt-4o',
        messages: [
          { role: 'system', content: 'Same.' },
          { role: 'user', content: 'same' },
        ],
        tools: [
          {
            type: 'function',
            function: { name: 't', parameters: { properties: { a: { type: 'string' } }, type: 'object' } },
          },
        ],
      });
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });
});

describe('the writer', () => {
  it('refuses to write a file that contains the key in use, without printing the key', () => {
    process.env.ANTHROPIC_API_KEY = 'sk-ant-api03-the-real-key-0123456789';
    const dir = mkdtempSync(join(tmpdir(), 'understudy-leak-'));
    const error = thrown(() =>
      writeFixtures(join(dir, 'leak.fixture.json'), [
        { match: { userMessage: 'x' }, response: { content: 'key is sk-ant-api03-the-real-key-0123456789' } },
      ]),
    );
    expect(error.code).toBe('CASSETTE_LEAK');
    expect(error.message).toContain('it contains the value of ANTHROPIC_API_KEY');
    expect(error.message).not.toContain('the-real-key');
    expect(() => readFileSync(join(dir, 'leak.fixture.json'))).toThrow();
  });

  it('adds no metadata to hand-written fixtures, and writes given metadata as the file metadata', () => {
    const dir = mkdtempSync(join(tmpdir(), 'understudy-meta-'));
    const plain = writeFixtures(join(dir, 'a.fixture.json'), script().user('a').replies('b'));
    expect(JSON.parse(readFileSync(plain, 'utf8')).metadata).toBeUndefined();
    const withMeta = writeFixtures(join(dir, 'b.fixture.yaml'), script().user('a').replies('b'), {
      metadata: { provider: 'openai', recordedAt: '2026-01-01T00:00:00.000Z' },
    });
    expect(readFileSync(withMeta, 'utf8')).toMatch(/^metadata:\n {2}provider: openai\n/);
    expect(loadFixtures(withMeta)).toHaveLength(1);
  });
});

describe('options', () => {
  const root = mkdtempSync(join(tmpdir(), 'understudy-mode-options-'));
  const testPath = join(root, 'test', 'agent.test.ts');
  const resolve = (raw: unknown, env: NodeJS.ProcessEnv = {}, pragmas: Record<string, string> = {}) =>
    resolveOptions(raw, pragmas, root, testPath, env);

  it('reads the mode from UNDERSTUDY_MODE and rejects an unknown one', () => {
    expect(resolve({}).mode).toBe('replay');
    expect(resolve({}, { UNDERSTUDY_MODE: 'record-missing' }).mode).toBe('record-missing');
    expect(() => resolve({}, { UNDERSTUDY_MODE: 'recrod' })).toThrow(
      'jest-understudy: UNDERSTUDY_MODE must be one of replay, record, record-missing, live, received "recrod"',
    );
  });

  it('places the cassette by pragma, single fixture pragma, cassetteDir, or beside the test', () => {
    expect(resolve({}).cassette).toBe(join(root, 'test', '__cassettes__', 'agent.test.ts.cassette.json'));
    expect(resolve({ cassetteDir: 'cassettes' }).cassette).toBe(
      join(root, 'cassettes', 'test', 'agent.test.ts.cassette.json'),
    );
    expect(resolve({}, {}, { 'understudy-cassette': 'rec/agent.yaml' }).cassette).toBe(
      join(root, 'test', 'rec', 'agent.yaml'),
    );
  });

  it('strictCassettes from the option or UNDERSTUDY_STRICT_CASSETTES, and bad values named', () => {
    expect(resolve({ strictCassettes: true }).strictCassettes).toBe(true);
    expect(resolve({}, { UNDERSTUDY_STRICT_CASSETTES: '1' }).strictCassettes).toBe(true);
    expect(() => resolve({ strictCassettes: 'yes' })).toThrow(
      'testEnvironmentOptions.understudy.strictCassettes: must be true or false (got the string "yes")',
    );
  });
});
