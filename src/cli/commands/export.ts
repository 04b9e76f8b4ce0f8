import { dirname, join, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { AccordError } from '../../errors.js';
import type { ExportResult } from '../../export/document.js';
import { count } from '../../plural.js';
import type { CommandFactory } from '../command.js';
import { connectionOptions } from '../connection-options.js';
import type { Io } from '../io.js';
import { redacted } from '../output.js';

const OWNER = /^[a-z0-9][a-z0-9._-]{0,62}$/;

export const exportCommand: CommandFactory = (io, setExit) => (y: Argv) =>
  y.command(
    'export',
    'Write the live account as an accord.yaml whose entries adopt the existing resources (id:)',
    (b) => connectionOptions(exportOptions(b)),
    async (argv) => {
      checkExportFlags(argv);
      const exp = await import('../../export/index.js');
      const { withClient } = await import('../connection.js');
      const edges = exp.parseEdgeIds(argv.edges ?? []);
      const output = argv.output ?? 'accord.yaml';
      const toStdout = argv.split === undefined && output === '-';
      const result = await withClient(argv, io, async (client) => {
        const account = await exp.readAccount(client, edges);
        return exp.buildExport(account, {
          owner: argv.owner,
          includeManaged: argv['include-managed'],
          includeOtherOwners: argv['include-other-owners'],
          pem: toStdout ? 'inline' : 'files',
          apiUrl: client.baseUrl,
          now: new Date(),
          split: argv.split !== undefined,
          redact: (text) => redacted(io, text),
        });
      });
      const s = result.summary;
      const counts = [
        `${s.adopt} to adopt`,
        ...(argv['include-managed'] ? [`${s.managed} already managed`] : []),
        ...(argv['include-other-owners'] ? [`${s.takeover} of other owners`] : []),
        count(s.modules, 'edge module'),
      ].join(', ');
      const where = { output, split: argv.split, force: argv.force };
      const next = await writeExported(exp, result, where, counts, io);
      if (s.leftOutManaged > 0)
        io.stderr(
          `Left out ${count(s.leftOutManaged, 'resource')} already managed by owner "${argv.owner}" (--include-managed).\n`,
        );
      if (s.leftOutOtherOwners > 0)
        io.stderr(
          `Left out ${count(s.leftOutOtherOwners, 'resource')} of other owners (--include-other-owners).\n`,
        );
      for (const n of s.notes) io.stderr(`Note: ${n}.\n`);
      if (next !== undefined) io.stderr(nextStep(next, s.leftOutManaged, argv.owner));
      setExit(0);
    },
  );

/**
 * The step after writing `file`, one that shows only adopts when followed as written: planned alone, a
 * file without the entries the owner already manages would delete them, so then the step plans it with
 * the files that hold them (which only the user knows), or has them written too.
 */
export function nextStep(file: string, leftOutManaged: number, owner: string): string {
  if (leftOutManaged === 0)
    return `Next: review it, then run accord plan -f ${file} (it should show only adopts).\n`;
  const them = leftOutManaged === 1 ? 'it' : 'them';
  return (
    `Next: review it, then plan it together with the files that hold owner "${owner}"'s ${count(leftOutManaged, 'resource')}: ` +
    `accord plan -f ${file} -f YOUR_FILE... (it should show only adopts). Planned alone, ${file} would delete ${them}; ` +
    `to have ${file} hold ${them} too, export again with --include-managed --force.\n`
  );
}

function exportOptions<T>(b: Argv<T>) {
  return b
    .option('owner', {
      type: 'string',
      default: 'default',
      requiresArg: true,
      describe: 'The owner the file will manage as (its owner: field)',
    })
    .option('output', {
      alias: 'o',
      type: 'string',
      requiresArg: true,
      describe:
        'File to write (the files it names, such as CA PEMs, go beside it); - prints to stdout with them inline [default: accord.yaml]',
    })
    .option('split', {
      type: 'string',
      requiresArg: true,
      describe:
        'Write one file per section into DIR (the files they name, such as CA PEMs, beside them), for accord plan -f DIR; not with -o',
    })
    .option('include-managed', {
      type: 'boolean',
      default: false,
      describe: "Also write resources that already carry this owner's marker",
    })
    .option('include-other-owners', {
      type: 'boolean',
      default: false,
      describe:
        "Also write resources that carry another owner's marker (adopting them needs --allow-takeover)",
    })
    .option('edges', {
      type: 'string',
      array: true,
      requiresArg: true,
      describe: 'TCP (edgtcp_...) and HTTPS (edghts_...) edge IDs whose modules to write, comma-separated',
    })
    .option('force', { type: 'boolean', default: false, describe: 'Overwrite existing files' })
    .example('accord export --owner platform', 'write ./accord.yaml and ./certs/*.pem')
    .example('accord export -o - --edges edgtcp_1,edghts_2', "print the file, with those edges' modules")
    .example('accord export --split accord/shared', 'one file per section, as a start for several files');
}

function checkExportFlags(argv: {
  owner: string;
  split?: string | undefined;
  output?: string | undefined;
}): void {
  if (!OWNER.test(argv.owner)) {
    throw new ExportUsageError(
      `--owner "${argv.owner}" is not a valid owner: use lower-case letters, digits, '.', '_' and '-', starting with a letter or digit, at most 63 characters.`,
    );
  }
  if (argv.split !== undefined && argv.output !== undefined) {
    throw new ExportUsageError(
      `--split ${argv.split} writes one file per section into that directory, and -o names one file: give one of them.`,
    );
  }
}

type ExportModule = typeof import('../../export/index.js');

/**
 * Writes the export where the flags say (with `counts` in the line that says so), or prints it with
 * `-o -`. Returns what `accord plan -f` is then to be given; undefined when it was printed.
 */
async function writeExported(
  exp: ExportModule,
  result: ExportResult,
  where: { output: string; split: string | undefined; force: boolean },
  counts: string,
  io: Io,
): Promise<string | undefined> {
  const { output, split, force } = where;
  if (split === undefined && output === '-') {
    io.stdout(result.yaml);
    io.stderr(`Exported ${counts}.\n`);
    return undefined;
  }
  const saved = {
    ...result,
    yaml: redacted(io, result.yaml),
    files: result.files.map((f) => ({ ...f, content: redacted(io, f.content) })),
    ...(result.split ? { split: result.split.map((f) => ({ ...f, content: redacted(io, f.content) })) } : {}),
  };
  const pems = exp.filesNote(result.files);
  if (split === undefined) {
    await exp.writeExport(resolve(io.cwd, output), saved, force, io.cwd);
    io.stderr(`Wrote ${output}${pems}: ${counts}.\n`);
    await writeSchemaBeside(resolve(io.cwd, output), force, io);
    return output;
  }
  const dir = resolve(io.cwd, split);
  await exp.writeSplitExport(dir, saved, force, io.cwd);
  const documents = (result.split ?? []).map((f) => f.path);
  io.stderr(
    `Wrote ${count(documents.length, 'file')} to ${split} (${documents.join(', ')})${pems}: ${counts}.\n`,
  );
  await writeSchemaBeside(join(dir, documents[0] ?? ''), force, io);
  return split;
}

/**
 * The schema its `$schema` comment names, beside the file, unless one is there already (it may be
 * the user's own copy; --force replaces it). Not having it only costs the editor's help: a note.
 */
async function writeSchemaBeside(file: string, force: boolean, io: Io): Promise<void> {
  const { SCHEMA_FILE, schemaText } = await import('../../config/schema-file.js');
  const { shownPaths, writeNewFiles } = await import('../../new-files.js');
  const path = join(dirname(file), SCHEMA_FILE);
  const refused = await writeNewFiles([{ path, content: schemaText('desired') }], force);
  if (refused === undefined)
    io.stderr(`Wrote ${shownPaths([path], io.cwd)}, the schema its $schema comment names.\n`);
  else if (refused.kind === 'failed')
    io.stderr(
      `Note: could not write ${shownPaths([path], io.cwd)} (${refused.code}); run accord schema > ${SCHEMA_FILE} there for editor completion.\n`,
    );
}

export class ExportUsageError extends AccordError {
  override name = 'ExportUsageError';
  static override readonly code = 'ACCORD_USAGE';
}
