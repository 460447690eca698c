/** Golden tasks as JSONL for offline evaluation tools: one self-contained JSON object per line. */
import { relative } from 'node:path';
import type { Rendered } from '../files/write';
import type { GoldenFile, GoldenStep, GoldenTask } from './types';

export interface ExportedTask {
  id: string;
  file: string;
  description?: string;
  tags?: string[];
  input: unknown;
  expected: {
    trajectory?: {
      steps: Array<{ name: string; args?: Record<string, unknown> }>;
      mode: string;
      args: string;
    };
    finalMessage?: string | { regex: string; flags?: string };
    terminalState?: string;
  };
  negative: {
    neverCalls: Array<{ name: string; args?: Record<string, unknown> }>;
    forbiddenOrders: Array<Array<{ name: string; args?: Record<string, unknown> }>>;
  };
  world?: string;
  scenario?: unknown;
  fixtures?: { files: string[]; inline: number };
  metadata?: Record<string, unknown>;
}

const step = (s: GoldenStep) => (typeof s === 'string' ? { name: s } : s);

export function exportTask(task: GoldenTask, cwd = process.cwd()): ExportedTask {
  const rel = (p: string) => {
    const r = relative(cwd, p);
    return r === '' || r.startsWith('..') ? p : r;
  };
  const e = task.expect;
  return {
    id: task.id,
    file: rel(task.file),
    ...(task.description !== undefined && { description: task.description }),
    ...(task.tags !== undefined && { tags: task.tags }),
    input: task.input,
    expected: {
      ...(e.trajectory && {
        trajectory: { steps: e.trajectory.steps.map(step), mode: e.trajectory.mode, args: e.trajectory.args },
      }),
      ...(e.finalMessage !== undefined && { finalMessage: e.finalMessage }),
      ...(e.terminalState !== undefined && { terminalState: e.terminalState }),
    },
    negative: {
      neverCalls: task.negative.neverCalls.map(step),
      forbiddenOrders: task.negative.forbiddenOrders.map((o) => o.map(step)),
    },
    ...(task.world !== undefined && { world: rel(task.world) }),
    ...(task.scenario !== undefined && { scenario: task.scenario }),
    ...((task.fixtureFiles.length > 0 || task.fixtures.length > 0) && {
      fixtures: { files: task.fixtureFiles.map(rel), inline: task.fixtures.length },
    }),
    ...(task.metadata !== undefined && { metadata: task.metadata }),
  };
}

const jsonlText = (tasks: readonly ExportedTask[]) => tasks.map((t) => `${JSON.stringify(t)}\n`).join('');

/** JSONL text (one task per line, trailing newline). */
export function toJsonl(files: readonly GoldenFile[], cwd = process.cwd()): string {
  return jsonlText(files.flatMap((f) => f.tasks.map((t) => exportTask(t, cwd))));
}

/** The export as content for the file writer, which scrubs each task before it becomes a line. */
export function jsonlContent(files: readonly GoldenFile[], cwd = process.cwd()): Rendered<ExportedTask[]> {
  return { data: files.flatMap((f) => f.tasks.map((t) => exportTask(t, cwd))), render: jsonlText };
}
