#!/usr/bin/env node
import { buildProgram } from './program';

buildProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    process.stderr.write(`understudy: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  });
