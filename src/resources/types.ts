// What a resource kind is to the planner, reader and applier: one descriptor per kind (STYLE.md).
import type { DesiredManaged, DesiredModule, DesiredState } from '../config/model.js';
import type { ManagedKind, ModuleKind } from '../plan/types.js';
import type { LiveObject } from './values.js';

export interface FieldSpec {
  /** Name in the plan's `before`/`after`/`changed_fields`. */
  name: string;
  /** A difference can only be resolved by replacing the resource. */
  immutable: boolean;
  /** Compared only when the desired value is set (`valid_after`, `valid_until`). */
  optional?: boolean;
  /** Equality of normalized values (default: structural JSON equality). */
  equals?: (live: unknown, desired: unknown) => boolean;
  /** The part of the value `equals` looks at, which the drift fingerprint hashes (with `equals`). */
  identity?: (value: unknown) => unknown;
  /** The request-body field and value that updates it (patchable and module fields). */
  request?: (value: unknown) => [string, unknown];
}

/** A resource with a server-assigned ID, matched by the ownership marker in `metadata`. */
export interface ManagedDescriptor<D extends DesiredManaged = DesiredManaged> {
  kind: ManagedKind;
  /** The file section, the DesiredState field and the address prefix. */
  section: 'ip_restrictions' | 'certificate_authorities' | 'ssh_host_certificates';
  /** Collection path (POST, paged GET) and the list object's array key. */
  collectionPath: string;
  listKey: string;
  idPrefix: string;
  itemPath(id: string): string;
  desired(state: DesiredState): readonly D[];
  /** Kind-specific fields; `description` and the marker (`metadata`, `protect`) are shared. */
  fields: readonly FieldSpec[];
  normalizeLive(live: LiveObject): Record<string, unknown>;
  /**
   * The plan's `after` values of an entry: what is compared, plus what a create sends that comparing
   * does not need (a CA's PEM text, `valid_for`), so that requests derive from what the plan shows.
   */
  normalizeDesired(desired: D): Record<string, unknown>;
  /**
   * The POST body without `description` and `metadata` (src/plan/requests.ts adds them), from the
   * plan's `after` values: never from the desired entry, so `apply FILE` derives the same body.
   * `now` is the plan's `created_at`.
   */
  createBody(after: PlanValues, now: Date): Record<string, unknown>;
  /** Why the shown `after` values contradict each other (a PEM that is not the one summarized). */
  checkAfter?(after: PlanValues): string | undefined;
  /** The one-per-value rule the service enforces, named for people (`IP restriction of type api`). */
  slot?(values: Record<string, unknown>): string;
  /** A reason to replace a matched live object although its values agree (SSH certificate renewal). */
  renewal?(desired: D, live: Record<string, unknown>, now: Date): { replace?: string; warning?: string };
  /** Warnings about a desired entry (CA expiry). */
  warnings?(desired: D, now: Date): string[];
}

/** An edge module: natural identity, no metadata; only modules named in the file are read or touched. */
export interface ModuleDescriptor<D extends DesiredModule = DesiredModule> {
  kind: ModuleKind;
  desired(state: DesiredState): readonly D[];
  address(module: ModuleIdentity): string;
  /** The inverse of `address`: which edge (and route) an address names; undefined if none. */
  identify(address: string): ModuleIdentity | undefined;
  /** The module's identity (`edgtcp_x`, `edghts_x.edghtsrt_y`) and the ID it hangs on. */
  key(module: ModuleIdentity): string;
  id(module: ModuleIdentity): string;
  path(module: ModuleIdentity): string;
  fields: readonly FieldSpec[];
  normalizeLive(live: LiveObject): Record<string, unknown>;
  normalizeDesired(desired: D): Record<string, unknown>;
  /** The PUT body, from the plan's `after` values. */
  putBody(after: PlanValues): Record<string, unknown>;
}

/** What names an edge module: its edge, and for a route's module the route. */
export interface ModuleIdentity {
  edge_id: string;
  route_id?: string;
}

/** A change's `before` or `after` values as the plan holds them (from a file: unchecked JSON). */
export type PlanValues = Readonly<Record<string, unknown>>;

export type Descriptor = ManagedDescriptor | ModuleDescriptor;

export function isManaged(d: Descriptor): d is ManagedDescriptor {
  return 'collectionPath' in d;
}
