// Loading accord.yaml: read and parse with positions, validate against the schema, run the client-side
// checks, normalize into the desired model (DESIGN §1).
import { resolve } from 'node:path';
import type { DesiredState } from './model.js';
import { normalize } from './normalize.js';
import { ConfigError } from './problems.js';
import { schemaProblems } from './schema.js';
import { readYamlSource } from './source.js';

export type { AccordFile } from './generated/accord-file.js';
export {
  APPLIED_MAX_CHARS,
  decodeMarker,
  encodeMarker,
  entryBudgetLeft,
  type Marker,
  type MarkerExtras,
  METADATA_MAX_BYTES,
  markerBudgetLeft,
  type UnknownMarkerFields,
} from './marker.js';
export type * from './model.js';
export { ConfigError, formatProblem, type Problem } from './problems.js';

/**
 * Loads and checks a desired-state file. Throws ConfigError carrying every problem found; makes no
 * network request. `file` is named in messages as given.
 */
export async function loadDesiredState(file: string, cwd: string = process.cwd()): Promise<DesiredState> {
  const absPath = resolve(cwd, file);
  const read = await readYamlSource(file, absPath);
  if (!read.ok) throw new ConfigError(read.problems);
  const problems = schemaProblems(read.source);
  // Client-side checks also run on a file with schema problems, so that one run reports everything;
  // they skip values of the wrong shape, which the schema has already reported.
  const normalized = normalize(read.source, absPath);
  problems.push(...normalized.problems);
  if (problems.length > 0 || !normalized.state) throw new ConfigError(problems);
  return normalized.state;
}
