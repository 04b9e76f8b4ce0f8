// Writing an export: the YAML and the files it references, each atomically (a temporary file in the
// same directory, then a link or rename), never over an existing file unless asked.
import { randomBytes } from 'node:crypto';
import { link, lstat, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { ExportResult } from './document.js';
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
  const all = [
    ...result.files.map((f) => ({ path: join(dir, ...f.path.split('/')), content: f.content })),
    // The YAML last: it never names a file that is not there yet.
    { path: file, content: result.yaml },
  ];
  const found = await Promise.all(all.map((t) => existing(t.path)));
  const targets = all.filter((t, i) => found[i] !== t.content);
  if (!force) {
    const taken = targets.filter((t) => found[all.indexOf(t)] !== undefined).map((t) => t.path);
    // The YAML named first: it is the file the user asked for.
    taken.sort((a, b) => Number(b === file) - Number(a === file));
    if (taken.length > 0) {
      throw refuse(
        taken.map((p) => relative(cwd, p) || p),
        taken.some((p) => p !== file),
      );
    }
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

/** The text of a file that exists (`null` when it is not a readable regular file), undefined if none. */
async function existing(path: string): Promise<string | null | undefined> {
  if (!(await exists(path))) return undefined;
  try {
    return (await lstat(path)).isFile() ? await readFile(path, 'utf8') : null;
  } catch {
    return null;
  }
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

/**
 * Refuses to overwrite `paths`. Another name with -o helps only when the YAML alone is in the way: the
 * CA certificates always go to certs/ beside it.
 */
function refuse(paths: string[], certificates: boolean): ExportError {
  const shown = paths.slice(0, 5).join(', ') + (paths.length > 5 ? ` and ${paths.length - 5} more` : '');
  const one = paths.length === 1;
  const elsewhere = certificates
    ? 'or export into another directory (-o DIR/accord.yaml), since CA certificates go to certs/ beside the file'
    : 'or choose another file with -o';
  return new ExportError(
    `${shown} already ${one ? 'exists' : 'exist'} with other contents; accord export does not overwrite files. ` +
      `Pass --force to replace ${one ? 'it' : 'them'}, ${elsewhere}.`,
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
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw refuse([relative(cwd, path) || path], false);
    throw err;
  }
}
