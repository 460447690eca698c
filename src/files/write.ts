/**
 * The one way the product writes a file (traces, timelines, cassettes and fixture files,
 * usage notes, reports, exports): whatever is written passes one scrub first, its name
 * included. Text is scrubbed whole (`scrubText`); data is scrubbed string by string
 * (`scrubSecrets`, which also blanks credential-named fields) before it is rendered, so
 * no pattern can cut across its syntax, and the rendered text loses every key in use in
 * the escaped forms rendering gives it.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { scrubSecrets, scrubText, scrubValues } from '../redact';
import { secretsInUse } from './secrets';

/** Data and how it becomes text (JSON, YAML…). */
export interface Rendered<T = unknown> {
  data: T;
  render(data: T): string;
}

export type FileContent = string | Rendered<any>;

export interface WriteOptions {
  /** More values to blank, besides the keys in use (credentials the caller knows about). */
  secrets?: Iterable<string>;
  /** Write a temp file in the same folder, then rename it: readers never see half a file. */
  atomic?: boolean;
}

/** Text as it may be written: the keys in use and anything shaped like a credential blanked. */
export function scrubForWriting(text: string, secrets?: Iterable<string>): string {
  return scrubText(text, { values: secretsInUse(secrets) });
}

/** A copy of JSON-like data as it may be written: every string scrubbed, credential fields blanked. */
export function scrubDataForWriting<T>(data: T, secrets?: Iterable<string>): T {
  return scrubSecrets(data, { values: secretsInUse(secrets) }) as T;
}

function pathWith(path: string, values: readonly string[]): string {
  const name = basename(path);
  const clean = scrubText(name, { values });
  return clean === name ? path : join(dirname(path), clean);
}

function textWith(content: FileContent, values: readonly string[]): string {
  if (typeof content === 'string') return scrubText(content, { values });
  return scrubValues(content.render(scrubSecrets(content.data, { values })), values);
}

/** The text a write of `content` puts in its file (for the same bytes on standard output). */
export function textForWriting(content: FileContent, secrets?: Iterable<string>): string {
  return textWith(content, secretsInUse(secrets));
}

/** The path a write to `path` produces: its file name is scrubbed like its content. */
export function writtenPath(path: string, secrets?: Iterable<string>): string {
  return pathWith(path, secretsInUse(secrets));
}

let temps = 0;

/**
 * Writes a file, creating its folder: the content and the file name scrubbed of secrets.
 * @returns the path written (its name differs from `path` only when that held a secret).
 */
export function writeFile(path: string, content: FileContent, options: WriteOptions = {}): string {
  const values = secretsInUse(options.secrets);
  const file = pathWith(path, values);
  const text = textWith(content, values);
  mkdirSync(dirname(file), { recursive: true });
  if (!options.atomic) {
    writeFileSync(file, text);
    return file;
  }
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${++temps}.tmp`);
  try {
    writeFileSync(temp, text);
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  return file;
}

/** Formatted JSON with a trailing newline. */
export const json = <T>(data: T): Rendered<T> => ({
  data,
  render: (d) => `${JSON.stringify(d, null, 2)}\n`,
});
