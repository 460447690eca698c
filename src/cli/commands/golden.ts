import { resolve } from 'node:path';
import type { Command } from 'commander';
import { globSync } from 'tinyglobby';
import { formatIssue } from '../../file-format/issue';
import { textForWriting, writeFile } from '../../files/write';
import { jsonlContent } from '../../golden/export';
import { readGoldenFile } from '../../golden/load';
import type { GoldenFile } from '../../golden/types';

export function registerGolden(program: Command): void {
  const golden = program
    .command('golden')
    .description('golden task files: scenario definitions shared with offline evaluation');
  golden
    .command('export')
    .description('write golden tasks as JSONL (one task per line) for offline evaluation tools')
    .argument('<files...>', 'golden task files or glob patterns')
    .option('-o, --out <file>', 'write to this file instead of standard output')
    .addHelpText('after', '\nExit codes: 0 exported, 1 a file has problems (nothing written), 2 bad usage.')
    .action((patterns: string[], options: { out?: string }) => {
      const files: string[] = [];
      for (const pattern of patterns) {
        const found = /[*?[{]/.test(pattern)
          ? globSync(pattern, { absolute: true }).sort()
          : [resolve(pattern)];
        if (found.length === 0) {
          process.stderr.write(`understudy golden export: ${pattern} matches no file\n`);
          process.exitCode = 2;
          return;
        }
        files.push(...found);
      }
      const loaded: GoldenFile[] = [];
      const problems: string[] = [];
      for (const file of files) {
        const result = readGoldenFile(file);
        if ('issues' in result) problems.push(...result.issues.map((i) => formatIssue(i)));
        else loaded.push(result.golden);
      }
      if (problems.length > 0) {
        // All or nothing: a partial export would silently drop tasks from an evaluation.
        process.stderr.write(
          `understudy golden export: nothing written\n${problems.map((p) => `  ${p}`).join('\n')}\n`,
        );
        process.exitCode = 1;
        return;
      }
      const jsonl = jsonlContent(loaded);
      if (options.out) {
        writeFile(resolve(options.out), jsonl);
        const n = loaded.reduce((sum, g) => sum + g.tasks.length, 0);
        process.stderr.write(`wrote ${n} task${n === 1 ? '' : 's'} to ${options.out}\n`);
      } else process.stdout.write(textForWriting(jsonl));
      process.exitCode = 0;
    });
}
