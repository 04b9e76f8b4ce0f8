import yargs, { type Argv } from 'yargs';
import { Secrets } from '../api/redact.js';
import { AccordError } from '../errors.js';
import { PACKAGE_NAME, VERSION } from '../version.js';
import { type CommandArguments, placeAfterDashes } from './after-dashes.js';
import type { CommandFactory } from './command.js';
import { applyCommand } from './commands/apply.js';
import { completionCommand } from './commands/completion.js';
import { driftCommand } from './commands/drift.js';
import { exportCommand } from './commands/export.js';
import { initCommand } from './commands/init.js';
import { planCommand } from './commands/plan.js';
import { reachCommand } from './commands/reach.js';
import { schemaCommand } from './commands/schema.js';
import { serveCommand } from './commands/serve.js';
import { validateCommand } from './commands/validate.js';
import { type Io, processIo } from './io.js';
import { jsonError } from './json-error.js';
import { type DeclaredOptions, valueMissing } from './missing-value.js';
import { tuneForOneRun } from './one-run.js';
import { type Known, usageMessage } from './usage-message.js';

const commands: CommandFactory[] = [
  initCommand,
  validateCommand,
  planCommand,
  applyCommand,
  exportCommand,
  driftCommand,
  reachCommand,
  schemaCommand,
  serveCommand(),
  completionCommand,
];

/** What yargs knows of the options of the command being parsed. */
type Declared = DeclaredOptions & { array: string[]; choices: Record<string, unknown[]> };

/** Thrown after a successful parse when the command is not to run (`parseOnly`). */
class ParsedOnly extends Error {}

/**
 * Runs the CLI with `argv` (without node and the script) and returns the exit code. With `parseOnly`,
 * stops after the arguments were parsed and checked, before the command runs (0 when they are valid).
 */
export async function main(
  argv: string[],
  io: Io = processIo(),
  options: {
    parseOnly?: boolean;
    /** The process is this one run of accord (bin/accord.js): V8 may be set up for it (src/cli/one-run.ts). */
    ownProcess?: boolean;
  } = {},
): Promise<number> {
  let exitCode = 0;
  const setExit = (code: number) => {
    exitCode = code;
  };
  const { verbose, json, color } = reportFlags(argv);
  const { out, wroteStdout } = redactingIo(color === undefined ? io : withColor(io, color));
  let parser: Argv = programParser(argv).fail((msg, err) => {
    // yargs' own error for a `requiresArg` option typed last is no bug of ours: say what is missing.
    throwIfValueMissing();
    throw err ?? new UsageError(usageMessage(msg, argv, known()));
  });
  for (const register of commands) parser = register(out, setExit)(parser);
  skipHelpBeforeCommands(parser);
  // getOptions() is public yargs API that its type declarations leave out.
  const declared = () => (parser as unknown as { getOptions(): Declared }).getOptions();
  const throwIfValueMissing = () => {
    const message = valueMissing(parser, argv, commandNames);
    if (message !== undefined) throw new UsageError(message);
  };
  // Read before parsing: while a command is parsed, yargs lists that command's subcommands instead.
  const { commandNames, commandArguments } = commandsOf(parser);
  /** The commands, and the options of the command being parsed (its own and the global ones). */
  const known = (): Known => ({
    commands: commandNames,
    // Long names only, as typed: not the one-letter aliases nor yargs' camelCase twins.
    options: Object.keys(declared().key).filter((k) => k.length > 1 && !/[A-Z]/.test(k)),
  });
  parser = parser.middleware((args) => {
    throwIfValueMissing();
    const command = String(args._[0]);
    const misplaced = placeAfterDashes(args, command, commandArguments[command], declared().choices);
    if (misplaced !== undefined) throw new UsageError(misplaced);
    checkOptionValues(args, argv, new Set(declared().array));
    if (options.parseOnly) throw new ParsedOnly();
    if (options.ownProcess && args._[0] !== 'serve') tuneForOneRun();
  });
  try {
    await parser.parseAsync(argv, {}, (_err, _argv, output) => {
      if (output) out.stdout(output.endsWith('\n') ? output : `${output}\n`);
    });
    return exitCode;
  } catch (err) {
    if (err instanceof ParsedOnly) return 0;
    if (json && !wroteStdout()) out.stdout(jsonError(err));
    return reportError(err, out, verbose);
  }
}

/**
 * How an error is to be reported, and whether `--color`/`--no-color` decides colour (the last one
 * typed), read before parsing; after `--` a word is no flag (src/cli/after-dashes.ts).
 */
function reportFlags(argv: string[]): { verbose: boolean; json: boolean; color?: boolean } {
  const dashes = argv.indexOf('--');
  const typed = dashes < 0 ? argv : argv.slice(0, dashes);
  const last = typed.findLast((a) => a === '--color' || a === '--no-color');
  return {
    verbose: typed.includes('--verbose'),
    json: typed.some((a) => a === '--json' || a === '--json=true'),
    ...(last !== undefined ? { color: last === '--color' } : {}),
  };
}

/** `io` whose environment says what `--color`/`--no-color` said, as FORCE_COLOR and NO_COLOR say it. */
function withColor(io: Io, color: boolean): Io {
  const { FORCE_COLOR: _force, NO_COLOR: _no, ...env } = io.env;
  return { ...io, env: color ? { ...env, FORCE_COLOR: '1' } : { ...env, NO_COLOR: '1' } };
}

/**
 * yargs formats a command's whole help text before running it, to show should the command fail later
 * (its `cacheHelpMessage`). accord's failures never show help (`.fail` throws), and that formatting
 * (the display width of every cell of every option) costs some 40 ms of every run. `--help` is not
 * affected: it formats the help when asked.
 */
function skipHelpBeforeCommands(parser: Argv): void {
  const usage = (
    parser as unknown as { getInternalMethods(): { getUsageInstance(): { cacheHelpMessage(): void } } }
  )
    .getInternalMethods()
    .getUsageInstance();
  usage.cacheHelpMessage = () => {};
}

/** Everything printed passes here: once the API key is known, it never leaves (src/api/redact.ts). */
function redactingIo(io: Io): { out: Io; wroteStdout: () => boolean } {
  let wrote = false;
  const secrets = io.secrets ?? new Secrets();
  const out: Io = {
    ...io,
    secrets,
    stdout: (text) => {
      wrote = true;
      io.stdout(secrets.redact(text));
    },
    stderr: (text) => io.stderr(secrets.redact(text)),
  };
  return { out, wroteStdout: () => wrote };
}

/** The program's name, usage, examples and global options, before its commands. */
function programParser(argv: string[]): Argv {
  // The words after `--` kept apart and as typed (`-1`, `1e3`), for src/cli/after-dashes.ts to place.
  return yargs(argv)
    .parserConfiguration({ 'populate--': true, 'parse-positional-numbers': false })
    .scriptName('accord')
    .usage('accord <command> [options]\n\nKeep one account of the Account Management API as code.')
    .example('accord plan', 'what would change to make the account match ./accord.yaml')
    .example('accord apply', 'make it so (asks first; --auto-approve in CI)')
    .example('accord <command> --help', "a command's options and examples")
    .epilogue(
      'Connection: ACCORD_API_URL and ACCORD_API_KEY (or --api-url, --api-key-file). ' +
        'Exit codes: 0 ok, 1 error, 2 changes (plan --detailed-exitcode) or drift (drift), 3 refused by a safety rule.',
    )
    .option('verbose', { type: 'boolean', default: false, describe: 'Show stack traces and request traces' })
    .option('color', {
      type: 'boolean',
      describe: 'Colour text output (--no-color: never), whatever the terminal, NO_COLOR and FORCE_COLOR say',
    })
    .version(`accord ${VERSION} (npm package ${PACKAGE_NAME})`)
    .strict()
    .demandCommand(1, 'Name a command; see accord --help.')
    .wrap(Math.min(110, process.stdout.columns || 100))
    .exitProcess(false);
}

/** The program's commands, and the arguments each takes (`reach [address..]`). */
function commandsOf(parser: Argv): {
  commandNames: string[];
  commandArguments: Record<string, CommandArguments>;
} {
  // getCommandHandlers() and getCommands() are yargs internals its type declarations leave out.
  const commands = (
    parser as unknown as {
      getInternalMethods(): {
        getCommandInstance(): {
          getCommands(): string[];
          getCommandHandlers(): Record<string, CommandArguments>;
        };
      };
    }
  )
    .getInternalMethods()
    .getCommandInstance();
  return {
    commandNames: commands.getCommands().filter((c) => !c.startsWith('completion-script')),
    commandArguments: { ...commands.getCommandHandlers() },
  };
}

/**
 * yargs turns a repeated option into a list, a number option given a word into NaN and one given 1e400
 * into Infinity; all would reach the commands as values they never expect ("got 0,99999", "got NaN").
 * Said here once, for every option.
 */
function checkOptionValues(args: Record<string, unknown>, argv: string[], arrays: Set<string>): void {
  // Long names first, so that a message names --file rather than its alias -f.
  const entries = Object.entries(args).sort(([a], [b]) => b.length - a.length);
  for (const [key, value] of entries) {
    if (key === '_' || key === '$0' || /[A-Z]/.test(key)) continue; // camelCase twins of dashed keys
    const flag = `${key.length === 1 ? '-' : '--'}${key}`;
    if (Array.isArray(value) && !arrays.has(key)) {
      throw new UsageError(`${flag} was given more than once (${value.join(', ')}); give it once.`);
    }
    if (typeof value === 'number' && !Number.isFinite(value)) {
      // NaN: a word; Infinity: a number too large for any option (1e400).
      const raw = rawValue(argv, flag);
      const got = raw === undefined ? '' : `, got "${raw}"`;
      throw new UsageError(
        Number.isNaN(value)
          ? `${flag} must be a number${got}.`
          : `${flag} must be a number of a usable size${got}, which is too large; give a smaller one.`,
      );
    }
  }
}

/** The text typed after `flag` (`--flag value` or `--flag=value`), for messages. */
function rawValue(argv: string[], flag: string): string | undefined {
  const i = argv.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  if (i < 0) return undefined;
  const arg = argv[i] ?? '';
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[i + 1];
}

export class UsageError extends AccordError {
  override name = 'UsageError';
  static override readonly code = 'ACCORD_USAGE';
}

function reportError(err: unknown, io: Io, verbose: boolean): number {
  if (err instanceof AccordError) {
    io.stderr(`Error: ${err.message}\n`);
    if (verbose && err.stack) io.stderr(`${err.stack}\n`);
    return err.exitCode;
  }
  io.stderr(`accord hit an unexpected error; this is a bug, please report it with the trace below.\n`);
  io.stderr(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 1;
}
