// After `--` every word is an argument, never an option (`accord reach -- -1`, `accord apply --
// -nightly.plan`). yargs keeps those words apart (its `populate--`) and would drop them; here they take
// the places of the command's arguments, as if typed before `--`, and a word no argument takes is
// refused: none is ever dropped.

/** A command's argument as yargs declares it (`reach [address..]`: `address`, variadic). */
interface Positional {
  cmd: string[];
  variadic: boolean;
}

/** What yargs knows of a command: its arguments, required ones first. */
export interface CommandArguments {
  demanded: Positional[];
  optional: Positional[];
}

/**
 * Puts the words after `--` (`args['--']`) in the command's arguments and removes `args['--']`.
 * Returns the usage message when a word is left over or is not one of an argument's choices.
 */
export function placeAfterDashes(
  args: Record<string, unknown>,
  name: string,
  command: CommandArguments | undefined,
  choices: Record<string, unknown[] | undefined>,
): string | undefined {
  const words = (args['--'] as unknown[] | undefined)?.map(String) ?? [];
  delete args['--'];
  if (words.length === 0) return undefined;
  for (const positional of [...(command?.demanded ?? []), ...(command?.optional ?? [])]) {
    const key = positional.cmd[0] ?? '';
    if (positional.variadic) {
      const given = Array.isArray(args[key]) ? (args[key] as unknown[]) : [];
      args[key] = [...given, ...words.splice(0)];
    } else if (args[key] === undefined && words.length > 0) {
      const word = words.shift() ?? '';
      const allowed = choices[key];
      if (allowed && !allowed.includes(word)) {
        return `"${word}" (after --) is not a ${key} accord ${name} knows; give one of ${allowed.join(', ')}.`;
      }
      args[key] = word;
    }
  }
  const extra = words[0];
  if (extra === undefined) return undefined;
  return `unexpected argument "${extra}" after --; see accord ${name} --help for what it accepts.`;
}
