// Loading the desired-state files: read and parse each with positions, validate it against the schema,
// run the client-side checks, normalize into one desired model, and check what concerns several
// files (DESIGN §1).
import { managedDescriptors, moduleDescriptors } from '../resources/index.js';
import { isRecord } from '../resources/values.js';
import { configDigest, fileDigests } from './digest.js';
import { checkGuardsAcrossFiles } from './guards.js';
import { checkAcrossFiles, ownerOf, reportDefinedTwice, sectionKeys } from './merge.js';
import type { DesiredModule, DesiredState } from './model.js';
import { normalize } from './normalize.js';
import { expandPaths } from './paths.js';
import { ConfigError, type Problem } from './problems.js';
import { schemaProblems } from './schema.js';
import { readYamlSource, type YamlSource } from './source.js';

export type { AccordFile } from './generated/accord-file.js';
export type { DesiredGuard } from './guard-model.js';
export type * from './model.js';
export { DEFAULT_FILE, desiredPaths } from './paths.js';
export { ConfigError, formatProblem, type Problem } from './problems.js';

/**
 * Loads and checks the desired state of `paths` (files, or directories standing for their YAML files;
 * relative to `cwd`). Throws ConfigError carrying every problem of every file; makes no network
 * request. Files are named in messages as given.
 */
export async function loadDesiredState(
  paths: string | readonly string[],
  cwd: string = process.cwd(),
): Promise<DesiredState> {
  const { files, problems } = await expandPaths(typeof paths === 'string' ? [paths] : paths, cwd);
  const reads = await Promise.all(files.map((f) => readYamlSource(f.shown, f.path)));
  const sources: YamlSource[] = [];
  for (const read of reads) {
    if (read.ok) sources.push(read.source);
    else problems.push(...read.problems);
  }
  // Every file validates on its own; the checks across files run even when one has problems, so that
  // one run reports everything. They skip values of the wrong shape, which the schema has reported.
  for (const source of sources) problems.push(...schemaProblems(source));
  const owner = ownerOf(sources);
  problems.push(...owner.problems);
  const context = { owner: owner.owner, keys: sectionKeys(sources) };
  const read = await Promise.all(
    sources.map(async (source) => {
      const file = files.find((f) => f.shown === source.file)!;
      return { file, ...(await normalize(source, file.path, context)) };
    }),
  );
  const state = {
    files: read.map((r) => r.file),
    owner: owner.owner,
    digest: '',
  } as Record<string, unknown>;
  for (const d of managedDescriptors) state[d.section] = read.flatMap((r) => r.lists[d.section] ?? []);
  for (const d of moduleDescriptors) state[d.list] = read.flatMap((r) => r.lists[d.list] ?? []);
  state['guards'] = read.flatMap((r) => r.guards);
  state['written'] = managedDescriptors
    .filter((d) => sources.some((s) => isRecord(s.data) && isRecord(s.data[d.section])))
    .map((d) => d.section);
  const desired = state as DesiredState;
  const readers = read.map((r) => r.reader);
  if (readers.length > 0) {
    reportDefinedTwice(
      readers,
      read.map((r) => moduleDescriptors.flatMap((d) => (r.lists[d.list] ?? []) as DesiredModule[])),
    );
    checkAcrossFiles(desired, readers);
    checkGuardsAcrossFiles(read, desired);
  }
  for (const r of readers) problems.push(...r.problems);
  if (problems.length > 0)
    throw new ConfigError(
      inFileOrder(
        problems,
        files.map((f) => f.shown),
      ),
    );
  const digested = [
    ...sources.map((s, i) => ({ path: read[i]!.file.path, content: s.bytes })),
    ...readers.flatMap((r) => r.referenced().map((f) => ({ path: f.path, content: f.text }))),
  ];
  desired.digest = configDigest(digested, cwd);
  desired.fileDigests = fileDigests(digested, cwd);
  return desired;
}

/** Problems file by file, in the order the files were given (a path without a file first). */
function inFileOrder(problems: readonly Problem[], shown: readonly string[]): Problem[] {
  const rank = (p: Problem) => shown.indexOf(p.file);
  return [...problems].sort((a, b) => rank(a) - rank(b));
}
