import { existsSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { globSync } from 'tinyglobby';
import { formatIssue } from '../../file-format/issue';
import { type FileKind, validateFile } from '../validators';

const KINDS: FileKind[] = ['fixtures', 'cassette', 'golden', 'world'];

export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check fixture files, cassettes, golden task files and world files against their schemas')
    .argument('<files...>', 'files or glob patterns (JSON or YAML)')
    .addOption(
      new Option(
        '--kind <kind>',
        'treat every file as this kind instead of telling by name and content',
      ).choices(KINDS),
    )
    .option('--quiet', 'print problems only')
    .addHelpText(
      'after',
      "\nFixture files and cassettes are also scanned for credentials. A file named here whose kind cannot be told is a problem (a glob's matches of no known kind are skipped).\nExit codes: 0 every file is valid, 1 some file has problems or could not be checked, 2 bad usage (e.g. a pattern that matches nothing).",
    )
    .action((patterns: string[], options: { kind?: FileKind; quiet?: boolean }) => {
      // Named files must be checked; a glob's matches of no known kind are only skipped.
      const files: Array<{ file: string; named: boolean }> = [];
      for (const pattern of patterns) {
        if (/[*?[{]/.test(pattern)) {
          const found = globSync(pattern, { absolute: true }).sort();
          if (found.length === 0) return usage(`${pattern} matches no file`);
          files.push(...found.map((file) => ({ file, named: false })));
        } else if (!existsSync(pattern)) {
          return usage(`${pattern} does not exist`);
        } else if (statSync(pattern).isDirectory()) {
          return usage(`${pattern} is a directory; pass files or a glob such as "${pattern}/**/*.json"`);
        } else files.push({ file: resolve(pattern), named: true });
      }
      let bad = 0;
      let problems = 0;
      let skipped = 0;
      for (const { file, named } of files) {
        const shown = display(file);
        const verdict = validateFile(file, options.kind, named);
        if ('skipped' in verdict) {
          skipped++;
          process.stdout.write(`- ${shown} (${verdict.kind}): skipped, ${verdict.skipped}\n`);
        } else if (verdict.ok) {
          if (!options.quiet) process.stdout.write(`✓ ${shown} (${verdict.kind}): ${verdict.summary}\n`);
        } else {
          bad++;
          problems += verdict.issues.length;
          process.stdout.write(
            `✗ ${shown} (${verdict.kind}): ${verdict.issues.length === 1 ? 'a problem' : `${verdict.issues.length} problems`}\n`,
          );
          for (const issue of verdict.issues)
            process.stdout.write(`  ${formatIssue({ ...issue, file: display(issue.file) })}\n`);
        }
      }
      const valid = files.length - bad - skipped;
      if (!options.quiet || bad > 0)
        process.stdout.write(
          `\n${valid} valid, ${bad} with problems (${problems} in all)${skipped ? `, ${skipped} skipped` : ''}\n`,
        );
      process.exitCode = bad > 0 ? 1 : 0;
    });
}

/** A path relative to the working directory when it is inside it, else absolute. */
function display(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel === '' || rel.startsWith('..') ? file : rel;
}

function usage(message: string): void {
  process.stderr.write(`understudy validate: ${message}\n`);
  process.exitCode = 2;
}
