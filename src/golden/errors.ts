import { type FileIssue, formatIssue } from '../fixtures/errors';

export type GoldenIssueCode = 'GOLDEN_INVALID' | 'GOLDEN_PARSE_ERROR' | 'GOLDEN_READ_ERROR';
export type GoldenIssue = FileIssue<GoldenIssueCode | string>;

export class GoldenFileError extends Error {
  override readonly name = 'GoldenFileError';
  readonly code = 'GOLDEN_INVALID';
  readonly issues: readonly GoldenIssue[];
  constructor(issues: readonly GoldenIssue[]) {
    const files = [...new Set(issues.map((i) => i.file))];
    const count = issues.length === 1 ? 'a problem' : `${issues.length} problems`;
    super(
      `Golden task file ${files.join(', ')}: ${count}\n${issues.map((i) => `  ${formatIssue(i)}`).join('\n')}`,
    );
    this.issues = issues;
  }
}
