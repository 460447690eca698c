/**
 * The run reported where the team looks, after the summary: under GitHub Actions
 * (`GITHUB_ACTIONS=true`), `::error` annotations at each failing assertion and a job summary
 * appended to `GITHUB_STEP_SUMMARY`; with the `junit` option, a JUnit XML file. Nothing is written
 * outside GitHub Actions or without the option. Whatever is written is scrubbed of secrets first.
 */
import { appendFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { scrubDataForWriting, textForWriting, writeFile } from '../files/write';
import type { CaseResult } from './cases';
import { annotations, jobSummary, type SummaryCounts } from './github';
import { junitXml } from './junit';
import { defaultTraceDir, liveReportPath, liveTableAt } from './live-table';

export interface CiOptions {
  /** Write the run as JUnit XML to this path (relative to the working directory). */
  junit?: string;
  /** The live report whose pass rates end the job summary (default `live-report.json` in the trace folder). */
  liveReport?: string;
}

/** Why the CI options cannot be used, or undefined when they can. */
export function ciOptionsProblem(options: Record<string, unknown>, reporter: string): string | undefined {
  for (const key of ['junit', 'liveReport'] as const) {
    const value = options[key];
    if (value !== undefined && (typeof value !== 'string' || value.trim() === ''))
      return `${reporter}: the \`${key}\` option must be a file path (a non-empty string), got ${JSON.stringify(value)}`;
  }
  return undefined;
}

export interface CiContext {
  runner: 'Jest' | 'Vitest';
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Where annotations go (GitHub reads workflow commands from the step's output). */
  write?: (text: string) => void;
  /** Another reporter of the run annotates the failures already (Vitest's `github-actions`). */
  annotated?: boolean;
  startedAt?: Date;
}

/** What the summary after the run counted, for the job summary. */
export interface RunFacts {
  counts: SummaryCounts;
  /** The trace folder, where `understudy live --repeat` writes its report. */
  traceDir?: string;
}

/**
 * Writes what the options and the environment ask for. Returns the problems met (a file that could
 * not be written), for the reporter to report; one surface failing does not stop the others.
 */
export function reportToCi(
  raw: readonly CaseResult[],
  facts: RunFacts,
  options: CiOptions,
  context: CiContext,
): string[] {
  const env = context.env ?? process.env;
  const cwd = context.cwd ?? process.cwd();
  const write = context.write ?? ((text: string) => process.stdout.write(text));
  const github = env.GITHUB_ACTIONS === 'true';
  if (!github && !options.junit) return [];
  const problems: string[] = [];
  // Scrubbed as data, before anything renders it: an escape could split a key the scrub must see whole.
  const cases = scrubDataForWriting(raw);
  if (options.junit) {
    const path = resolve(cwd, options.junit);
    try {
      writeFile(path, junitXml(cases, { root: cwd, startedAt: context.startedAt }));
    } catch (error) {
      problems.push(`the JUnit report (${path}) was not written: ${(error as Error)?.message ?? error}`);
    }
  }
  if (!github) return problems;
  const workspace = env.GITHUB_WORKSPACE || cwd;
  const lines = context.annotated ? [] : annotations(cases, workspace);
  if (lines.length > 0) write(`${lines.join('\n')}\n`);
  const file = env.GITHUB_STEP_SUMMARY;
  if (file) {
    try {
      const live = liveTableAt(
        options.liveReport
          ? resolve(cwd, options.liveReport)
          : liveReportPath(facts.traceDir ?? defaultTraceDir(cwd)),
      );
      const text = jobSummary(cases, {
        workspace,
        runner: context.runner,
        counts: facts.counts,
        ...(live && { live }),
      });
      // Appended: the step's other tools write their summaries to the same file.
      appendFileSync(file, textForWriting(text));
    } catch (error) {
      problems.push(`the job summary (${file}) was not written: ${(error as Error)?.message ?? error}`);
    }
  }
  return problems;
}
