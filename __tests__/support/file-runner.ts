import { readFileSync } from 'node:fs';

/**
 * A runner of large files as the environment's (`runFilesWith`, src/host-services.ts): the file run
 * as a CommonJS module, its path pushed to `ran` at each run.
 */
export function recordingRunner(ran: string[]): (file: string) => unknown {
  return (file) => {
    ran.push(file);
    const module = { exports: {} as unknown };
    new Function('exports', 'require', 'module', readFileSync(file, 'utf8'))(module.exports, require, module);
    return module.exports;
  };
}
