/**
 * The user's behavior and event modules: paths resolved while checking, files loaded only
 * once every other check passed (so an invalid world runs none of the user's code).
 */
import type { PathSegment } from '../../file-format/json-path';
import { closest } from '../dialect';
import { handlerOf, requireModule, resolveModule } from '../modules';
import type { CheckContext } from './context';

/** The module's file, remembered for the world's hash; a finding when it cannot be resolved. */
export function modulePath(ctx: CheckContext, path: string, at: PathSegment[]): string | undefined {
  const resolved = resolveModule(path, ctx.dir);
  if ('error' in resolved) {
    ctx.add(
      'WORLD_MODULE_ERROR',
      at,
      `behavior module ${JSON.stringify(path)}: ${resolved.error}`,
      'module paths are relative to the world file',
    );
    return undefined;
  }
  ctx.moduleFiles.add(resolved.file);
  return resolved.file;
}

export function loadModules(ctx: CheckContext): void {
  const loaded = new Map<string, { exports: unknown } | { error: string }>();
  for (const pending of ctx.pendingModules) {
    let result = loaded.get(pending.file);
    if (!result) {
      result = requireModule(pending.file);
      loaded.set(pending.file, result);
    }
    if ('error' in result) {
      ctx.add('WORLD_MODULE_ERROR', pending.at, `behavior module ${pending.file}: ${result.error}`);
      continue;
    }
    const handler = handlerOf(result.exports, pending.candidates);
    if ('error' in handler) {
      const meant = closest(pending.candidates[0], handler.names);
      ctx.add(
        'WORLD_MODULE_ERROR',
        pending.at,
        `behavior module ${pending.file} ${handler.error}`,
        meant
          ? `did you mean "export": ${JSON.stringify(meant)}?`
          : handler.names.length > 0
            ? `its function exports: ${handler.names.join(', ')}`
            : 'export a function (ctx) => output',
      );
      continue;
    }
    pending.done(handler.handler, handler.exportName);
  }
  ctx.pendingModules.length = 0;
}
