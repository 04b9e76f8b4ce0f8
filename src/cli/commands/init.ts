import { join } from 'node:path';
import type { Argv } from 'yargs';
import { AccordError } from '../../errors.js';
import type { NewFile } from '../../new-files.js';
import type { CommandFactory } from '../command.js';
import type { Io } from '../io.js';
import type { CiSystem } from '../starter.js';

/**
 * `accord init`: a starter accord.yaml, the schema its `$schema` comment names beside it, and with
 * `--ci` the CI file of the repository. Writes what is missing and keeps what exists (an edited
 * accord.yaml, when `--ci` is added later); only --force overwrites.
 */
export const initCommand: CommandFactory = (io, setExit) => (y: Argv) =>
  y.command(
    'init',
    'Write a starter accord.yaml and its JSON Schema here, and with --ci a CI workflow',
    (b) =>
      b
        .option('ci', {
          type: 'string',
          requiresArg: true,
          describe:
            'Also write the CI file: github (.github/workflows/accord.yml) or gitlab (.gitlab-ci.yml)',
        })
        .option('force', { type: 'boolean', default: false, describe: 'Overwrite files that exist' })
        .example('accord init', 'write ./accord.yaml and ./accord.schema.json')
        .example('accord init --ci github', 'and .github/workflows/accord.yml: plan, apply, drift'),
    async (argv) => {
      const { existing } = await import('../../new-files.js');
      const { system, files } = await starterFiles(argv.ci, io.cwd);
      const kept = argv.force ? [] : await existing(files.map((f) => f.path));
      const toWrite = files.filter((f) => !kept.includes(f.path));
      await writeStarter(toWrite, kept, system, argv.force, io.cwd);
      await sayWritten(toWrite, kept, system, io);
      setExit(0);
    },
  );

/** The files `accord init` writes: accord.yaml, its schema, and with --ci the CI file. */
async function starterFiles(
  ci: string | undefined,
  cwd: string,
): Promise<{ system: CiSystem | undefined; files: NewFile[] }> {
  const { CI_FILES, CI_SYSTEMS, ciRecipe, STARTER, STARTER_FILE } = await import('../starter.js');
  const { SCHEMA_FILE, schemaText } = await import('../../config/schema-file.js');
  if (ci !== undefined && !(CI_SYSTEMS as readonly string[]).includes(ci)) {
    throw new InitError(`--ci must be one of ${CI_SYSTEMS.join(', ')}, got "${ci}".`);
  }
  const system = ci as CiSystem | undefined;
  const files = [
    { path: join(cwd, STARTER_FILE), content: STARTER },
    { path: join(cwd, SCHEMA_FILE), content: schemaText('desired') },
    ...(system ? [{ path: join(cwd, CI_FILES[system].path), content: ciRecipe(system) }] : []),
  ];
  return { system, files };
}

/** Writes the files that are not `kept`; nothing to write, or a file that cannot be, is an InitError. */
async function writeStarter(
  toWrite: NewFile[],
  kept: string[],
  system: CiSystem | undefined,
  force: boolean,
  cwd: string,
): Promise<void> {
  const { shownPaths, writeNewFiles } = await import('../../new-files.js');
  if (toWrite.length === 0) {
    const them = kept.length === 1 ? 'it' : 'them';
    throw new InitError(
      `${shownPaths(kept, cwd)} already ${kept.length === 1 ? 'exists' : 'exist'}, so accord init wrote nothing; it does not overwrite files. ` +
        `Pass --force to replace ${them}${system ? '' : ', or --ci github|gitlab to add a CI file'}.`,
    );
  }
  const refused = await writeNewFiles(toWrite, force);
  if (refused?.kind === 'exists') {
    throw new InitError(
      `${shownPaths(refused.paths, cwd)} appeared while accord init was writing; it was left as it is. Run accord init again.`,
    );
  }
  if (refused?.kind === 'failed') {
    throw new InitError(
      `cannot write ${shownPaths([refused.path], cwd)} (${refused.code}); run accord init in a directory you can write to.`,
      { cause: refused.cause },
    );
  }
}

/** What was written, what was kept, and what to do next. */
async function sayWritten(
  toWrite: NewFile[],
  kept: string[],
  system: CiSystem | undefined,
  io: Io,
): Promise<void> {
  const { CI_FILES, STARTER_FILE } = await import('../starter.js');
  const { shownPaths } = await import('../../new-files.js');
  io.stderr(`Wrote ${listed(toWrite.map((f) => shownPaths([f.path], io.cwd)))}.\n`);
  if (kept.length > 0) {
    const are = kept.length === 1 ? 'it exists' : 'they exist';
    const them = kept.length === 1 ? 'it' : 'them';
    io.stderr(
      `Kept ${listed(kept.map((p) => shownPaths([p], io.cwd)))} as ${are} (--force replaces ${them}).\n`,
    );
  }
  io.stderr(
    system
      ? `Next: edit ${STARTER_FILE}, run accord validate, then read the comments at the top of ${CI_FILES[system].path} for the settings it needs.\n`
      : `Next: edit ${STARTER_FILE}, then run accord validate and accord plan.\n`,
  );
}

/** `a`, `a and b`, `a, b and c`. */
function listed(items: string[]): string {
  return items.length === 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

export class InitError extends AccordError {
  override name = 'InitError';
  static override readonly code = 'ACCORD_INIT';
}
