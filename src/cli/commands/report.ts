import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { scrubDataForWriting, writeFile } from '../../files/write';
import { renderTimeline } from '../../trace/html';
import { readTrace, TraceFormatError } from '../../trace/read';
import { renderTree } from '../../trace/tree';

export function registerReport(program: Command): void {
  program
    .command('report')
    .description('show a trace written by jest-understudy (OTLP/JSON) as a tree, or write its HTML timeline')
    .argument('<trace>', 'a .trace.json file')
    .option('--html <out>', 'write the self-contained HTML timeline to this file')
    .option('--no-color', 'plain text')
    .option('--full', 'do not shorten long arguments and messages')
    .addHelpText('after', '\nExit codes: 0 shown, 1 the file is not a trace, 2 bad usage (missing file).')
    .action((file: string, options: { html?: string; color?: boolean; full?: boolean }) => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        process.stderr.write(`understudy report: cannot read ${file}: ${(error as Error).message}\n`);
        process.exitCode = 2;
        return;
      }
      let tree: ReturnType<typeof readTrace>;
      try {
        // A trace from anywhere (an older version, another tool) is scrubbed before it is shown or shortened.
        tree = readTrace(scrubDataForWriting(parseTrace(text)));
      } catch (error) {
        if (!(error instanceof TraceFormatError)) throw error;
        process.stderr.write(`understudy report: ${file} is not a trace: ${error.message}\n`);
        process.exitCode = 1;
        return;
      }
      if (options.html) {
        writeFile(resolve(options.html), renderTimeline(tree));
        process.stdout.write(`wrote ${options.html}\n`);
      } else {
        const color = options.color !== false && Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
        process.stdout.write(`${renderTree(tree, { color, full: options.full === true })}\n`);
      }
      process.exitCode = 0;
    });
}

/** The trace's JSON, or the text itself when it is none (readTrace then says why). */
function parseTrace(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
