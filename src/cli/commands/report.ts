import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
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
        tree = readTrace(text);
      } catch (error) {
        if (!(error instanceof TraceFormatError)) throw error;
        process.stderr.write(`understudy report: ${file} is not a trace: ${error.message}\n`);
        process.exitCode = 1;
        return;
      }
      if (options.html) {
        const out = resolve(options.html);
        mkdirSync(dirname(out), { recursive: true });
        writeFileSync(out, renderTimeline(tree));
        process.stdout.write(`wrote ${options.html}\n`);
      } else {
        const color = options.color !== false && Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
        process.stdout.write(`${renderTree(tree, { color, full: options.full === true })}\n`);
      }
      process.exitCode = 0;
    });
}
