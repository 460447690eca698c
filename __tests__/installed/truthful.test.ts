/**
 * Results that tell the truth, from the installed package under Jest (CommonJS and ESM) and
 * Vitest, with real SDK clients driving whole agent loops:
 * - "called" means the agent ran the call; the model's request is asserted with toHaveRequestedTool;
 *   an argument expectation refuses a call whose arguments were cut (truthful-called);
 * - only the test's own explicit look at a crashed run counts (truthful-looks);
 * - a failing matcher on a crashed run shows the agent's error, whatever was thrown, also in
 *   `understudy report` (truthful-messages);
 * - a misspelt forbidden name fails as a typo; "did you mean" never suggests the asked name (truthful-names);
 * - `understudy mcp stdio` speaks JSON-RPC 2.0 (truthful-mcp).
 * The reporter's counts and the flake history: ./truthful-history.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildFile } from '../support/child-jest';
import { fileOf, type InstalledProjectRun, installedProject } from '../support/installed';
import { rowsOf } from '../support/runner-tier';
import { sharedRun } from '../support/shared-runs';
import { EACH_RUNNER } from './shared';

const NEVER_LOOKED = 'and the test never looked at how the run ended';

const AGENTS = [
  'openai chat',
  'openai chat streamed',
  'openai chat over the served port',
  'anthropic messages',
  'anthropic messages streamed',
];

/** fullName → status, of one file. */
const byFullName = (file: ChildFile) => Object.fromEntries(file.tests.map((t) => [t.fullName, t.status]));

function messageOf(file: ChildFile, fullName: string): string {
  const test = file.tests.find((t) => t.fullName === fullName);
  if (!test)
    throw new Error(
      `no test "${fullName}" in ${file.name}: ${file.tests.map((t) => t.fullName).join(' | ')}`,
    );
  return stripVTControlCharacters(test.failureMessages.join('\n'));
}

function calledChecks(run: () => InstalledProjectRun) {
  it('fail the called matchers when the agent never ran the call, on every protocol, streamed or not, in process and over the served port', () => {
    const file = fileOf(run(), 'truthful-called.case.js');
    const expected: Record<string, string> = {
      'a guard that stops before a destructive call: requested, never called, nothing deleted': 'passed',
      'no false green: an argument expectation refuses a call whose arguments were cut': 'failed',
    };
    for (const agent of AGENTS) {
      expected[`${agent} no false green: toHaveCalledTool fails when the agent never ran the call`] =
        'failed';
      expected[`${agent} no false green: toHaveCalledToolSequence fails when the agent never ran the call`] =
        'failed';
      expected[`${agent} the request is asserted with toHaveRequestedTool; toolsCalled lists only what ran`] =
        'passed';
      expected[`${agent} an agent that ran the call and sent the result back passes`] = 'passed';
      expected[`${agent} a call the world served is called, though no result went back to the model`] =
        'passed';
    }
    expect(byFullName(file)).toEqual(expected);
    for (const agent of AGENTS) {
      const called = messageOf(
        file,
        `${agent} no false green: toHaveCalledTool fails when the agent never ran the call`,
      );
      expect(called).toContain('Received: the agent ran no tool calls');
      expect(called).toContain(
        'The model requested "get_weather {\\"city\\": \\"Paris\\"}" (step 0), but the agent never ran it: no later request carried its result and no world operation served it.',
      );
      expect(called).toContain("to assert the model's request itself, use toHaveRequestedTool");
      const sequence = messageOf(
        file,
        `${agent} no false green: toHaveCalledToolSequence fails when the agent never ran the call`,
      );
      expect(sequence).toContain('Requested by the model but never run');
      expect(sequence).toContain('toolCalls[0] get_weather {"city": "Paris"}');
    }
    expect(
      messageOf(file, 'no false green: an argument expectation refuses a call whose arguments were cut'),
    ).toContain(
      'they were cut (they never completed on the wire), so no argument expectation holds for them',
    );
  });

  it('count only the test’s own look at a crashed run: never a matcher’s, a spread, a whole-object walk or a print', () => {
    const file = fileOf(run(), 'truthful-looks.case.js');
    const statuses = byFullName(file);
    const falseGreens = Object.keys(statuses).filter((name) => name.startsWith('no false green'));
    expect(falseGreens).toHaveLength(9);
    for (const name of falseGreens) {
      expect([name, statuses[name]]).toEqual([name, 'failed']);
      expect([name, messageOf(file, name)]).toEqual([name, expect.stringContaining(NEVER_LOOKED)]);
    }
    for (const name of Object.keys(statuses).filter((n) => !n.startsWith('no false green')))
      expect([name, statuses[name]]).toEqual([name, 'passed']);
    // The agent's error, once, from the check (the matcher's own message shows it too).
    expect(messageOf(file, 'no false green: not.toHaveFinalMessage on an agent that threw')).toContain(
      'Error: the agent crashed on purpose',
    );
  });

  it("show the agent's error and terminal state under a failing matcher, whatever was thrown", () => {
    const file = fileOf(run(), 'truthful-messages.case.js');
    expect(new Set(Object.values(byFullName(file)))).toEqual(new Set(['failed']));
    const frames = messageOf(file, 'shows the error and its frames under a failed toHaveCalledTool');
    expect(frames).toContain('Expected: a call to "lookup_order"');
    expect(frames).toContain(
      "The run ended 'errored': the agent threw TypeError: Cannot read properties of undefined (reading 'orders')\n      ↳ at ",
    );
    // The agent's frames, not the package's.
    expect(frames).toMatch(/↳ at .*truthful-messages\.case\.js:11:/);
    expect(frames).not.toMatch(/↳ at .*jest-understudy/);
    expect(frames).not.toContain(NEVER_LOOKED);
    expect(messageOf(file, 'shows a timeout under a failed toHaveFinalMessage')).toMatch(
      /The run ended 'timed_out': the agent timed out: \w+: the agent did not finish within 20 ms/,
    );
    const ws = messageOf(file, 'prints a raw ws error event from the Agents SDK realtime connect()');
    expect(ws).toContain('Received terminal state: "errored"');
    expect(ws).toMatch(/The run ended 'errored': the agent threw ErrorEvent: /);
    expect(ws).not.toContain('Cannot read properties of null');
    expect(messageOf(file, 'prints a thrown null')).toContain(
      "The run ended 'errored': the agent threw null",
    );
    expect(messageOf(file, 'prints a thrown string')).toContain(
      "The run ended 'errored': the agent threw string: quota exceeded",
    );
  });
}

describe.each(rowsOf(__filename, EACH_RUNNER))(
  'truthful results from the installed package (%s)',
  (_kind, runner) => {
    let run: InstalledProjectRun;
    beforeAll(async () => {
      run = await sharedRun('truthful', runner);
    }, 240_000);

    calledChecks(() => run);

    it("show the agent's error and its top frames in understudy report", () => {
      const trace = join(
        run.project,
        '.understudy',
        'traces',
        'truthful-messages.case.js',
        'shows the error and its frames under a failed toHaveCalledTool.trace.json',
      );
      expect(existsSync(trace)).toBe(true);
      const main = join(
        installedProject(),
        'node_modules',
        'jest-understudy',
        'dist',
        'src',
        'cli',
        'main.js',
      );
      const report = spawnSync(process.execPath, [main, 'report', trace], {
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', NODE_OPTIONS: '' },
        timeout: 60_000,
      });
      expect(report.status).toBe(0);
      expect(report.stdout).toMatch(/run 0 \[run, test\] errored/);
      expect(report.stdout).toContain(
        "agent error: TypeError: Cannot read properties of undefined (reading 'orders')",
      );
      expect(report.stdout).toMatch(/\n\s+(│\s+)?at .*truthful-messages\.case\.js:11:/);
    });

    it('fail a misspelt forbidden name as a typo, and never suggest the asked name', () => {
      const file = fileOf(run, 'truthful-names.case.js');
      expect(byFullName(file)).toEqual({
        'no false green: toNeverCallTools with a misspelt name, while the agent ran the real tool': 'failed',
        'no false green: the same on Anthropic, streamed': 'failed',
        'no false green: not.toHaveCalledTool with a misspelt name': 'failed',
        'no false green: a misspelt name of a tool only the world declares': 'failed',
        'the real name is forbidden as written': 'failed',
        'a name close to nothing the run knows is simply never called': 'passed',
        'did you mean: an offered tool the model never asked for is not suggested as itself': 'failed',
      });
      expect(
        messageOf(
          file,
          'no false green: toNeverCallTools with a misspelt name, while the agent ran the real tool',
        ),
      ).toContain(
        'forbidden[0] "delete_acount" is no tool of this run: no request offered it, no call used it and the world declares no such tool, so it forbids nothing. It is close to "delete_account" (offered to the model, requested and run in this run, declared by the world): a typo?',
      );
      expect(messageOf(file, 'no false green: the same on Anthropic, streamed')).toContain(
        'forbidden[0] "Delete_Account" is no tool of this run',
      );
      expect(messageOf(file, 'no false green: not.toHaveCalledTool with a misspelt name')).toContain(
        'name "delete_acount" is no tool of this run',
      );
      expect(messageOf(file, 'no false green: a misspelt name of a tool only the world declares')).toContain(
        'It is close to "wipe_backups" (declared by the world): a typo?',
      );
      expect(messageOf(file, 'the real name is forbidden as written')).toContain(
        'first forbidden call at step 0: "delete_account"',
      );
      const meant = messageOf(
        file,
        'did you mean: an offered tool the model never asked for is not suggested as itself',
      );
      expect(meant).toContain(
        'No call is named "lookup_account": the run offered it to the model, which never asked for it.',
      );
      expect(meant).not.toContain('did you mean "lookup_account"');
    });

    it('answer every stdio MCP request with JSON-RPC 2.0 and no notification, after the run ended', () => {
      const file = fileOf(run, 'truthful-mcp.case.js');
      for (const test of file.tests) {
        const message = stripVTControlCharacters(test.failureMessages.join('\n'));
        // Failed for the late call alone (the product's RUN_ENDED), never for an answer the test checked.
        expect([test.title, test.status]).toEqual([test.title, 'failed']);
        expect(message).toContain('for a run that has already ended');
        expect([test.title, message]).toEqual([
          test.title,
          expect.not.stringMatching(/expect\(|wrote nothing|timed out/i),
        ]);
      }
      expect(file.tests).toHaveLength(2);
    });
  },
);
