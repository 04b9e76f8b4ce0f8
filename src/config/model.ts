// The desired model: what a validated accord.yaml normalizes to. The contract between src/config
// (which produces it) and src/plan (which consumes it). Values are normalized for comparison
// (DESIGN §3): sets sorted and deduplicated, timestamps as ISO instants, public keys canonical. Its
// sections derive from the resource registry (src/resources/index.ts); each kind's entry type is in
// its descriptor file.
import type { DesiredSections } from '../resources/index.js';
import type { DesiredGuard } from './guard-model.js';

export type {
  DesiredManaged,
  DesiredModule,
  DesiredResource,
  SharedFields,
  SourceLocation,
} from '../resources/index.js';

/**
 * What a validated accord.yaml normalizes to (DESIGN §3): each kind's entries in file order under its
 * section (a module kind: its `list`), with where they were read from and whose they are.
 */
export type DesiredState = {
  /** The files it was read from, in the order read (DESIGN §1 "Several files"). */
  files: readonly DesiredFile[];
  /** sha256 hex of the files and every file they name (src/config/digest.ts). */
  digest: string;
  /** sha256 hex of each of those files, by path relative to the working directory; as loaded from files. */
  fileDigests?: Readonly<Record<string, string>>;
  owner: string;
  /**
   * The managed sections the files write, an empty one (`cloud_endpoints: {}`) included: a kind listed
   * only when its section is written (`listedOnlyWhenWritten`) is listed for these. Undefined (a state
   * built by hand): the sections that have entries.
   */
  written?: readonly string[];
  /** What the reach of each scope must satisfy (DESIGN §1 "Guards"), in file order; none when absent. */
  guards?: readonly DesiredGuard[];
} & DesiredSections;

/** A desired-state file: as messages name it, and where it is. */
export interface DesiredFile {
  /** The path as given (a file of a directory: the directory as given, `/`, its name). */
  shown: string;
  /** Absolute. */
  path: string;
}
