// The plan's `config_digest` (DESIGN §1 "Several files"): every desired-state file and every file they
// name, by path relative to the working directory. Sorted by that path, so the same files given in
// another order (the same desired state: files never override each other) have the same digest. Its
// `file_digests` hold each file's own, so that a refused saved plan names the file that changed.
import { createHash } from 'node:crypto';
import { relative, sep } from 'node:path';

export interface DigestedFile {
  /** Absolute. */
  path: string;
  content: Uint8Array | string;
}

export function configDigest(files: readonly DigestedFile[], cwd: string): string {
  const byName = byRelativeName(files, cwd);
  const hash = createHash('sha256');
  for (const name of [...byName.keys()].sort()) {
    const content = byName.get(name)!;
    // Length-prefixed, so that no name or content can pass for another's.
    hash.update(`${Buffer.byteLength(name)}:${name}${Buffer.byteLength(content)}:`);
    hash.update(content);
  }
  return hash.digest('hex');
}

/** sha256 hex of each file, by its path relative to `cwd` (`/`-separated), sorted by that path. */
export function fileDigests(files: readonly DigestedFile[], cwd: string): Record<string, string> {
  const byName = byRelativeName(files, cwd);
  const digests: Record<string, string> = {};
  for (const name of [...byName.keys()].sort()) {
    digests[name] = createHash('sha256').update(byName.get(name)!).digest('hex');
  }
  return digests;
}

function byRelativeName(files: readonly DigestedFile[], cwd: string): Map<string, Uint8Array | string> {
  const byName = new Map<string, Uint8Array | string>();
  for (const f of files) byName.set(relative(cwd, f.path).split(sep).join('/'), f.content);
  return byName;
}
