/**
 * A matcher whose failure message gains a note about what it received (the run's crash, see
 * ./run-outcome.ts). Loads nothing itself: the preset registers every matcher through it, and
 * the note's module is loaded only when some matcher fails.
 */
import type { MatcherContext } from 'expect';

type Result = { pass: boolean; message: () => string };

export function withNoteOnFailure<F extends (this: any, received: unknown, ...rest: any[]) => any>(
  matcher: F,
  note: (received: unknown) => string | undefined,
): F {
  return function (this: MatcherContext, received: unknown, ...rest: unknown[]) {
    const result = matcher.call(this, received, ...rest) as Result | undefined;
    if (
      !result ||
      typeof result.message !== 'function' ||
      typeof (result as { then?: unknown }).then === 'function'
    )
      return result;
    // Failed either way round: under `.not` a pass fails.
    if (result.pass !== Boolean(this?.isNot)) return result;
    const message = result.message;
    return {
      ...result,
      message: () => {
        const extra = note(received);
        return extra === undefined ? message() : `${message()}\n\n${extra}`;
      },
    };
  } as F;
}
