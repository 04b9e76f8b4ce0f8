// The TCP edges as the account lists them (GET /edges/tcp, each with its IP restriction module inline):
// listed only when a plan's reach could change through them (the planner asks, src/plan/planner.ts),
// each is a scope of the plan's reach (src/traffic/reach.ts) and of its order (src/traffic/order.ts).

import { type Account, listedModule } from '../account/model.js';
import type { DesiredGuard } from '../config/guard-model.js';
import type { PlanChange } from '../plan/types.js';
import { type PlannedId, plannedIdSet } from '../resources/known-after-apply.js';
import { ENDPOINTS_TYPE, isEndpointScope } from '../resources/scope.js';
import { isPolicy, managedWithRole, restrictionOf, ruleOf } from './roles.js';

/**
 * Whether a listed scope's reach (a TCP edge's, an endpoint's) could change by `changes`: they change
 * the rules of a policy the account has (a policy the plan makes is named by nothing listed yet) or
 * delete one. Only then are TCP edges listed; endpoints are listed then too, and see
 * `mayChangeEndpoints`.
 */
function mayChangeNamedPolicies(changes: readonly PlanChange[]): boolean {
  return changes.some((c) => {
    if (isPolicy(c)) return c.action === 'delete' || c.action === 'replace';
    if (c.action === 'no-op' || c.action === 'patch') return false;
    const rule = ruleOf(c, c.before ?? c.after);
    return rule !== undefined && typeof rule.policy === 'string';
  });
}

/** Whether a TCP edge's reach could change by `changes` (`mayChangeNamedPolicies`). */
export function mayChangeListedEdges(changes: readonly PlanChange[]): boolean {
  return listedModule() !== undefined && mayChangeNamedPolicies(changes);
}

/**
 * Whether an endpoint's reach could change by `changes`: as a TCP edge's, or they change the
 * account-wide restriction of the `endpoints` traffic type, which every endpoint's reach passes.
 */
export function mayChangeEndpoints(changes: readonly PlanChange[]): boolean {
  return mayChangeNamedPolicies(changes) || changes.some(changesEndpointsRestriction);
}

/** Whether `c` changes the account-wide restriction of the `endpoints` traffic type (on either side). */
export function changesEndpointsRestriction(c: PlanChange): boolean {
  return (
    c.action !== 'no-op' &&
    [c.before, c.after].some((values) => restrictionOf(c, values)?.scope === ENDPOINTS_TYPE)
  );
}

/**
 * Whether a guard names an endpoint, by its URL or by its address in the files (`cloud_endpoints.KEY`):
 * then the endpoints are listed whatever the plan changes, for the guard to be judged.
 */
export function guardsNameEndpoints(guards: readonly Pick<DesiredGuard, 'scope'>[] | undefined): boolean {
  return (guards ?? []).some((g) => namesEndpoint(g.scope));
}

/** Whether a guard's scope is an endpoint: its URL, or its address in the files (`cloud_endpoints.KEY`). */
export function namesEndpoint(scope: string): boolean {
  return isEndpointScope(scope) || managedWithRole('endpoint').some((d) => scope.startsWith(`${d.section}.`));
}

/** A TCP edge as the list of edges shows it: its scope, and its module's binding (none: no module). */
export interface ListedEdge {
  scope: string;
  /** Whether the files name its module (then it was read on its own, and that read decides). */
  named: boolean;
  binding?: { enforced: boolean; policies: readonly PlannedId[] };
}

/** The TCP edges the account listed (none when it was not listed), with their modules. */
export function listedEdgeScopes(account: Account): ListedEdge[] {
  const d = listedModule();
  if (!Array.isArray(account.tcpEdges) || d === undefined) return [];
  const role = d.traffic;
  if (role?.role !== 'restriction') return [];
  const found: ListedEdge[] = [];
  for (const edge of account.tcpEdges) {
    const key = edge.id;
    if (key === '') continue;
    const scope = role.restricts({}, key).scope;
    const named = d.address({ edge_id: key }) in account.modules;
    const r = edge.module ? role.restricts(edge.module, key) : undefined;
    const binding = r ? { enforced: r.inForce, policies: plannedIdSet(r.policies) } : undefined;
    found.push({ scope, named, ...(binding ? { binding } : {}) });
  }
  return found;
}
