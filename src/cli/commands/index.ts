import type { Command } from 'commander';
import { registerFixtures } from './fixtures';
import { registerGolden } from './golden';
import { registerLive } from './live';
import { registerMcp } from './mcp';
import { registerRecord } from './record';
import { registerReport } from './report';
import { registerTool } from './tool';
import { registerValidate } from './validate';

/** A command module: adds one command (with its own --help) to the program. */
export type RegisterCommand = (program: Command) => void;

/** Every command, in the order `--help` lists them. Add a module here to add a command. */
export const COMMANDS: RegisterCommand[] = [
  registerValidate,
  registerReport,
  registerGolden,
  registerRecord,
  registerLive,
  registerFixtures,
  registerTool,
  registerMcp,
];
