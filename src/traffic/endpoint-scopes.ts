// Endpoints as scopes of reach (SPEC-endpoints.md "Who can reach an endpoint"): every endpoint the
// account lists, cloud and agent, and every one the plan creates, named by its URL. Two endpoints
// sharing a URL (pooled endpoints) are named `URL#ID` each (`URL#cloud_endpoints.KEY` for one the plan
// creates), and a guard naming the URL covers each of them. A scope keeps the name it has in the account
// through the plan, even when the plan changes its URL: guards and messages know it by either URL.

import type { LiveEndpoint } from '../account/endpoints.js';
import type { Account } from '../account/model.js';
import type { PlanChange } from '../plan/types.js';
import { descriptorFor } from '../resources/index.js';
import type { PlannedId } from '../resources/known-after-apply.js';
import { type RestrictAction, restrictActions } from './endpoint-policy.js';

/** An endpoint as a scope of one picture. */
export interface EndpointScope {
  /** Its live ID; null for one the plan creates. */
  id: string | null;
  url: string;
  /** `cloud_endpoints.KEY` when an entry of the files manages it (known from the plan's change). */
  address?: string;
  /** Its traffic policy's `restrict-ips` actions, read once. */
  actions: readonly RestrictAction[];
  /** Set when the listed policy text does not parse: its actions are then not known (none are read). */
  unreadable?: string;
}

export { isEndpointScope } from '../resources/scope.js';

/** The endpoints the account lists, by scope; none when they were not listed (or cannot be). */
export function liveEndpointScopes(account: Account): Map<string, EndpointScope> {
  const scopes = new Map<string, EndpointScope>();
  const listed = Array.isArray(account.endpoints) ? account.endpoints : [];
  const uses = new Map<string, number>();
  for (const e of listed) uses.set(e.url, (uses.get(e.url) ?? 0) + 1);
  for (const e of listed) {
    const scope = (uses.get(e.url) ?? 0) > 1 ? `${e.url}#${e.id}` : e.url;
    scopes.set(scope, {
      id: e.id,
      url: e.url,
      actions: restrictActions(e.document),
      ...(e.unreadable !== undefined ? { unreadable: e.unreadable } : {}),
    });
  }
  return scopes;
}

/** The endpoint a change's values are; undefined when its kind is no endpoint. */
function endpointOf(c: PlanChange, values: PlanChange['after']) {
  const role = descriptorFor(c.kind).traffic;
  return role?.role === 'endpoint' && values ? role.endpoint(values) : undefined;
}

/**
 * The endpoints once `changes` are made: a change matches a listed endpoint by its ID; a create (no
 * ID) adds one; a delete takes it away. Endpoints the account does not list (they were not listed)
 * are no scopes: only those the plan creates.
 */
export function plannedEndpointScopes(
  before: ReadonlyMap<string, EndpointScope>,
  changes: readonly PlanChange[],
): Map<string, EndpointScope> {
  const after = new Map(before);
  const byId = new Map<string, string>();
  for (const [scope, e] of before) if (e.id !== null) byId.set(e.id, scope);
  const urls = new Set([...before.values()].map((e) => e.url));
  for (const c of changes) {
    if (descriptorFor(c.kind).traffic?.role !== 'endpoint') continue;
    const scope = c.id !== null ? byId.get(c.id) : undefined;
    if (c.action === 'delete') {
      if (scope !== undefined) after.delete(scope);
      continue;
    }
    const will = endpointOf(c, c.after);
    if (!will) continue;
    if (c.action === 'no-op') {
      if (scope !== undefined) after.set(scope, { ...before.get(scope)!, address: c.address });
      continue;
    }
    const entry = { url: will.url, address: c.address, actions: restrictActions(will.document) };
    // A replace is a new object in the same place: the scope keeps its name.
    if (scope !== undefined) after.set(scope, { ...entry, id: c.action === 'replace' ? null : c.id });
    else {
      after.set(urls.has(will.url) ? `${will.url}#${c.address}` : will.url, { ...entry, id: null });
      urls.add(will.url);
    }
  }
  return after;
}

/** Per listed endpoint, the policies its enforced `restrict-ips` actions name (none: left out). */
export function endpointPolicies(account: Account): { endpoint: LiveEndpoint; policies: Set<PlannedId> }[] {
  if (!Array.isArray(account.endpoints)) return [];
  const out: { endpoint: LiveEndpoint; policies: Set<PlannedId> }[] = [];
  for (const endpoint of account.endpoints) {
    const actions = restrictActions(endpoint.document);
    const policies = new Set(actions.flatMap((a) => (a.enforce ? a.policies : [])));
    if (policies.size > 0) out.push({ endpoint, policies });
  }
  return out;
}

/** The names a guard may give an endpoint scope: its scope, its URLs on either side, its address. */
export function endpointNames(...sides: (EndpointScope | undefined)[]): string[] {
  const names = new Set<string>();
  for (const e of sides) {
    if (!e) continue;
    names.add(e.url);
    if (e.address !== undefined) names.add(e.address);
  }
  return [...names];
}

/** How messages name an endpoint scope: `https://admin.example.com (cloud_endpoints.admin)`. */
export function endpointLabel(scope: string, address: string | undefined): string {
  return address !== undefined ? `${scope} (${address})` : scope;
}
