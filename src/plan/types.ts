// The plan: plain JSON-serializable data (DESIGN §4), the contract between the planner, the renderers
// and the applier. `schemas/plan.schema.json` describes the same shape; a test keeps the two in step.
import type { AddressSetSummary } from '../net/cidr-set.js';
import type { ResourceKind } from '../resources/index.js';
import type { DescriptorWarning } from '../resources/types.js';
import type { SlotHeld } from './problems.js';

export type { EntryAt, GuardNaming, PlanProblem, PolicyHolder, SlotHeld, SlotHolder } from './problems.js';

/**
 * 5: each change carries its reasons as data (`reason_codes`) and marks what it is besides an entry's
 * own change (`step`). 4: a saved plan names its desired-state files (`files`) and `apply FILE` plans
 * again from them (DESIGN §4 "Saved plans do only what they show"); no `live_digest`. 3: IP
 * restrictions are matched by slot and no create waits for a delete. Files of other formats are
 * refused: plan again.
 */
export const PLAN_FORMAT_VERSION = 5;

/** Where a differing field's difference comes from (DESIGN §4 "Drift"; src/plan/drift.ts). */
export type DriftSource = 'file' | 'outside' | 'both' | 'unknown';

/** The kinds, from the resource registry. */
export type { ManagedKind, ModuleKind, ResourceKind } from '../resources/index.js';

/**
 * Why a change acts, as data (the plan's `reason_codes`); src/render/reasons.ts says each in
 * English. Field names are the plan's (`changed_fields`), IDs live IDs, addresses plan addresses.
 */
export type Reason =
  /** A create: no object of the account is the entry's. */
  | { code: 'missing' }
  | { code: 'adopt_unmanaged'; id: string }
  | { code: 'takeover'; id: string; owner: string }
  /** A nested object (a rule) without this owner's marker under a parent the file lists whole. */
  | { code: 'adopt_nested'; id: string; parent: string }
  /** This owner's object under another key: the change moves it to the entry's. */
  | { code: 'renamed'; from: string }
  /** Two entries of a kind with a slot take each other's object; `fields` are the immutable ones. */
  | { code: 'swapped'; fields: string[]; with: string }
  | { code: 'immutable'; field: string; part?: string }
  /** Replaced because its expiry is within renew_before (or past). */
  | { code: 'renewal'; days: number; expired: boolean }
  | { code: 'changed'; field: string }
  /** Changed outside accord to what the file now says: only the marker's fingerprint is written. */
  | { code: 'agreed'; field: string }
  /** An object names the entry's key in metadata that no longer reads as a marker. */
  | { code: 'marker_broken'; id: string }
  /** Another object of this owner and key, in the same slot: `kept` is the one kept. */
  | { code: 'duplicate'; kept: string; key: string; oldest: boolean }
  /** An object under the key whose slot no entry wants any more. */
  | { code: 'slot_left'; slot: string; key: string; kept: string }
  | { code: 'not_in_file' }
  | { code: 'duplicate_key' }
  /** A nested object under a managed parent that accord did not make; `copy_of`: the marker it copies. */
  | { code: 'added_outside'; copy_of?: string }
  /** `accord drift`: the entry's slot is held by an object no entry claims (a plan error elsewhere). */
  | { code: 'slot_held'; problem: SlotHeld }
  /** An edge module the file sets to `absent`. */
  | { code: 'absent' }
  | { code: 'not_configured' }
  /** The delete half of a flip, then created again at `address`. */
  | { code: 'flip_delete'; fields: string[]; address: string }
  /** The create half of a flip, after the delete of `id`. */
  | { code: 'flip_create'; fields: string[]; id: string }
  | { code: 'union' };

export type ChangeStep = 'union' | 'flip' | 'duplicate';

/**
 * What a union step's address adds to its change's (`tcp_edges.edgtcp_x.ip_restriction#union`): for
 * people to read; what the step is of is its change's `step_of`.
 */
export const UNION_SUFFIX = '#union';

export type Action = 'create' | 'patch' | 'put' | 'replace' | 'delete' | 'adopt' | 'no-op';
/** A replace creates the new object before it deletes the old one; there is no other order. */
export type ReplaceOrder = 'create_before_delete';

/** One HTTP request the applier sends; `path` is relative to the plan's `api_url`. */
export interface PlannedRequest {
  method: 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
}

export interface PlanChange {
  /** `ip_restrictions.office`, `tcp_edges.edgtcp_x.ip_restriction`,
   * `https_edges.edghts_x.routes.edghtsrt_y.websocket_tcp_converter`; a duplicate to delete gets
   * `ip_restrictions.office#ipx_...`. Unique within a plan. */
  address: string;
  kind: ResourceKind;
  /**
   * Set when the change is not an entry's own change alone: `union`, the step that first switches a
   * restriction to the union of its old and new policies (address `...#union`; neither counted nor
   * drift); `flip`, both halves of a nested object whose immutable values change, its delete (address
   * `...#ID`) and its entry's create after it; `duplicate`, the delete of another object under an
   * entry's key (address `...#ID`).
   */
  step?: ChangeStep;
  /**
   * The address of the entry (or module) this change is a step of, when its own address is another:
   * a union step's change, a flip's or a duplicate's entry. Code reads this, never the address's
   * `#...` (which is only how the step is shown). Absent from plans made before it was kept.
   */
  step_of?: string;
  /** The entry's key (managed kinds) or the module's identity (`edgtcp_x`, `edghts_x.edghtsrt_y`). */
  key: string;
  /** The live ID this change acts on (null for a create); the edge or route ID for modules. */
  id: string | null;
  action: Action;
  replace_order?: ReplaceOrder;
  /** Why, for people: the sentences of `reason_codes` (src/render/reasons.ts); empty only for no-op. */
  reasons: string[];
  /** Why, as data: one `{code, ...facts}` per reason, in the order of `reasons`. */
  reason_codes: Reason[];
  /** Normalized live values (null when nothing is live). A PEM appears only as its summary. */
  before: Record<string, unknown> | null;
  /** Normalized desired values (null for a delete). */
  after: Record<string, unknown> | null;
  changed_fields: string[];
  /**
   * Per differing field, who changed it: `file`, `outside` (the account no longer holds what accord
   * wrote), `both`, or `unknown` (no fingerprint tells: creates, edge modules, older markers). A field
   * changed outside accord to what the file now says is listed as `both` without being in
   * `changed_fields`.
   */
  drift: Record<string, DriftSource>;
  /**
   * Addresses of changes whose requests must have succeeded before this change sends its own: the IDs
   * it names (known after apply) and the order that keeps traffic between what the account
   * and the files let through (src/traffic/order.ts). Slot matching leaves no create waiting for a
   * delete.
   */
  depends_on: string[];
  /**
   * The entry of the desired-state files this change comes from: the file as given and the line of
   * its key. Absent on the delete of an object whose entry has left the files.
   */
  source?: ChangeSource;
  /**
   * What the applier sends, in order (for a replace, in `replace_order`). Empty for a no-op. Shown for
   * readers: `apply FILE` sends those of the plan it makes again, never these.
   */
  requests: PlannedRequest[];
}

export interface ChangeSource {
  file: string;
  /** 1-based. */
  line: number;
}

export interface PlanSummary {
  create: number;
  patch: number;
  put: number;
  replace: number;
  delete: number;
  adopt: number;
  no_op: number;
  /** Live resources without an accord marker, left alone. */
  unmanaged: number;
  /** Live resources marked by another owner, left alone. */
  other_owners: number;
}

/**
 * A warning as data (the plan's `warning_codes`); src/render/warnings.ts says each in English.
 * Those with an `address` are about one entry's change and go where that change goes (--target).
 */
export type Warning =
  /** `id:` names an object that is gone; the entry was matched by its marker (`where`: address and file:line). */
  | { code: 'id_gone'; address: string; where: string; id: string }
  /** Immutable values equal to several objects': planned as a create and a delete, not a rename. */
  | {
      code: 'ambiguous_rename';
      address: string;
      objects: { id: string; address: string }[];
      /** The other entries that match the only such object; absent when several objects match. */
      rivals?: string[];
    }
  /** What a kind's descriptor warns of (src/resources/types.ts). */
  | DescriptorWarning
  /** A create of an allow of every address of a family. */
  | { code: 'allows_everything'; address: string; cidr: string }
  /** A rule that changes no scope's reach; `scopes` are the enforced scopes using its policy. */
  | { code: 'idle_rule'; address: string; action: 'allow' | 'deny'; cidr: string; scopes: string[] }
  /** A scope that lets no address through, before or after the plan; `policies` as messages name them. */
  | { code: 'no_reach'; scope: string; policies: string[] }
  /** A deleted policy that TCP edge modules the files do not name may still name. */
  | { code: 'unseen_tcp_edges'; address: string; id: string; edges: 'unavailable' | 'unlisted' }
  /** A deleted policy that endpoint traffic policies, which the API cannot list, may still name. */
  | { code: 'unseen_endpoints'; address: string; id: string; endpoints?: 'unavailable' | 'unlisted' }
  /** The plan could change endpoints' reach, and the service has no list of them (404, 405, 410). */
  | { code: 'unlisted_endpoints' }
  /** More deletes and replaces than --max-destroy-percent, allowed by --force. */
  | { code: 'threshold_forced'; destroyed: number; managed: number; percent: number; max: number }
  /** A refusal that --force lifts, lifted. */
  | { code: 'refusal_forced'; refusal: Refusal }
  /** A guard the account breaks today and the plan mends. */
  | { code: 'guard_mended'; breach: GuardBreachFacts }
  /**
   * A scope that lets only some addresses through today and every address after the plan: `by` says
   * how (its restriction or module deleted, made warn-only or disabled, or its rules let everyone in;
   * an endpoint's traffic policy with no enforced `restrict-ips` left that runs);
   * `source` is the change that does it, when one change does; `today` what it lets through now.
   */
  | {
      code: 'opens_to_everyone';
      scope: string;
      by: 'deleted' | 'not_enforced' | 'rules' | 'traffic_policy';
      source?: string;
      today: AddressSetSummary;
    };

/**
 * Why the plan is refused (the plan's `unsafe_codes`); src/render/refusals.ts says each in English.
 */
export type Refusal =
  /** A delete or replace of an object under lifecycle.prevent_destroy; no flag lifts it. */
  | { code: 'protected'; address: string; id: string; action: 'delete' | 'replace' }
  /** More deletes and replaces than --max-destroy-percent (`percent` of `managed`); --force lifts it. */
  | { code: 'threshold'; destroyed: number; managed: number; percent: number; max: number }
  /**
   * A scope that lets addresses (of `family`, if given) through today and none after; `source` is the
   * change that binds its policies, `policies` as messages name them, `today` what it lets through now.
   */
  | {
      code: 'locked_out';
      scope: string;
      source?: string;
      policies: string[];
      family?: 4 | 6;
      today: AddressSetSummary;
      /**
       * An endpoint's lockout made by the account-wide `endpoints` restriction, not by its own traffic
       * policy (which still lets some addresses in): `source` and `policies` are then the restriction's,
       * and `at` where the change that makes it is written.
       */
      cause?: 'endpoints_restriction';
      at?: { file: string; line: number };
    }
  /** A guard the plan's result breaks; no flag lifts it. */
  | { code: 'guard_breach'; breach: GuardBreachFacts };

/** A guard's breach, as src/traffic/guards.ts finds it. */
export interface GuardBreachFacts {
  /** The guard's scope as written: `dashboard`, `tcp_edges.edgtcp_x`, `all`. */
  guard: string;
  /** Where the guard is written. */
  at: { file: string; line: number; col: number };
  /** The scope that breaks it. */
  scope: string;
  rule: 'enforced' | 'always_let_in' | 'only_let_in';
  /** `always_let_in`: the addresses shut out; `only_let_in`: those let in; minimal, sorted. */
  cidrs: string[];
  /** How many addresses `cidrs` hold, as a decimal string. */
  addresses: string;
  /** `enforced`: what filters the scope instead. */
  filter?: 'enforced' | 'warn-only' | 'disabled' | 'none' | 'sometimes';
}

export interface PlanSafety {
  /** Live resources carrying this owner's marker. */
  managed: number;
  /** Of those, how many this plan deletes or replaces. */
  destroyed: number;
  max_destroy_percent: number;
  threshold_exceeded: boolean;
  /** `--force` was given when planning. */
  forced: boolean;
  /** Addresses refused by `protect` (lifecycle.prevent_destroy); no flag overrides these. */
  protected: string[];
}

export interface Plan {
  format_version: typeof PLAN_FORMAT_VERSION;
  tool_version: string;
  api_url: string;
  owner: string;
  /** ISO instant of the `now` the plan was made with. */
  created_at: string;
  /**
   * The desired-state files the plan was made from, relative to the directory `plan` ran in (`/`
   * separated): `apply FILE` refuses the plan unless its own command names these files.
   */
  files: string[];
  /** sha256 hex of the desired-state file and every file it names. */
  config_digest: string;
  /**
   * sha256 hex of each of those files, by path relative to the directory `plan` ran in: `apply FILE`
   * names the ones that changed. Absent from plans made before it was kept.
   */
  file_digests?: Record<string, string>;
  /** False when a safety rule refuses the plan (exit 3). */
  safe: boolean;
  /** For people: the sentences of `unsafe_codes` (src/render/refusals.ts), in order. */
  unsafe_reasons: string[];
  /** The refusals as data; absent from plans made before they were kept. */
  unsafe_codes?: Refusal[];
  safety: PlanSafety;
  summary: PlanSummary;
  changes: PlanChange[];
  /** For people: the sentences of `warning_codes` (src/render/warnings.ts), in order. */
  warnings: string[];
  /** The warnings as data; absent from plans made before they were kept. */
  warning_codes?: Warning[];
  /** Each scope whose reach the plan changes (DESIGN §4 "Reach"), in scope order. */
  reach: ScopeReachJson[];
  /** The scopes whose reach the plan leaves as it is. */
  reach_unchanged: string[];
  /** Present only on a plan made with --target/--exclude: then `changes`, `summary` and the safety
   * verdict cover only the part kept. */
  selection?: PlanSelection;
}

/** How a plan made with --target/--exclude chose its part of the file. */
export interface PlanSelection {
  /** The --target patterns, as given. */
  target: string[];
  /** The --exclude patterns, as given. */
  exclude: string[];
  /** Addresses of the changes (no-ops aside) the full plan has and this one leaves out, in plan order. */
  left_out: string[];
}

/** One bound of an endpoint's reach before and after the plan, and the two differences. */
export interface ReachDiffJson {
  before: AddressSetSummary;
  after: AddressSetSummary;
  let_in: AddressSetSummary;
  shut_out: AddressSetSummary;
}

/**
 * One scope's reach before and after the plan, and the two differences. An endpoint whose reach is not
 * exact on a side also carries `at_least` (what every connection gets; the top-level sets are these)
 * and `at_most` (what some connection gets).
 */
export interface ScopeReachJson {
  /** `dashboard`, `api`, `agent`, `endpoints`, `tcp_edges.EDGE_ID`, or an endpoint's URL. */
  scope: string;
  /** An endpoint an entry of the files manages: its address (`cloud_endpoints.KEY`). */
  address?: string;
  at_least?: ReachDiffJson;
  at_most?: ReachDiffJson;
  before: AddressSetSummary;
  after: AddressSetSummary;
  /** After minus before. */
  let_in: AddressSetSummary;
  /** Before minus after. */
  shut_out: AddressSetSummary;
}
