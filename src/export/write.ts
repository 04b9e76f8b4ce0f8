// Writing an export: the YAML and the files it references, each atomically (src/new-files.ts),
// never over an existing file unless asked.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { writeNewFiles } from '../new-files.js';
import { count } from '../plural.js';
import type { ExportFile, ExportResult } from './document.js';
import { ExportError } from './read.js';

/**
 * Writes `result` to `file` (an absolute path) and its files beside it; returns the paths written,
 * the YAML last. A file already there with exactly the content it would get is left as it is (an
 * export again beside an earlier one shares its certs/). Without `force`, refuses when any other file
 * it would write exists, before writing anything.
 */
export async function writeExport(
  file: string,
  result: ExportResult,
  force: boolean,
  cwd: string,
): Promise<string[]> {
  const dir = dirname(file);
  return writeTargets(
    [
      ...result.files.map((f) => ({ path: join(dir, ...f.path.split('/')), content: f.content })),
      // The YAML last: it never names a file that is not there yet.
      { path: file, content: result.yaml },
    ],
    file,
    force,
    cwd,
  );
}

/**
 * `accord export --split DIR`: the documents of `result.split` into `dir` (an absolute path) and
 * their files beside them, as writeExport writes one file; returns the paths written, the YAML last.
 */
export async function writeSplitExport(
  dir: string,
  result: ExportResult,
  force: boolean,
  cwd: string,
): Promise<string[]> {
  const at = (f: ExportFile) => ({ path: join(dir, ...f.path.split('/')), content: f.content });
  const documents = (result.split ?? []).map(at);
  return writeTargets([...result.files.map(at), ...documents], documents[0]?.path ?? dir, force, cwd);
}

/** Writes what `all` would change; a refusal names `first` (the file the user asked for) first. */
async function writeTargets(
  all: { path: string; content: string }[],
  first: string,
  force: boolean,
  cwd: string,
): Promise<string[]> {
  const same = await Promise.all(all.map((t) => holds(t.path, t.content)));
  const targets = all.filter((_, i) => !same[i]);
  const refused = await writeNewFiles(targets, force);
  if (refused?.kind === 'exists') {
    const paths = refused.paths.includes(first)
      ? [first, ...refused.paths.filter((p) => p !== first)]
      : refused.paths;
    throw refuse(
      paths.map((p) => relative(cwd, p) || p),
      paths.some((p) => p !== first),
    );
  }
  if (refused?.kind === 'failed') {
    throw new ExportError(
      `cannot write ${relative(cwd, refused.path) || refused.path} (${refused.code}); check that its directory exists and is writable and that the path is not a directory.`,
      { cause: refused.cause },
    );
  }
  return targets.map((t) => t.path);
}

/** Whether `path` is a file holding exactly `content`. */
async function holds(path: string, content: string): Promise<boolean> {
  try {
    return (await readFile(path, 'utf8')) === content;
  } catch {
    return false;
  }
}

/**
 * What the files an export names beside its YAML are, for the line saying what was written: how many,
 * under which directories (` and 2 files under certs/ and keys/`); '' for none. Each kind's descriptor
 * chooses its files (`exportFields`), so this names no kind.
 */
export function filesNote(files: readonly ExportFile[]): string {
  if (files.length === 0) return '';
  const dirs = [...new Set(files.map((f) => f.path.split('/').slice(0, -1).join('/')))].sort();
  const under = dirs.filter((d) => d !== '').map((d) => `${d}/`);
  const where = [
    ...(dirs.includes('') ? ['beside it'] : []),
    ...(under.length > 0 ? [`under ${under.join(' and ')}`] : []),
  ];
  return ` and ${count(files.length, 'file')} ${where.join(' and ')}`;
}

/**
 * Refuses to overwrite `paths`. Another name with -o helps only when the YAML alone is in the way: the
 * files it names (a CA's PEM) always go beside it.
 */
function refuse(paths: string[], namedFiles: boolean): ExportError {
  const shown = paths.slice(0, 5).join(', ') + (paths.length > 5 ? ` and ${paths.length - 5} more` : '');
  const one = paths.length === 1;
  const elsewhere = namedFiles
    ? 'or export into another directory (-o DIR/accord.yaml), since the files it names go beside the file'
    : 'or choose another file with -o';
  return new ExportError(
    `${shown} already ${one ? 'exists' : 'exist'} with other contents; accord export does not overwrite files. ` +
      `Pass --force to replace ${one ? 'it' : 'them'}, ${elsewhere}.`,
  );
}
