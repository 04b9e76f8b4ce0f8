import type { Argv } from 'yargs';
import type { CommandFactory } from '../command.js';

const SHELLS = ['bash', 'zsh'] as const;
type Shell = (typeof SHELLS)[number];

/**
 * `accord completion [bash|zsh]`: prints a script that completes commands and options by asking
 * accord itself (`accord --get-yargs-completions ...`), so it never goes stale. Without a shell named,
 * the one in $SHELL. yargs' own completion command is registered hidden, so that this one has a proper
 * --help; its answers leave out the one-letter aliases (`-f` is no `--f`).
 */
export const completionCommand: CommandFactory = (io, setExit) => (y: Argv) =>
  y
    .completion('completion-script', false, ((
      _current: string,
      _argv: unknown,
      completionFilter: (then: (err: unknown, names: string[]) => void) => void,
      done: (names: string[]) => void,
    ) => {
      completionFilter((_err, names) => done(names.filter((n) => !/^--?[^-](:|$)/.test(n))));
    }) as never)
    .command(
      'completion [shell]',
      'Print a shell completion script for bash or zsh',
      (c) =>
        c
          .positional('shell', {
            choices: SHELLS,
            describe: 'The shell to complete in (default: the one in $SHELL, else bash)',
          })
          .example('accord completion bash >> ~/.bashrc', 'complete accord commands and options in bash')
          .example('accord completion zsh >> ~/.zshrc', 'the same in zsh'),
      (argv) => {
        const shell: Shell = argv.shell ?? (io.env.SHELL?.endsWith('zsh') ? 'zsh' : 'bash');
        io.stdout(shell === 'zsh' ? ZSH : BASH);
        setExit(0);
      },
    );

const BASH = `###-begin-accord-completions-###
# accord command completion for bash. Installation: accord completion bash >> ~/.bashrc
_accord_yargs_completions()
{
    local cur_word args type_list
    cur_word="\${COMP_WORDS[COMP_CWORD]}"
    args=("\${COMP_WORDS[@]}")
    mapfile -t type_list < <(accord --get-yargs-completions "\${args[@]}")
    mapfile -t COMPREPLY < <(compgen -W "$( printf '%q ' "\${type_list[@]}" )" -- "\${cur_word}" |
        awk '/ / { print "\\""$0"\\"" } /^[^ ]+$/ { print $0 }')
    if [ \${#COMPREPLY[@]} -eq 0 ]; then
      COMPREPLY=()
    fi
    return 0
}
complete -o bashdefault -o default -F _accord_yargs_completions accord
###-end-accord-completions-###
`;

const ZSH = `#compdef accord
###-begin-accord-completions-###
# accord command completion for zsh. Installation: accord completion zsh >> ~/.zshrc
_accord_yargs_completions()
{
  local reply
  local si=$IFS
  IFS=$'\\n' reply=($(COMP_CWORD="$((CURRENT-1))" COMP_LINE="$BUFFER" COMP_POINT="$CURSOR" accord --get-yargs-completions "\${words[@]}"))
  IFS=$si
  if [[ \${#reply} -gt 0 ]]; then
    _describe 'values' reply
  else
    _default
  fi
}
if [[ "\${zsh_eval_context[-1]}" == "loadautofunc" ]]; then
  _accord_yargs_completions "$@"
else
  compdef _accord_yargs_completions accord
fi
###-end-accord-completions-###
`;
