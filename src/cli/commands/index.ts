import type { Command } from 'commander';

/** A command module: adds one command (with its own --help) to the program. */
export type RegisterCommand = (program: Command) => void;

/** Every command, in the order `--help` lists them. Add a module here to add a command. */
export const COMMANDS: RegisterCommand[] = [];
