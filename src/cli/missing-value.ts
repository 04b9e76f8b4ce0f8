// An option that takes a value, typed as the last word or followed by another option, is given no
// value. yargs either stops with a terse internal error (options with `requiresArg`) or quietly uses the
// option's default (`serve --port` listening on 4040); both are said here as one usage message.
import type { Argv } from 'yargs';

/** What yargs knows of the options of the command being parsed (its public getOptions()). */
export interface DeclaredOptions {
  key: Record<string, unknown>;
  boolean: string[];
  count: string[];
  alias: Record<string, string[]>;
}

/**
 * The first option in `argv` that needs a value and has none, as typed (`--out`, `-f`), with its
 * long name; undefined when every option that takes a value has one.
 */
export function optionWithoutValue(
  argv: string[],
  declared: DeclaredOptions,
): { typed: string; name: string } | undefined {
  const canonical = new Map<string, string>();
  for (const name of Object.keys(declared.key)) canonical.set(name, name);
  for (const [name, aliases] of Object.entries(declared.alias)) {
    for (const alias of aliases) canonical.set(alias, name);
  }
  const flagOnly = new Set([...declared.boolean, ...declared.count]);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') return undefined; // what follows is positional
    const match = /^--?([^-=][^=]*)$/.exec(arg);
    if (!match?.[1]) continue;
    const name = canonical.get(match[1]);
    if (name === undefined || flagOnly.has(name)) continue;
    const next = argv[i + 1];
    // A negative number (`--latency -5`) is a value, for the option's own check to judge.
    if (next === undefined || next === '--' || /^-(-|[^-\d.])/.test(next)) {
      return { typed: arg, name: longName(name, declared.alias) };
    }
  }
  return undefined;
}

/** The option's long name, for a message that should name what `--help` lists. */
function longName(name: string, aliases: Record<string, string[]>): string {
  if (name.length > 1) return name;
  return (aliases[name] ?? []).find((a) => a.length > 1 && !/[A-Z]/.test(a)) ?? name;
}

/** The usage message for an option given without its value. */
export function missingValueMessage(
  option: { typed: string; name: string },
  command: string | undefined,
  describe: string | undefined,
): string {
  const flag = `--${option.name}`;
  const said = option.typed === flag ? flag : `${option.typed} (${flag})`;
  const what = describe ? ` ${flag}: ${describe.replace(/\.?$/, '.')}` : '';
  const help = command ? `accord ${command} --help` : 'accord --help';
  return `${said} was given without a value.${what} Give it as ${flag} VALUE or ${flag}=VALUE, or leave the option out; see ${help}.`;
}

/** yargs' own record of the options being parsed: getOptions() and the help's descriptions. */
interface YargsInternals {
  getOptions(): DeclaredOptions;
  getInternalMethods(): { getUsageInstance(): { getDescriptions(): Record<string, string | undefined> } };
}

/**
 * The usage message for the first option of `argv` given without its value, as `parser` (while it
 * parses a command) declares its options; undefined when there is none.
 */
export function valueMissing(parser: Argv, argv: string[], commands: string[]): string | undefined {
  // Public yargs API that its type declarations leave out.
  const internals = parser as unknown as YargsInternals;
  const missing = optionWithoutValue(argv, internals.getOptions());
  if (missing === undefined) return undefined;
  const command = argv.find((a) => !a.startsWith('-'));
  const describe = internals
    .getInternalMethods()
    .getUsageInstance()
    .getDescriptions()
    [missing.name]?.replace(/^__yargsString__:/, '');
  return missingValueMessage(missing, command && commands.includes(command) ? command : undefined, describe);
}
