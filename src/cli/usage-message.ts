// yargs' terse failures (`Unknown arguments: d, e, t`, `Invalid values: ...`, `Arguments json and
// markdown are mutually exclusive`) said in accord's words: what the user typed, and what to do next.
import { closest } from '../suggest.js';

export interface Known {
  /** The commands. */
  commands: string[];
  /** The long options of the command being parsed (its own and the global ones). */
  options: string[];
}

/** One yargs failure message in accord's words, for the command line `argv`. */
export function usageMessage(msg: string, argv: string[], known: Known): string {
  const first = argv.find((a) => !a.startsWith('-'));
  const see =
    first !== undefined && known.commands.includes(first) ? `accord ${first} --help` : 'accord --help';
  const unknown = /^Unknown arguments?: (.+)$/.exec(msg)?.[1];
  if (first !== undefined && unknown !== undefined && !known.commands.includes(first)) {
    const guess = closest(first, known.commands);
    return guess
      ? `unknown command "${first}"; did you mean "${guess}"? See accord --help.`
      : `unknown command "${first}"; see accord --help for the list of commands.`;
  }
  if (first !== undefined && unknown !== undefined) return unknownOptions(unknown, argv, known, first);
  const choice = /Argument: (\S+), Given: (.+), Choices: (.+)$/m.exec(msg);
  if (choice) {
    const [, name = '', given = '', choices = ''] = choice;
    // A positional (`accord completion fish`) is no flag the user typed.
    const flag = argv.some((a) => a === `--${name}` || a.startsWith(`--${name}=`));
    const what = flag ? `--${name}` : `accord ${first}: the ${name}`;
    const list = choices.split(', ').map((c) => c.replace(/^"|"$/g, ''));
    return `${what} must be ${oneOf(list)}, got ${given}; see ${see}.`;
  }
  const conflict = /^Arguments (\S+) and (\S+) are mutually exclusive$/.exec(msg);
  if (conflict) {
    const [, a = '', b = ''] = conflict;
    return `--${a} and --${b} cannot be given together; give one of them (see ${see}).`;
  }
  if (msg.includes('--help')) return msg;
  return `${msg.replace(/[.?!]?$/, '.')} See ${see}.`;
}

/** `bash or zsh`; `json, markdown or text`. */
function oneOf(choices: string[]): string {
  if (choices.length < 2) return choices.join('');
  return `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`;
}

/**
 * The options yargs did not know: a long option typed with one dash (`-detailed-exitcode`, which yargs
 * reads as the letters d, e, t, ...) is said as such; any other with the nearest option it may mean.
 */
function unknownOptions(unknown: string, argv: string[], known: Known, command: string): string {
  const see = `accord ${command} --help for what it accepts.`;
  const letters = new Set(unknown.split(', ').filter((n) => n.length === 1));
  const oneDash = argv.find(
    (a) =>
      /^-[a-zA-Z][^-=]*[-a-zA-Z]/.test(a) &&
      !a.startsWith('--') &&
      [...a.slice(1)].some((c) => letters.has(c)),
  );
  if (oneDash !== undefined) {
    const name = oneDash.slice(1).split('=')[0] ?? '';
    const guess = known.options.includes(name) ? name : closest(name, known.options);
    return guess
      ? `unknown option ${oneDash}: long options take two dashes; did you mean --${guess}? See ${see}`
      : `unknown option ${oneDash}: long options take two dashes, and accord ${command} has no --${name} either; see ${see}`;
  }
  const typed = argv.filter((a) => /^--?[^-]/.test(a)).map((a) => a.replace(/^--?/, '').split('=')[0] ?? '');
  const said = unknown
    .split(', ')
    // yargs also reports the camelCase twin of each unknown dashed option; it is nothing the user typed.
    .filter((name) => !(/[A-Z]/.test(name) && typed.some((t) => camelCase(t) === name && t !== name)))
    .map((name) => {
      if (!typed.includes(name)) return `unexpected argument "${name}"`;
      const flag = `${name.length === 1 ? '-' : '--'}${name}`;
      const guess = closest(name, known.options);
      return guess ? `unknown option ${flag}; did you mean --${guess}?` : `unknown option ${flag}`;
    });
  const text = said.join('; ');
  return text.endsWith('?') ? `${text} See ${see}` : `${text}; see ${see}`;
}

function camelCase(dashed: string): string {
  return dashed.replace(/-+([^-])/g, (_, c: string) => c.toUpperCase());
}
