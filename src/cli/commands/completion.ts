import type { Argv } from 'yargs';
import type { CommandFactory } from '../command.js';

/**
 * `accord completion`: prints a bash script (a zsh one when $SHELL is zsh) that completes commands and
 * options by asking accord itself (`accord --get-yargs-completions ...`), so it never goes stale.
 * yargs' own completion command is registered hidden, so that this one has a proper --help.
 */
export const completionCommand: CommandFactory = () => (y: Argv) =>
  y.completion('completion-script', false).command(
    'completion',
    'Print a shell completion script for bash or zsh',
    (c) =>
      c
        .example('accord completion >> ~/.bashrc', 'complete accord commands and options in bash')
        .example('accord completion >> ~/.zshrc', 'the same in zsh (chosen when $SHELL is zsh)'),
    () => {
      y.showCompletionScript();
    },
  );
