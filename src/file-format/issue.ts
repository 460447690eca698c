/**
 * One problem in a file, as every file format of the package reports it (fixtures, cassettes,
 * worlds, golden tasks, the options). Inside the loaders problems are values, so that every
 * problem in a file is collected and shown at once; `FileIssuesError` (one subclass per
 * format) is thrown only at the public boundary.
 */
import { type ErrorCode, UnderstudyError } from '../errors';

export interface FileIssue<Code extends string = string> {
  code: Code;
  /** Absolute path of the file, or the label of what was read (a call, an option path). */
  file: string;
  /** JSON path of the offending value, e.g. `$.fixtures[2].response.text`. */
  path: string;
  /** 1-based line in the file, when known. */
  line?: number;
  /** 1-based column in the file, when known. */
  column?: number;
  /** What is wrong, in words: `unknown property "text"`, `must be an integer ≥ 0 (got the string "1")`. */
  message: string;
  /** How to fix it, when there is a likely fix: `did you mean "content"?`. */
  suggestion?: string;
}

/**
 * `file:line:column at $.path: message — suggestion`. A path that starts with what was read
 * (an option path under `testEnvironmentOptions.understudy`) says it alone.
 */
export function formatIssue(issue: FileIssue): string {
  let where = issue.file;
  if (issue.line !== undefined) where += `:${issue.line}`;
  if (issue.line !== undefined && issue.column !== undefined) where += `:${issue.column}`;
  const suggestion = issue.suggestion ? ` — ${issue.suggestion}` : '';
  const at =
    issue.line === undefined && issue.path.startsWith(issue.file) ? issue.path : `${where} at ${issue.path}`;
  return `${at}: ${issue.message}${suggestion}`;
}

/** `subject: N problems` and one indented line per issue. */
export function issuesMessage(subject: string, issues: readonly FileIssue[]): string {
  const count = issues.length === 1 ? 'a problem' : `${issues.length} problems`;
  return `${subject}: ${count}\n${issues.map((issue) => `  ${formatIssue(issue)}`).join('\n')}`;
}

export interface FileIssuesErrorOptions<Code extends ErrorCode> {
  /**
   * What was read, for the message: a function of the files the issues are in (`Fixture file
   * /app/a.json`), or a fixed subject when it is not a file (`runDrills({ setup })`).
   */
  subject: string | ((files: readonly string[]) => string);
  /** The error's code when the issues' codes differ (or are not the format's own). */
  code: Code;
  /** The whole message, when it is not the list of issues (one problem outside any file). */
  message?: string;
  cause?: unknown;
}

/** The problems of one read: every issue at once, the error's code from theirs. */
export class FileIssuesError<
  Code extends ErrorCode = ErrorCode,
  IssueCode extends string = Code,
> extends UnderstudyError<Code> {
  /** The file the (first) issue is in. */
  readonly file: string;
  readonly issues: readonly FileIssue<IssueCode>[];

  constructor(issues: readonly FileIssue<IssueCode>[], options: FileIssuesErrorOptions<Code>) {
    if (issues.length === 0) throw new TypeError(`${new.target.name} needs at least one issue`);
    const files = [...new Set(issues.map((issue) => issue.file))];
    const subject = typeof options.subject === 'string' ? options.subject : options.subject(files);
    const codes = new Set<string>(issues.map((issue) => issue.code));
    const shared = codes.size === 1 ? (issues[0].code as string) : undefined;
    const code = shared !== undefined && isOwnCode(shared, options.code) ? (shared as Code) : options.code;
    super(
      code,
      options.message ?? issuesMessage(subject, issues),
      'cause' in options ? { cause: options.cause } : undefined,
    );
    this.file = issues[0].file;
    this.issues = issues;
  }
}

/** An issue code belongs to the error's format when it shares its prefix (`WORLD_…` for `WORLD_INVALID`). */
function isOwnCode(code: string, fallback: string): boolean {
  return code.slice(0, code.indexOf('_')) === fallback.slice(0, fallback.indexOf('_'));
}

/** `Fixture file a.json` / `Fixture files a.json, b.json`. */
export function filesSubject(singular: string): (files: readonly string[]) => string {
  return (files) => (files.length === 1 ? `${singular} ${files[0]}` : `${singular}s ${files.join(', ')}`);
}
