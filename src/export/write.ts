// Writing an export: the YAML and the files it references, each atomically (a temporary file in the
// same directory, then a link or rename), never over an existing file unless asked.
import { randomBytes } from 'node:crypto';
import { link, lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
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
  return writeTargets(
    [
      ...result.files.map((f) => ({ path: join(dir, ...f.path.split('/')), content: f.content })),
      // The YAML last: it never names a file that is not there yet.
      { path: file, content: result.yaml },
    ],
    force,
    cwd,
  );
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
  return writeTargets([...result.files.map(at), ...(result.split ?? []).map(at)], force, cwd);
}

/** Writes each target, the last named first in a refusal (it is the file the user asked for). */
async function writeTargets(
  targets: { path: string; content: string }[],
  force: boolean,
  cwd: string,
): Promise<string[]> {
  if (!force) {
    const paths = [...targets.slice(-1), ...targets.slice(0, -1)].map((t) => t.path);
    const found = await Promise.all(paths.map(exists));
    const existing = paths.filter((_, i) => found[i]);
    if (existing.length > 0) throw refuse(existing.map((p) => relative(cwd, p) || p));
  }
  for (const t of targets) {
    try {
      await mkdir(dirname(t.path), { recursive: true });
      await writeAtomically(t.path, t.content, force, cwd);
    } catch (err) {
      if (err instanceof ExportError) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      throw new ExportError(
        `cannot write ${relative(cwd, t.path) || t.path} (${code}); check that its directory exists and is writable and that the path is not a directory.`,
        { cause: err },
      );
    }
  }
  return targets.map((t) => t.path);
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

function refuse(paths: string[]): ExportError {
  const shown = paths.slice(0, 5).join(', ') + (paths.length > 5 ? ` and ${paths.length - 5} more` : '');
  return new ExportError(
    `${shown} already ${paths.length === 1 ? 'exists' : 'exist'}; accord export does not overwrite files. ` +
      `Pass --force to replace ${paths.length === 1 ? 'it' : 'them'}, or choose another file with -o.`,
  );
}

async function writeAtomically(path: string, content: string, force: boolean, cwd: string): Promise<void> {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(tmp, 'wx', 0o644);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    if (force) await rename(tmp, path);
    else {
      // link() fails when the target appeared since the check: still never overwrites.
      await link(tmp, path);
      await unlink(tmp);
    }
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw refuse([relative(cwd, path) || path]);
    throw err;
  }
}
