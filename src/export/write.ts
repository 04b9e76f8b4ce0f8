// Writing an export: the YAML and the files it references, each atomically (src/new-files.ts),
// never over an existing file unless asked.
import { dirname, join, relative } from 'node:path';
import { writeNewFiles } from '../new-files.js';
import type { ExportFile, ExportResult } from './document.js';
import { ExportError } from './read.js';

/**
 * Writes `result` to `file` (an absolute path) and its files beside it; returns the paths written,
 * the YAML last. Without `force`, refuses when any of them exists, before writing anything.
 */
export async function writeExport(
  file: string,
  result: ExportResult,
  force: boolean,
  cwd: string,
): Promise<string[]> {
  const dir = dirname(file);
  const targets = [
    ...result.files.map((f) => ({ path: join(dir, ...f.path.split('/')), content: f.content })),
    // The YAML last: it never names a file that is not there yet.
    { path: file, content: result.yaml },
  ];
  return writeTargets(targets, file, force, cwd);
}

/**
 * `accord export --split DIR`: the documents of `result.split` into `dir` (an absolute path) and
 * their files beside them; returns the paths written, the YAML last. Refuses as writeExport does.
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

/** Writes the targets; a refusal names `first` (the file the user asked for) first. */
async function writeTargets(
  targets: { path: string; content: string }[],
  first: string,
  force: boolean,
  cwd: string,
): Promise<string[]> {
  const refused = await writeNewFiles(targets, force);
  if (refused?.kind === 'exists') {
    const paths = refused.paths.includes(first)
      ? [first, ...refused.paths.filter((p) => p !== first)]
      : refused.paths;
    throw refuse(paths.map((p) => relative(cwd, p) || p));
  }
  if (refused?.kind === 'failed') {
    throw new ExportError(
      `cannot write ${relative(cwd, refused.path) || refused.path} (${refused.code}); check that its directory exists and is writable and that the path is not a directory.`,
      { cause: refused.cause },
    );
  }
  return targets.map((t) => t.path);
}

function refuse(paths: string[]): ExportError {
  const shown = paths.slice(0, 5).join(', ') + (paths.length > 5 ? ` and ${paths.length - 5} more` : '');
  return new ExportError(
    `${shown} already ${paths.length === 1 ? 'exists' : 'exist'}; accord export does not overwrite files. ` +
      `Pass --force to replace ${paths.length === 1 ? 'it' : 'them'}, or choose another file with -o.`,
  );
}
