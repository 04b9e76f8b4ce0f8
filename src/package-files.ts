// Files the package ships beside its code (package.json, schemas/, examples/ci/), found from its root.
// This module runs from src/ (tests), dist/ (the library) and dist/cli/ (the command's bundle), each at
// another depth, so no fixed `../..` from it holds for all three.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function packageRoot(from: string): string {
  for (let dir = dirname(from); ; ) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`accord's package.json was not found above ${from}; reinstall accord.`);
    dir = up;
  }
}

/** accord's own directory: where its package.json is, and where `npm rebuild` must run. */
export const PACKAGE_ROOT = packageRoot(fileURLToPath(import.meta.url));

/** A file the package ships, by its path inside the package (`schemas/accord.schema.json`). */
export function packageFile(path: string): string {
  return join(PACKAGE_ROOT, ...path.split('/'));
}
