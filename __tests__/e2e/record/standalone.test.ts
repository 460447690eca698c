/** @jest-environment ./environment/jest/index.ts */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { loadFixtures, record, UnderstudyError, understudy } from 'jest-understudy';
import OpenAI from 'openai';
import { fromSource } from '../../support/source';
import { root } from './child-jest';

const KEY = 'sk-test-STANDALONE0123456789abcdefghij';

/**
 * Waits without yielding: record() blocks this thread, so the provider lives in the driver process.
 * The file can exist before the driver's write has filled it: wait for its text.
 */
function waitForFile(file: string): string {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 600; i++) {
    const text = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
    if (text !== '') return text;
    Atomics.wait(pause, 0, 0, 25);
  }
  throw new Error(`${file} was never written`);
}

function errorOf(fn: () => void): UnderstudyError {
  try {
    fn();
  } catch (error) {
    return error as UnderstudyError;
  }
  throw new Error('expected a throw');
}

const cwd = process.cwd();
const ci = process.env.CI;
afterEach(() => {
  process.chdir(cwd);
  if (ci === undefined) delete process.env.CI;
  else process.env.CI = ci;
});

describe('record({ out, provider })', () => {
  it('runs a recorder process that proxies the calls, writes them on stop, and the file replays', async () => {
    delete process.env.CI;
    const dir = mkdtempSync(join(tmpdir(), 'understudy-standalone-'));
    const driver = spawn(process.execPath, [...fromSource(join(__dirname, 'recorder-driver.ts')), dir], {
      cwd: root,
      env: { ...process.env, OPENAI_API_KEY: KEY, NODE_OPTIONS: '' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const driverDone = new Promise<number | null>((done) => driver.on('close', done));
    const upstream = waitForFile(join(dir, 'upstream.url'));

    process.chdir(dir);
    const env = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = KEY;
    try {
      // Relative `out`: resolved against the current directory.
      record({
        out: 'recorded/orders.fixture.json',
        provider: `${upstream}/openai`,
        urlFile: join(dir, 'recorder.url'),
      });
    } finally {
      process.env.OPENAI_API_KEY = env;
    }
    expect(await driverDone).toBe(0);

    const file = join(dir, 'recorded', 'orders.fixture.json');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(KEY);
    const data = JSON.parse(text);
    expect(data.metadata).toMatchObject({ recorder: 'jest-understudy', provider: 'openai', model: 'gpt-4o' });
    expect(data.fixtures.map((f: { match: unknown }) => f.match)).toEqual([
      { userMessage: 'Where is order A-5005?', turnIndex: 0, hasToolResult: false },
      { userMessage: 'Where is order A-5005?', turnIndex: 1, hasToolResult: true },
      { userMessage: 'Where is order B-6006?', turnIndex: 0, hasToolResult: false },
      { userMessage: 'Where is order B-6006?', turnIndex: 1, hasToolResult: true },
    ]);

    // The recording replays here (the default OpenAI host, intercepted) to what the driver got live.
    understudy.model.use(loadFixtures(file));
    const answers: string[] = [];
    for (const question of ['Where is order A-5005?', 'Where is order B-6006?']) {
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
      const client = new OpenAI();
      for (let step = 0; step < 3; step++) {
        // The tools the recorded requests offered: a recorded call to a tool not offered fails the test.
        const tools: OpenAI.ChatCompletionTool[] = [
          { type: 'function', function: { name: 'lookup_order', parameters: { type: 'object' } } },
        ];
        const message = (await client.chat.completions.create({ model: 'gpt-4o', messages, tools }))
          .choices[0].message;
        messages.push(message as OpenAI.ChatCompletionMessageParam);
        if (!message.tool_calls?.length) {
          answers.push(message.content ?? '');
          break;
        }
        for (const call of message.tool_calls)
          messages.push({ role: 'tool', tool_call_id: call.id, content: '{"status":"delivered"}' });
      }
    }
    expect(answers).toEqual(JSON.parse(readFileSync(join(dir, 'answers.json'), 'utf8')));
  }, 60_000);

  it('throws when the recorder exits with an error', () => {
    delete process.env.CI;
    const dir = mkdtempSync(join(tmpdir(), 'understudy-standalone-'));
    process.chdir(dir);
    const error = errorOf(() => record({ out: 'empty.fixture.json', idleMs: 200 }));
    expect(error).toBeInstanceOf(UnderstudyError);
    expect(error.code).toBe('RECORDER_FAILED');
    expect(error.message).toBe(
      'record(): the recorder exited with code 1: stopped (no request for 200 ms) with no model call recorded; nothing written',
    );
    expect(existsSync(join(dir, 'empty.fixture.json'))).toBe(false);
  }, 30_000);

  it('refuses to start when CI is set, and rejects an out path it cannot write', () => {
    process.env.CI = 'true';
    const refused = errorOf(() => record({ out: 'x.fixture.json' }));
    expect(refused.code).toBe('RECORD_REFUSED');
    expect(refused.message).toContain('record() asks for record mode, but CI is set');
    delete process.env.CI;
    expect(errorOf(() => record({ out: 'x.txt' })).message).toMatch(/^record\(\{ out \}\): .*\.txt/);
  });
});
