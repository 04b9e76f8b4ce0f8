import type { Argv } from 'yargs';
import type { Io } from './io.js';

/**
 * A command registers itself on the parser; its handler sets the exit code. A module of its own, so that
 * the commands and main.ts, which lists them, do not import each other.
 */
export type CommandFactory = (io: Io, setExit: (code: number) => void) => (y: Argv) => Argv;
