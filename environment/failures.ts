/**
 * Failures as both runner adapters hand them to their runner: an `UnderstudyError` whose stack is
 * its message, and the trace paths appended where the runner prints an error.
 */
import { relative } from 'node:path';
import { type ErrorCode, UnderstudyError } from '../src/errors';

export function toError(code: ErrorCode, message: string): Error {
  const error = new UnderstudyError(code, message);
  // The stack would point into the environment; the message (and its code) is what helps.
  error.stack = `${error.name} [${code}]: ${message}`;
  return error;
}

/** Adds lines after an error's message, where runners print it (the message part of its stack too). */
export function appendToError(value: unknown, text: string): boolean {
  const error = value as { message?: unknown; stack?: unknown } | null;
  if (
    typeof error !== 'object' ||
    error === null ||
    typeof error.message !== 'string' ||
    error.message === ''
  )
    return false;
  try {
    const message = error.message;
    if (typeof error.stack === 'string' && error.stack.includes(message)) {
      const at = error.stack.indexOf(message) + message.length;
      error.stack = error.stack.slice(0, at) + text + error.stack.slice(at);
    }
    error.message = message + text;
    return error.message === message + text;
  } catch {
    return false; // frozen or otherwise read-only
  }
}

/** A path as people will click it: relative to the working directory when inside it. */
export function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') ? path : rel;
}

/** The lines a failed test's first error gains when its trace was written. */
export const traceNote = (written: { trace: string; html: string }): string =>
  `\n\nUnderstudy trace:    ${shown(written.trace)}\nUnderstudy timeline: ${shown(written.html)}`;

/** `@word` tokens of a title: Playwright's way of tagging a test, so `-t @tag` selects them too. */
export const titleTags = (title: string) => [...title.matchAll(/(?:^|\s)@([\w.:-]+)/g)].map((m) => m[1]);
