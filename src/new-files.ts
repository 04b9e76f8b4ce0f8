// Writing files a command creates for the user (`accord init`, the schema beside an export): all or
// none refused up front when one exists, each written atomically (a temporary file in the same
// directory, then a link, or a rename with --force), so nothing is ever half written or overwritten
// unasked.
import { randomBytes } from 'node:crypto';
import { link, lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import { dirname, relative } from 'node:path';

export interface NewFile {
  /** Absolute path. */
  path: string;
  content: string;
}

/** Why a file could not be written: the paths that exist already, or the system's error code. */
export type WriteRefusal =
  | { kind: 'exists'; paths: string[] }
  | { kind: 'failed'; path: string; code: string; cause: unknown };

/** The paths among `paths` that exist (as anything: a file, a directory, a link). */
export async function existing(paths: string[]): Promise<string[]> {
  const found = await Promise.all(paths.map(exists));
  return paths.filter((_, i) => found[i]);
}

/**
 * Writes `files` in order, creating their directories. Without `force`, nothing is written when any of
 * them exists. Returns undefined when all were written, else why not (files written before a failure
 * stay: each is whole).
 */
export async function writeNewFiles(files: NewFile[], force: boolean): Promise<WriteRefusal | undefined> {
  if (!force) {
    const there = await existing(files.map((f) => f.path));
    if (there.length > 0) return { kind: 'exists', paths: there };
  }
  for (const f of files) {
    try {
      await mkdir(dirname(f.path), { recursive: true });
      if (!(await writeAtomically(f.path, f.content, force))) return { kind: 'exists', paths: [f.path] };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      return { kind: 'failed', path: f.path, code, cause: err };
    }
  }
  return undefined;
}

/** Paths for a message: relative to `cwd` where that is shorter, at most five, then "and N more". */
export function shownPaths(paths: string[], cwd: string): string {
  const shown = paths.slice(0, 5).map((p) => relative(cwd, p) || p);
  return shown.join(', ') + (paths.length > 5 ? ` and ${paths.length - 5} more` : '');
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

/** False when the file appeared since the check and `force` is off: it is still never overwritten. */
async function writeAtomically(path: string, content: string, force: boolean): Promise<boolean> {
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
      await link(tmp, path);
      await unlink(tmp);
    }
    return true;
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}
