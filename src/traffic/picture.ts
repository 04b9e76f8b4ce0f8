// The two pictures a plan's reach compares, as data: what decides each scope on one side (the account,
// or the account after the plan), and what a scope's reach is before and after (src/traffic/reach.ts
// computes them).

import type { AddressSet } from '../net/cidr-set.js';
import type { PlannedId } from '../resources/known-after-apply.js';
import type { EndpointScope } from './endpoint-scopes.js';

/** What decides a scope: its restriction or module. */
export interface Binding {
  /** An enforced restriction or an enabled module; false for warn-only or disabled. */
  enforced: boolean;
  /** The policies it names: live IDs, known after apply for ones the plan makes. */
  policies: readonly PlannedId[];
  /** The address of the change that puts it there (`ip_restrictions.office`); absent when unchanged. */
  source?: string;
}

export interface TrafficRule {
  /** The live ID; null for a rule the plan creates. */
  id: string | null;
  policy: PlannedId;
  action: 'allow' | 'deny';
  /** Canonical CIDR. */
  cidr: string;
}

/** One side of a plan (the account, or the account after the plan): what decides each scope. */
export interface TrafficPicture {
  /** Per scope, its restriction or module; a scope absent here has none. */
  bindings: ReadonlyMap<string, Binding>;
  /** The rules of each policy, by policy ID (known after apply for a policy the plan makes). */
  rules: ReadonlyMap<PlannedId, readonly TrafficRule[]>;
  /** TCP edge scopes to show even without a module. */
  edges: ReadonlySet<string>;
  /** The TCP edge scopes only the list of edges shows (the files do not name them). */
  listed?: ReadonlySet<string>;
  /** The endpoints, by scope (their URL); absent when they were not listed: then none is a scope. */
  endpoints?: ReadonlyMap<string, EndpointScope>;
}

/** A scope's reach before and after the plan. */
export interface ScopeReach {
  /** `dashboard`, `api`, `agent`, `endpoints`, or `tcp_edges.edgtcp_x`. */
  scope: string;
  before: AddressSet;
  after: AddressSet;
  /** Whether an enforced restriction or enabled module decides it, before and after. */
  enforced: { before: boolean; after: boolean };
  /**
   * An endpoint whose reach is a pair of bounds on a side: `before` and `after` are then what every
   * connection gets (at least), and these what some connection gets (at most). Absent when exact.
   */
  most?: { before: AddressSet; after: AddressSet };
  /** An endpoint scope: whether the endpoint exists before and after (one that does not lets nobody in). */
  exists?: { before: boolean; after: boolean };
  /** An endpoint an entry of the files manages: its address (`cloud_endpoints.KEY`). */
  address?: string;
}

/** What decides whether one address gets through a scope. */
export type Decision =
  | { let: true; by: 'no restriction' | 'warn-only' | 'disabled' }
  | { let: true; by: 'allow'; rule: TrafficRule }
  | { let: false; by: 'deny'; rule: TrafficRule }
  | { let: false; by: 'no allow matches' }
  // Endpoints: one the picture does not have; the account-wide `endpoints` restriction deciding; no
  // enforced `restrict-ips` at all; or one of them (src/traffic/endpoint-decide.ts).
  | { let: false; by: 'no endpoint' }
  | { let: boolean; by: 'endpoints restriction'; inner: Decision }
  | { let: true; by: 'no restrict-ips' }
  | EndpointActionDecision;

/** What one `restrict-ips` action decides for an address: a rule of it, or that no allow matches. */
export interface EndpointActionDecision {
  let: boolean;
  by: 'restrict-ips';
  /** `on_http_request rule 2 "admin" action 1`. */
  where: string;
  verdict: 'allow' | 'deny' | 'no allow matches';
  cidr?: string;
  /** The policy whose rule decides (its ID, or known-after-apply); absent for the action's own CIDR. */
  policy?: PlannedId;
  /** The action runs only for some connections. */
  sometimes: boolean;
}
