import type { Argv } from 'yargs';
import type { CommandFactory } from '../main.js';

/**
 * `accord completion`: prints a bash script (zsh when $SHELL is zsh) that completes commands and
 * options by asking accord itself (`accord --get-yargs-completions ...`), so it never goes stale.
 */
export const completionCommand: CommandFactory = () => (y: Argv) =>
  y.completion(
    'completion',
    'Print a shell completion script for bash or zsh (add it to ~/.bashrc or ~/.zshrc)',
  );
