// What a resource kind is to the reader, planner, applier and exporter: one descriptor per kind, in a
// file of its own with the type of its entries (STYLE.md). Nothing here names a kind: the registry
// (index.ts) lists the descriptors and derives the kind types, the desired state and every kind list.
import type { AccordFile } from '../config/generated/accord-file.js';
import type { PlannedId } from './known-after-apply.js';
import type { LiveObject } from './values.js';
import type { DescriptorWarning } from './warnings.js';

export type { DescriptorWarning } from './warnings.js';

export interface SourceLocation {
  file: string;
  line: number;
  col: number;
}

/** What every entry of a managed kind holds besides its own fields (the file's shared entry fields). */
export interface SharedFields {
  /** The entry's key in the file: [a-z0-9][a-z0-9._-]{0,62}. */
  key: string;
  /** `id:` for adoption, when the entry names one. */
  id?: string;
  /** "" when the file omits it. */
  description: string;
  /** The entry's own `metadata` (any YAML value), stored under `data` in the marker; undefined when unset. */
  data?: unknown;
  /** lifecycle.prevent_destroy */
  protect: boolean;
  loc: SourceLocation;
}

/** An entry of a managed kind as the desired state holds it (values normalized for comparison). */
export interface ManagedEntry extends SharedFields {
  kind: string;
}

/** What names an edge module: its edge, and for a route's module the route. */
export interface ModuleIdentity {
  edge_id: string;
  route_id?: string;
}

/** An edge module as the desired state holds it. */
export interface ModuleEntry extends ModuleIdentity {
  kind: string;
  /** "absent" deletes the module's configuration. */
  state: 'present' | 'absent';
  loc: SourceLocation;
}

/** How messages name a kind: `1 IP restriction`, `2 certificate authorities`. */
export interface Nouns {
  one: string;
  many: string;
}

/** A step of a path in the file: a mapping key or a sequence index. */
export type PathSegment = string | number;

/** An entry of section `S` as the file holds it (src/config/generated/accord-file.ts). */
export type WrittenEntry<S extends string> = S extends keyof AccordFile
  ? NonNullable<AccordFile[S]> extends Readonly<Record<string, infer E>>
    ? E
    : never
  : never;

/** What reading entries from the file may use besides the file itself (src/config/normalize.ts). */
export interface EntryReader {
  /** A problem with the value at `path`, reported with its line and column; reading goes on. */
  report(path: readonly PathSegment[], message: string): void;
  /** Where the key at `path` is, kept in the entry for later messages. */
  loc(path: readonly PathSegment[]): SourceLocation;
  /**
   * The text of a field given inline (`ca_pem`, at `at`) or in the file its sibling `fileField`
   * (`ca_pem_file`) names, relative to the desired-state file. Undefined when neither is set, or when
   * the file cannot be read (then reported). `where` and `label` name the source in messages.
   */
  content(
    at: readonly PathSegment[],
    inline: string | undefined,
    fileField: string,
    fileName: string | undefined,
    /** Default src/config/files.ts's MAX_REFERENCED_FILE_BYTES. */
    maxBytes?: number,
  ): { text: string; where: PathSegment[]; label: string } | undefined;
  /**
   * The value at `path` names an entry of `section` by key, or a live object by ID: checked once every
   * section is read (an unknown key is reported, with the nearest key).
   */
  reference(
    path: readonly PathSegment[],
    section: string,
    value: string,
    /** Where to report an unknown key, when the value is not in this file (a document file's). */
    at?: DocumentAt,
  ): void;
  /**
   * The YAML (or JSON) document of the file `fileField` (at `at`) names, relative to the desired-state
   * file, checked against the schema's definition `definition`: problems of the file, of its YAML and
   * of the definition are reported at its own lines and columns. Undefined when it cannot be read or
   * parsed (reported); its `data` may still have problems of the definition (reported: skip them).
   */
  document(at: readonly PathSegment[], fileName: string, definition: 'trafficPolicy'): DocumentAt | undefined;
  /** `compute()` once per file load for each `key`: several entries often name one file. */
  memo<T>(key: string, compute: () => T): T;
  /**
   * The keys of a managed section over every file of the desired state, this one included: a
   * reference by key may name an entry of another file (DESIGN §1 "Several files").
   */
  keys(section: string): ReadonlySet<string>;
}

/** A document read from a file of its own (EntryReader's `document`): its data, and where its problems go. */
export interface DocumentAt {
  data: unknown;
  /** A problem with the value at `path` within the document, reported at its line and column there. */
  report(path: readonly PathSegment[], message: string): void;
}

/** What writing an entry for `accord export` may use besides the live object. */
export interface ExportContext {
  /** The entry's key in the file being written. */
  key: string;
  /** Write referenced content (a CA's PEM) inline rather than to a file beside the YAML. */
  inline: boolean;
  /** For comments on what has expired; undefined: no such comments. */
  now?: Date;
  /** A comment line above the entry (a leading space, no `#`). */
  comment(line: string): void;
  /** A file beside the YAML, by its '/'-separated path relative to it. */
  file(path: string, content: string): void;
}

/** A module `accord export` read: null when it is not configured (or there is no such edge). */
export interface FoundModule {
  identity: ModuleIdentity;
  live: LiveObject | null;
}

export interface FieldSpec {
  /** Name in the plan's `before`/`after`/`changed_fields`. */
  name: string;
  /** A difference can only be resolved by replacing the resource. */
  immutable: boolean;
  /**
   * A part of a mutable value that cannot change in place (a URL's scheme): a difference of that part
   * is resolved by replacing the resource, and the plan names the part.
   */
  immutablePart?: { name: string; of: (value: unknown) => unknown };
  /** Compared only when the desired value is set (`valid_after`, `valid_until`). */
  optional?: boolean;
  /** Equality of normalized values (default: structural JSON equality). */
  equals?: (live: unknown, desired: unknown) => boolean;
  /** The part of the value `equals` looks at, which the drift fingerprint hashes (with `equals`). */
  identity?: (value: unknown) => unknown;
  /** The request-body field and value that updates it (patchable and module fields). */
  request?: (value: unknown) => [string, unknown];
  /**
   * The section whose entries the value names (a string or a list): by key in the file, which the
   * planner resolves to the live ID or to the ID known after apply of `SECTION.KEY`, or by live ID.
   */
  references?: string;
  /**
   * References inside a structured value (a traffic policy's `restrict-ips` policies): `map` returns a
   * copy of the value with each reference to `section` replaced by `each(reference)` (each list of them
   * a sorted set again); the planner resolves them as `references` (live ID or known after apply, with
   * the dependency), and `accord export` writes IDs of exported objects as their keys.
   */
  referencesWithin?: { section: string; map(value: unknown, each: (ref: string) => PlannedId): unknown };
}

/** A line of a structured change: `+` added, `-` removed, `~` changed, ` ` what it is in; `depth` its indent. */
export interface DiffLine {
  sign: '+' | '-' | '~' | ' ';
  depth: number;
  text: string;
}

/** Normalized values: a live object's (`normalizeLive`) or an entry's (`normalizeDesired`, a plan's `after`). */
export type Values = Readonly<Record<string, unknown>>;

/**
 * What a restriction (or a module that restricts) does to traffic, read from its values: the service
 * lets a source through a restriction in force only when an `allow` rule of its policies matches and
 * no `deny` rule of them does; one not in force lets everything through.
 */
export interface Restriction {
  /** What it restricts: `dashboard`, `api`, `agent`, `endpoints`, or `tcp_edges.<edge id>`. */
  scope: string;
  /** How messages name the scope: `dashboard`, `TCP edge edgtcp_x`. */
  name: string;
  /** Enforced (a restriction) or enabled (a module): only its policies' allows get through. */
  inForce: boolean;
  /** The policies it names: IDs, known after apply for those a plan makes. */
  policies: PlannedId[];
}

/** An endpoint as traffic sees it, read from its values (live or planned). */
export interface EndpointPolicy {
  /** Its URL: how scopes, guards and messages name it. */
  url: string;
  /**
   * Its traffic policy document, parsed (a mapping of phases to rules); undefined when it has none or
   * its text does not parse. In a plan's values a `restrict-ips` action's `ip_policies` hold live IDs,
   * or known-after-apply references for policies the plan makes, as a restriction's `policies` do.
   */
  document: Readonly<Record<string, unknown>> | undefined;
}

/** A rule of a policy, read from its values. */
export interface TrafficRule {
  /** The ID of its policy, known after apply when a plan makes it. */
  policy: PlannedId;
  action: 'allow' | 'deny';
  /** Canonical. */
  cidr: string;
}

/**
 * What a kind means to the traffic the service lets through (src/traffic/order.ts orders changes,
 * refuses lockouts and deletes of policies in use by these alone; no other module asks a kind's name):
 * - `policy`: its objects are what rules belong to and restrictions name;
 * - `rule`: an allow or deny of a CIDR in a policy;
 * - `restriction`: it restricts a scope to its policies; `field` is the field of its values that lists
 *   them, and `key` is its entry's key (a module's identity: its edge).
 */
export type TrafficRole =
  | { role: 'policy' }
  /** An endpoint: a scope of its own, decided by its traffic policy's `restrict-ips` actions. */
  | { role: 'endpoint'; endpoint(values: Values): EndpointPolicy }
  | { role: 'rule'; rule(values: Values): TrafficRule }
  | {
      role: 'restriction';
      field: string;
      restricts(values: Values, key: string): Restriction;
      /** The most policies the service lets one name (it refuses more); none: no limit. */
      maxPolicies?: number;
      /**
       * The service refuses to delete a policy that one of its objects names (ERR_NGROK_1420), so a
       * policy's delete waits for every change that stops one naming it; false: the delete goes through
       * and leaves the object naming a policy with no rules.
       */
      keepsPolicies: boolean;
      /**
       * Whether the service refuses to delete the only rule of a policy that the object with these
       * values names (ERR_NGROK_1419: the dashboard IP restriction's); none: it never does.
       */
      protectsLastRule?(values: Values): boolean;
    };

/**
 * A kind whose entries the file writes inside another managed kind's entries (a policy's rules). It has
 * no section of its own (`read` is never called), its addresses are under the parent's section, and a
 * live object is matched within its parent's live object by `identity`, whatever its marker says: the
 * parent owns its whole set of them.
 */
export interface Nested<D> {
  /** The parent kind's section. */
  section: string;
  /** The entries one parent entry holds. */
  entries(parent: ManagedEntry): D[];
  /** The ID of the live parent a live object belongs to, from its normalized values. */
  parentId(values: Readonly<Record<string, unknown>>): string;
  /** What names an object within its parent (normalized values); one object per parent and identity. */
  identity(values: Readonly<Record<string, unknown>>): string;
  /** The entry key (and marker key) of the object with this identity in the parent with this key. */
  key(parentKey: string, identity: string): string;
  /** The inverse of `key`: the key of the parent an entry key belongs to. */
  parentKey(key: string): string;
  /** The parent entry's field that lists them (`rules`), and how `accord export` writes one there. */
  field: string;
  exportEntry(live: LiveObject): Record<string, unknown>;
}

/**
 * A resource with a server-assigned ID, matched by the ownership marker in `metadata`. `D` is its
 * entry, `S` its section of the file (also its DesiredState field and its address prefix).
 */
export interface ManagedDescriptorOf<D extends ManagedEntry, S extends string> {
  kind: D['kind'];
  section: S;
  nouns: Nouns;
  /**
   * Collection path (POST, paged GET), the list object's array key and an object's path; `managedKind`
   * derives them from `section` (`/ip_restrictions`, `ip_restrictions`, `/ip_restrictions/ID`).
   */
  collectionPath: string;
  listKey: string;
  idPrefix: string;
  itemPath(id: string): string;
  /**
   * The entry at `section.key` of the file, its shared fields already read. Runs on a file with schema
   * problems too: a value of the wrong shape has been reported, skip it. Undefined when a problem
   * (reported) leaves no entry.
   */
  read(written: WrittenEntry<S>, shared: SharedFields, reader: EntryReader): D | undefined;
  /** Set for a kind the file writes inside another kind's entries. */
  within?: Nested<D>;
  /** Problems between the section's entries (two IP restrictions of one type). */
  checkEntries?(entries: readonly D[], reader: EntryReader): void;
  /**
   * Listed from the account only when the files write the kind's section (an empty one included): a
   * plan of files without it makes no request for the kind and leaves its objects alone. Undefined:
   * always listed (any kind may hold this owner's resources to delete).
   */
  listedOnlyWhenWritten?: boolean;
  /**
   * Whether a listed object is one of this kind's (the list of endpoints holds agent and edge
   * endpoints too, which are never adopted, changed or deleted). Undefined: every listed object is.
   */
  ownsListed?(object: LiveObject): boolean;
  /** Fields of an entry that name a YAML document file (`traffic_policy_file`): see EntryReader's `document`. */
  documentFiles?: readonly string[];
  /** Kind-specific fields; `description` and the marker (`metadata`, `protect`) are shared. */
  fields: readonly FieldSpec[];
  normalizeLive(live: LiveObject): Record<string, unknown>;
  /**
   * The plan's `after` values of an entry: what is compared, plus what a create sends that comparing
   * does not need (a CA's PEM text, `valid_for`), so that requests derive from what the plan shows.
   */
  normalizeDesired(desired: D): Record<string, unknown>;
  /**
   * How a person reads a value of the plan (`before`/`after`) in the file's form, by field, where JSON
   * would not do: a certificate as its subject, expiry and fingerprint, never the PEM; `valid_for` as
   * the duration the file writes. Undefined: shown as JSON.
   */
  shown?: Readonly<Record<string, (value: unknown) => string | undefined>>;
  /**
   * How a person reads a change of a structured value, by field, where one `old -> new` line would not
   * do (a traffic policy: its rules and actions added, removed and changed). `before` is undefined for
   * a create, `after` for a delete; `name` shows a reference by the key the files give it.
   */
  shownDiff?: Readonly<
    Record<string, (before: unknown, after: unknown, name: (ref: unknown) => string) => DiffLine[]>
  >;
  /**
   * The POST body without `description` and `metadata` (src/plan/requests.ts adds them), from the
   * plan's `after` values: what the plan shows is what it sends. `now` is the plan's `created_at`.
   */
  createBody(after: PlanValues, now: Date): Record<string, unknown>;
  /**
   * A POST or PATCH body as sent, from the planned one once its IDs known after apply are filled in
   * (a traffic policy document as the JSON text the API takes); undefined: as planned.
   */
  wireBody?(body: Readonly<Record<string, unknown>>): Record<string, unknown>;
  /** The one-per-value rule the service enforces, named for people (`IP restriction of type api`). */
  slot?(values: Record<string, unknown>): string;
  /** How an entry leaves a slot another object holds, when it can (`change the url`); said beside adopting. */
  slotLeft?: string;
  /**
   * A reason to replace a matched live object although its values agree (SSH certificate renewal):
   * its expiry, `days` from now (ago when `expired`), is within the entry's renewal window.
   */
  renewal?(
    desired: D,
    live: Record<string, unknown>,
    now: Date,
  ): { replace?: { code: 'renewal'; days: number; expired: boolean }; warning?: DescriptorWarning };
  /** Warnings about a desired entry (CA expiry). */
  warnings?(desired: D, now: Date): DescriptorWarning[];
  /**
   * For `accord apply --cert-dir`: the live field holding a signed certificate, and what follows the
   * entry's key in the name of the file it is written to (`-cert.pub`: what sshd's HostCertificate
   * points at). Undefined: the kind has no certificate to write.
   */
  certificateFile?: { field: string; suffix: string };
  /**
   * For `accord export`: the entry's own fields from a live object (`id:`, `description`, `metadata`
   * and `lifecycle` are written for every kind).
   */
  exportFields(live: LiveObject, context: ExportContext): Record<string, unknown>;
  /**
   * For `accord export`: what names a resource to a person (an IP restriction's type), its key when
   * it has no description; slugified, and made unique, by the exporter.
   */
  exportName?(live: LiveObject): string;
  /** Comment lines above the section in an export. */
  exportComments?: readonly string[];
  /** What the kind means to traffic; undefined: nothing (certificates). */
  traffic?: TrafficRole;
}

/**
 * An edge module: natural identity, no metadata; only modules named in the file are read or touched.
 * `D` is its entry, `L` its DesiredState field.
 */
export interface ModuleDescriptorOf<D extends ModuleEntry, L extends string> {
  kind: D['kind'];
  list: L;
  nouns: Nouns;
  /** The module's entries, from the whole file (schema problems: as for a managed kind's `read`). */
  read(file: AccordFile, reader: EntryReader): D[];
  /** The section of the file its entries are under. */
  section: string;
  /**
   * The edges it hangs on: how people call them, the prefix of their IDs, and for a route's module
   * where an edge's routes are listed. `accord export --edges` reads the modules of the edges named.
   */
  edge: { noun: string; idPrefix: string; routesPath?(edgeId: string): string };
  /** Its path in the file, dotted: `tcp_edges.edgtcp_x.ip_restriction`. */
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
  /** What the module means to traffic; undefined: nothing (a converter). */
  traffic?: TrafficRole;
  /**
   * Where the service lists the edges the module hangs on, each with its module inline under `field`
   * (null: none): how accord sees the modules the files do not name. Undefined: they are not listed.
   */
  listing?: { path: string; listKey: string; field: string };
  /**
   * For `accord export`: the value in the file of each module found (at its `address`), and notes on
   * what cannot be written. `edges` are the edge IDs named that this kind hangs on, in the order given.
   */
  exportModules(
    edges: readonly string[],
    found: readonly FoundModule[],
  ): { modules: { identity: ModuleIdentity; value: Record<string, unknown> }[]; notes: string[] };
}

/** A change's `before` or `after` values as the plan holds them (from a file: unchecked JSON). */
export type PlanValues = Readonly<Record<string, unknown>>;

type DerivedPaths = 'collectionPath' | 'listKey' | 'itemPath';

/** A managed kind's descriptor as its file writes it: the API paths only where they differ from `section`. */
export type ManagedSpec<D extends ManagedEntry, S extends string> = Omit<
  ManagedDescriptorOf<D, S>,
  DerivedPaths
> &
  Partial<Pick<ManagedDescriptorOf<D, S>, DerivedPaths>>;

/** The descriptor of a managed kind, with the API paths the service derives from its section. */
export function managedKind<D extends ManagedEntry, S extends string>(
  spec: ManagedSpec<D, S>,
): ManagedDescriptorOf<D, S> {
  const { section } = spec;
  return {
    collectionPath: `/${section}`,
    listKey: section,
    itemPath: (id) => `/${section}/${encodeURIComponent(id)}`,
    ...spec,
  };
}
