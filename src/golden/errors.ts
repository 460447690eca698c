import type { ErrorCode } from '../errors';
import { type FileIssue, FileIssuesError } from '../file-format/issue';

export type GoldenIssueCode = Extract<
  ErrorCode,
  'GOLDEN_INVALID' | 'GOLDEN_PARSE_ERROR' | 'GOLDEN_READ_ERROR'
>;
/** A golden file's own issues, and those of the fixtures it holds (`FIXTURE_…`). */
export type GoldenIssue = FileIssue<GoldenIssueCode | string>;

export class GoldenFileError extends FileIssuesError<GoldenIssueCode, GoldenIssueCode | string> {
  override readonly name = 'GoldenFileError';
  constructor(issues: readonly GoldenIssue[]) {
    super(issues, { subject: (files) => `Golden task file ${files.join(', ')}`, code: 'GOLDEN_INVALID' });
  }
}
