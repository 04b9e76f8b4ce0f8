// Which desired-state files a command reads (DESIGN §1 "Several files"): the paths given with -f, else
// ACCORD_FILES, else accord.yaml; a directory stands for its *.yaml and *.yml files in name order.
import { readdir, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { DesiredFile } from './model.js';
import type { Problem } from './problems.js';

export const DEFAULT_FILE = 'accord.yaml';

/**
 * The paths a command reads: `-f` on the command line wins over `ACCORD_FILES` (colon-separated; empty
 * parts are ignored, as a trailing colon is easy to leave), and `accord.yaml` is the default.
 */
export function desiredPaths(
  given: readonly string[] | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  if (given !== undefined && given.length > 0) return [...given];
  const listed = (env['ACCORD_FILES'] ?? '').split(':').filter((p) => p.trim() !== '');
  return listed.length > 0 ? listed : [DEFAULT_FILE];
}

/** Which of the three `desiredPaths` took its paths from, for messages. */
export function desiredPathsSource(
  given: readonly string[] | undefined,
  env: Readonly<Record<string, string | undefined>>,
): '-f' | 'ACCORD_FILES' | 'the default' {
  if (given !== undefined && given.length > 0) return '-f';
  return (env['ACCORD_FILES'] ?? '').split(':').some((p) => p.trim() !== '') ? 'ACCORD_FILES' : 'the default';
}

/** Names a directory stands for: `*.yaml` and `*.yml`, not hidden (as the shell's `*` matches). */
const YAML_NAME = /^[^.].*\.ya?ml$/;

/**
 * The files `paths` stand for, in order, each once (a file named twice, directly or through its
 * directory, is read once, where it first appears). A path that is not a directory is taken as a
 * file, and reading it reports what is wrong with it; a directory without YAML files is a problem.
 */
export async function expandPaths(
  paths: readonly string[],
  cwd: string,
): Promise<{ files: DesiredFile[]; problems: Problem[] }> {
  const files: DesiredFile[] = [];
  const problems: Problem[] = [];
  const seen = new Set<string>();
  const add = (shown: string, path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    files.push({ shown, path });
  };
  for (const given of paths) {
    const path = resolve(cwd, given);
    const names = await yamlFilesIn(path);
    if (names === undefined) add(given, path);
    else if (names.length === 0) {
      problems.push({
        file: given,
        line: 0,
        col: 0,
        path: '',
        message:
          'is a directory without *.yaml or *.yml files; put the desired-state files there, or name the files themselves with -f FILE',
      });
    } else {
      const dir = given.replace(/[\\/]+$/, '');
      for (const name of names) add(`${dir}/${name}`, resolve(path, name));
    }
  }
  return { files, problems };
}

/** The YAML files of `path` in name order, not recursive; undefined when `path` is not a directory. */
async function yamlFilesIn(path: string): Promise<string[] | undefined> {
  try {
    if (!(await stat(path)).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  const names = (await readdir(path)).filter((n) => YAML_NAME.test(n));
  const regular = await Promise.all(
    names.map((n) =>
      stat(resolve(path, n)).then(
        (s) => s.isFile(),
        () => false,
      ),
    ),
  );
  // Code-unit order: the same on every machine, whatever its locale.
  return names.filter((_, i) => regular[i]).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
