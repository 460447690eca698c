import Module from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { serveMswToRequire } from '../../../../environment/vitest/msw-require';

// Node's resolution as its require does it for a CommonJS file of the project (a setup file or a
// helper, as Vitest loads it past Vite). Called directly: under Jest, require is Jest's own.
const nodeModule = Module as unknown as {
  _resolveFilename(request: string, parent: object): string;
  _nodeModulePaths(dir: string): string[];
};
const helper = join(__dirname, 'helper.js');
const parent = { id: helper, filename: helper, paths: nodeModule._nodeModulePaths(__dirname) };
const resolve = (request: string) => nodeModule._resolveFilename(request, parent);

describe("msw/node for Node's require under Vitest", () => {
  it("resolves msw/node to jest-understudy's, and nothing else, until undone", () => {
    const target = '/served/msw-node.js';
    const before = resolve('msw/node');
    expect(before).toContain(join('node_modules', 'msw'));
    const undo = serveMswToRequire(target);
    try {
      expect(resolve('msw/node')).toBe(target);
      expect(resolve('msw')).toBe(nodeModule._resolveFilename('msw', parent));
      expect(resolve('msw')).not.toBe(target);
      // A second call (another setup file in the same worker) does not wrap it again.
      serveMswToRequire('/other/msw-node.js')();
      expect(resolve('msw/node')).toBe(target);
    } finally {
      undo();
    }
    expect(resolve('msw/node')).toBe(before);
  });
});
