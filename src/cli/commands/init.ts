import { join } from 'node:path';
import type { Argv } from 'yargs';
import { AccordError } from '../../errors.js';
import type { CommandFactory } from '../command.js';

/**
 * `accord init`: a starter accord.yaml, the schema its `$schema` comment names beside it, and with
 * `--ci` the CI file of the repository. Never overwrites a file without --force.
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
      const { CI_FILES, CI_SYSTEMS, ciRecipe, STARTER, STARTER_FILE } = await import('../starter.js');
      const { SCHEMA_FILE, schemaText } = await import('../../config/schema-file.js');
      const { shownPaths, writeNewFiles } = await import('../../new-files.js');
      const ci = argv.ci;
      if (ci !== undefined && !(CI_SYSTEMS as readonly string[]).includes(ci)) {
        throw new InitError(`--ci must be one of ${CI_SYSTEMS.join(', ')}, got "${ci}".`);
      }
      const system = ci as (typeof CI_SYSTEMS)[number] | undefined;
      const files = [
        { path: join(io.cwd, STARTER_FILE), content: STARTER },
        { path: join(io.cwd, SCHEMA_FILE), content: schemaText('desired') },
        ...(system ? [{ path: join(io.cwd, CI_FILES[system].path), content: ciRecipe(system) }] : []),
      ];
      const refused = await writeNewFiles(files, argv.force);
      if (refused?.kind === 'exists') {
        const n = refused.paths.length;
        throw new InitError(
          `${shownPaths(refused.paths, io.cwd)} already ${n === 1 ? 'exists' : 'exist'}; accord init does not overwrite files. ` +
            `Pass --force to replace ${n === 1 ? 'it' : 'them'}, or run accord init in another directory.`,
        );
      }
      if (refused?.kind === 'failed') {
        throw new InitError(
          `cannot write ${shownPaths([refused.path], io.cwd)} (${refused.code}); run accord init in a directory you can write to.`,
          { cause: refused.cause },
        );
      }
      const written = files.map((f) => shownPaths([f.path], io.cwd));
      io.stderr(`Wrote ${written.slice(0, -1).join(', ')} and ${written.at(-1)}.\n`);
      io.stderr(
        system
          ? `Next: edit ${STARTER_FILE}, run accord validate, then read the comments at the top of ${CI_FILES[system].path} for the settings it needs.\n`
          : `Next: edit ${STARTER_FILE}, then run accord validate and accord plan.\n`,
      );
      setExit(0);
    },
  );

export class InitError extends AccordError {
  override name = 'InitError';
  static override readonly code = 'ACCORD_INIT';
}
