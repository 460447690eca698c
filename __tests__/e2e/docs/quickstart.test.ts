/**
 * The README's quickstarts (Jest, then Vitest), and the project setups of docs/configuration.md, run as a reader runs
 * them: each marked section's commands and files in order, in a fresh project, against the packed
 * package. The one change to what the page says: the npm install line gets the tarball in place of
 * the name `jest-understudy`. The shell has what a user's has: no NODE_OPTIONS (this suite runs
 * under --experimental-vm-modules, the CommonJS quickstart must not), no keys, no UNDERSTUDY_*.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asScript, type RunnableBlock, runnableSections } from '../../docs/markdown';

const root = join(__dirname, '..', '..', '..');
const INSTALL_TIMEOUT_MS = 240_000;

/**
 * The machine's environment (its proxy and CA settings reach the npm registry) without what this
 * suite's own process adds or a user's shell would not have.
 */
function userShellEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(NODE_OPTIONS|JEST_WORKER_ID|INIT_CWD|UNDERSTUDY_\w*)$/.test(name)) continue;
    if (/^npm_/.test(name) && !/^npm_config_(cache|userconfig|registry|cafile)$/.test(name)) continue;
    if (/(_API_KEY|_KEY|_TOKEN|_SECRET|_PASSWORD)$|^AWS_/.test(name)) continue;
    env[name] = value;
  }
  env.PATH = `${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
  // Packages come from the npm cache when it has them (the repository's own install filled it).
  Object.assign(env, {
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  });
  return env;
}

/**
 * Runs `script` in bash as a reader's shell would, in a process group of its own: at the timeout the
 * whole group is killed (npm and the Jest it starts too, which would otherwise hold the output open
 * and keep the test waiting), and the output says so.
 */
function bash(script: string, cwd: string): Promise<{ status: number | null; output: string }> {
  const child = spawn('bash', ['-c', script], {
    cwd,
    env: userShellEnv(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // The group is gone already.
    }
  }, INSTALL_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      const killed = timedOut
        ? `\n(killed after ${INSTALL_TIMEOUT_MS / 1000} s, with every process it started)`
        : '';
      resolve({ status, output: `${stdout}\n${stderr}${killed}` });
    });
  });
}

/**
 * A copy of the quickstart project, to run a setup in. Its node_modules (some 14,000 files) is
 * hard-linked file by file instead of written again: npm adds and removes files there but does
 * not write into the ones it installed, except its hidden lockfile, which is copied.
 */
function copyProject(from: string, to: string): void {
  const modules = join(from, 'node_modules');
  cpSync(from, to, { recursive: true, verbatimSymlinks: true, filter: (path) => path !== modules });
  const link = (source: string, target: string) => {
    mkdirSync(target);
    for (const entry of readdirSync(source, { withFileTypes: true })) {
      const [a, b] = [join(source, entry.name), join(target, entry.name)];
      if (entry.isDirectory()) link(a, b);
      else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(a), b);
      else if (entry.name === '.package-lock.json') copyFileSync(a, b);
      else linkSync(a, b);
    }
  };
  link(modules, join(to, 'node_modules'));
}

/** The install line with the packed tarball in place of the package name; there must be exactly one. */
function withTarball(blocks: RunnableBlock[], tarball: string): RunnableBlock[] {
  let replaced = 0;
  const out = blocks.map((block) => {
    if (block.kind !== 'commands') return block;
    const text = block.text.replace(
      /^(npm (?:i|install) .*?)\bjest-understudy\b(?=\s|$)/gm,
      (_, before: string) => {
        replaced++;
        return `${before}${tarball}`;
      },
    );
    return { ...block, text };
  });
  if (replaced !== 1)
    throw new Error(`the quickstart should install jest-understudy on one npm line (found ${replaced})`);
  return out;
}

let work: string;
let tarball: string;
let readme: Map<string, RunnableBlock[]>;
let project: string;
let quickstart: { status: number | null; output: string };
let setups: Map<string, RunnableBlock[]>;
type Ran = { status: number | null; output: string };
type Section = Ran & { project: string };
/** The Vitest quickstart, started beside the Jest one: each makes and installs a project of its own. */
let vitestSection: Promise<Section>;
/** The runs made from a quickstart project (a copy each), started at once when it is installed. */
const fromProject = new Map<string, Promise<Ran>>();

/** Runs the README's section `name` in `work`: its output, and the project folder its `mkdir` made. */
async function runReadmeSection(name: string): Promise<Section> {
  const steps = readme.get(name);
  if (!steps) throw new Error(`README.md has no <!-- doc-test: ${name} --> section`);
  const script = asScript(withTarball(steps, tarball));
  writeFileSync(join(work, `${name}.sh`), script);
  const result = await bash(script, work);
  return {
    ...result,
    output: stripVTControlCharacters(result.output),
    project: join(work, /^mkdir (\S+) && cd \1$/m.exec(script)?.[1] ?? '.'),
  };
}

/**
 * Starts `run` now, under `name`, for a test to await: the copies of a project are independent, so
 * they install and run at once. Its failure is the awaiting test's.
 */
function start(name: string, run: () => Promise<Ran>): void {
  const started = run();
  started.catch(() => undefined);
  fromProject.set(name, started);
}

function started(name: string): Promise<Ran> {
  const run = fromProject.get(name);
  if (!run) throw new Error(`${name} was not started: its quickstart did not run`);
  return run;
}

/** A copy of `from` with `file` edited by `edit` (which must change it), where `command` runs. */
async function runEdited(
  from: string,
  folder: string,
  file: string,
  edit: (text: string) => string,
  command: string,
): Promise<Ran> {
  const copy = join(work, folder);
  copyProject(from, copy);
  const text = readFileSync(join(copy, file), 'utf8');
  const edited = edit(text);
  expect(edited).not.toBe(text);
  writeFileSync(join(copy, file), edited);
  const result = await bash(command, copy);
  return { ...result, output: stripVTControlCharacters(result.output) };
}

const SETUPS = ['typescript', 'config-ts', 'esm', 'esm-typescript'];
const STOPS_EARLY = (agent: string) =>
  agent.replace('if (!message.tool_calls?.length) return message.content;', 'return message.content;');

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'understudy-quickstart-'));
  const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  tarball = join(work, packed.stdout.trim().split('\n').pop() as string);
  readme = await runnableSections(join(root, 'README.md'));
  setups = await runnableSections(join(root, 'docs', 'configuration.md'));
  vitestSection = runReadmeSection('quickstart-vitest');
  vitestSection.catch(() => undefined);
  ({ project, ...quickstart } = await runReadmeSection('quickstart'));
  start('broken', () => runEdited(project, 'broken', 'agent.js', STOPS_EARLY, 'npx jest'));
  for (const name of SETUPS)
    start(name, async () => {
      const copy = join(work, `setup-${name}`);
      copyProject(project, copy);
      return bash(asScript(setups.get(name) ?? []), copy);
    });
}, INSTALL_TIMEOUT_MS + 30_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the README quickstart, in a fresh project', () => {
  it('runs as written: the project, the install, the config, the agent and its passing test', () => {
    expect(quickstart.output).toMatch(/Tests:\s+1 passed, 1 total/);
    expect(quickstart.status).toBe(0);
    const installed = join(project, 'node_modules', 'jest-understudy');
    expect(lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version).toBe(
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version,
    );
    expect(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).type).not.toBe('module');
  });

  it(
    'fails when the agent stops before it runs the tool (the quickstart test can fail)',
    async () => {
      const result = await started('broken');
      expect(result.status).not.toBe(0);
      expect(result.output).toMatch(/Tests:\s+1 failed, 1 total/);
      expect(result.output).toContain('toHaveFinalMessage');
    },
    INSTALL_TIMEOUT_MS + 30_000,
  );
});

describe('the project setups of docs/configuration.md, each from the quickstart project', () => {
  it('has the setups the page promises', () => {
    expect([...setups.keys()]).toEqual(SETUPS);
  });

  it.each(SETUPS)(
    '"%s" runs as written and its tests pass',
    async (name) => {
      expect(setups.get(name)).toBeDefined();
      const copy = join(work, `setup-${name}`);
      const result = await started(name);
      expect(result.output).toMatch(/Tests:\s+\d+ passed, \d+ total/);
      expect(result.output).not.toMatch(/Tests:.*failed/);
      // Node 24 prints this when it cannot load a jest.config.ts as written: none of the setups may.
      expect(result.output).not.toContain('Failed to load the ES module');
      expect(result.status).toBe(0);
      expect(existsSync(join(copy, 'node_modules', 'jest-understudy'))).toBe(true);
    },
    INSTALL_TIMEOUT_MS + 30_000,
  );
});

describe('the README quickstart on Vitest, in a fresh ES module project', () => {
  let vitest: Section;

  beforeAll(async () => {
    vitest = await vitestSection;
    start('vitest-broken-agent', () =>
      runEdited(vitest.project, 'vitest-broken-agent', 'agent.js', STOPS_EARLY, 'npx vitest --run'),
    );
    start('vitest-no-plugin', () =>
      runEdited(
        vitest.project,
        'vitest-no-plugin',
        'vitest.config.mjs',
        (config) => config.replace('plugins: [understudy()]', 'plugins: []'),
        'npx vitest --run',
      ),
    );
  }, INSTALL_TIMEOUT_MS + 30_000);

  it('runs as written: the project, the install, the plugin, the agent and its passing test', () => {
    expect(vitest.output).toMatch(/Tests\s+1 passed \(1\)/);
    expect(vitest.output).not.toMatch(/failed/);
    expect(vitest.status).toBe(0);
    const installed = join(vitest.project, 'node_modules', 'jest-understudy');
    expect(lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version).toBe(
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version,
    );
    expect(JSON.parse(readFileSync(join(vitest.project, 'package.json'), 'utf8')).type).toBe('module');
    expect(existsSync(join(vitest.project, 'node_modules', 'vitest'))).toBe(true);
  });

  it(
    'fails when the agent stops before it runs the tool (the trajectory is checked)',
    async () => {
      const result = await started('vitest-broken-agent');
      expect(result.status).not.toBe(0);
      expect(result.output).toMatch(/Tests\s+1 failed \(1\)/);
      expect(result.output).toContain('toHaveCalledToolSequence');
    },
    INSTALL_TIMEOUT_MS + 30_000,
  );

  it(
    'fails without the plugin: the mock model and the matchers come from it',
    async () => {
      const result = await started('vitest-no-plugin');
      expect(result.status).not.toBe(0);
      expect(result.output).toMatch(/Tests\s+1 failed \(1\)/);
      expect(result.output).toContain("jest-understudy's Vitest plugin is not running this test file");
    },
    INSTALL_TIMEOUT_MS + 30_000,
  );
});
