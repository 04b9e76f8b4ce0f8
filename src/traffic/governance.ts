// What governs each scope (DESIGN §4 "Reach"), on top of src/traffic/reach.ts's pictures: what filters it
// (an enforced restriction or enabled module, a warn-only one, a disabled module, or none) and the
// addresses it lets through; the picture of the files alone, where they determine it (validate); and
// a decision said with the policies' keys in the files.
import type { DesiredState } from '../config/model.js';
import type { AddressSet } from '../net/cidr-set.js';
import { knownAfterApply } from '../plan/references.js';
import type { PlanChange } from '../plan/types.js';
import { idLabel, type PlannedId } from '../resources/known-after-apply.js';
import { edgeScope, isEdgeScope } from '../resources/scope.js';
import { namesEndpoint } from './edges.js';
import { endpointNames, isEndpointScope } from './endpoint-scopes.js';
import {
  type Binding,
  calculatorsOf,
  type Decision,
  type ReachCalculator,
  scopesOf,
  TRAFFIC_TYPES,
  type TrafficPicture,
  type TrafficRule,
} from './reach.js';
import { isPolicy } from './roles.js';

/**
 * `enforced`: an enforced restriction or enabled module filters the traffic; `warn-only`: a restriction
 * that only warns; `disabled`: a module configured but disabled; `none`: nothing filters it.
 */
export type Filter = 'enforced' | 'warn-only' | 'disabled' | 'none' | 'sometimes' | 'absent';

/**
 * One side of a scope: what filters it, and what it lets through (an endpoint: what every connection
 * gets, and in `most` what some connection gets when that is more).
 */
export interface ScopeSide {
  filter: Filter;
  reach: AddressSet;
  most?: AddressSet;
}

export interface ScopeState {
  /** `dashboard`, `api`, `agent`, `endpoints`, `tcp_edges.<id>`, or an endpoint's URL. */
  scope: string;
  /** An endpoint's other names for guards: its URLs, its address in the files. */
  names?: string[];
  before: ScopeSide;
  after: ScopeSide;
}

/**
 * What filters a scope. An endpoint: `enforced` when an enforced `restrict-ips` runs always,
 * `sometimes` when one runs only sometimes, `warn-only` when its only ones log, `none` when it has
 * none (the account-wide `endpoints` restriction aside), `absent` when the picture has no such endpoint.
 */
export function filterOf(picture: TrafficPicture, scope: string): Filter {
  if (isEndpointScope(scope)) {
    const endpoint = picture.endpoints?.get(scope);
    if (!endpoint) return 'absent';
    const enforced = endpoint.actions.filter((a) => a.enforce);
    if (enforced.some((a) => a.always)) return 'enforced';
    if (enforced.length > 0) return 'sometimes';
    return endpoint.actions.length > 0 ? 'warn-only' : 'none';
  }
  const binding = picture.bindings.get(scope);
  if (!binding) return 'none';
  if (binding.enforced) return 'enforced';
  return isEdgeScope(scope) ? 'disabled' : 'warn-only';
}

/** Every scope of either picture (or only `scopes`), with what filters it and lets through on each side. */
export function scopeStates(
  before: TrafficPicture,
  after: TrafficPicture,
  scopes: readonly string[] = scopesOf(before, after),
  [was, will]: readonly [ReachCalculator, ReachCalculator] = calculatorsOf(before, after),
): ScopeState[] {
  const side = (picture: TrafficPicture, calculator: ReachCalculator, scope: string): ScopeSide => {
    const { atLeast, atMost } = calculator.bounds(scope);
    const most = atMost.equals(atLeast) ? {} : { most: atMost };
    return { filter: filterOf(picture, scope), reach: atLeast, ...most };
  };
  return scopes.map((scope) => {
    const names = isEndpointScope(scope)
      ? { names: endpointNames(before.endpoints?.get(scope), after.endpoints?.get(scope)) }
      : {};
    return { scope, ...names, before: side(before, was, scope), after: side(after, will, scope) };
  });
}

/**
 * The picture of the files alone (validate), with the scopes it determines: a type whose restriction
 * the files hold, a TCP edge whose module they name, each naming only policies the files hold (by key,
 * or by the ID a policy entry adopts). Every other scope is `undetermined`, with why: the account
 * decides it.
 */
export function filesPicture(desired: DesiredState): {
  picture: TrafficPicture;
  determined: string[];
  undetermined: { scope: string; why: string }[];
} {
  const keyOf = new Map<PlannedId, string>();
  for (const p of desired.ip_policies) {
    keyOf.set(p.key, p.key);
    if (p.id !== undefined) keyOf.set(p.id, p.key);
  }
  const rules = new Map<string, TrafficRule[]>();
  for (const r of desired.ip_policy_rules) {
    const rule: TrafficRule = { id: null, policy: r.policy, action: r.action, cidr: r.cidr };
    rules.set(r.policy, [...(rules.get(r.policy) ?? []), rule]);
  }
  const bindings = new Map<string, Binding>();
  const edges = new Set<string>();
  const determined: string[] = [];
  const undetermined: { scope: string; why: string }[] = [];
  const bind = (scope: string, address: string, binding: Binding | undefined) => {
    const unknown = binding?.enforced ? binding.policies.filter((p) => !keyOf.has(p)) : [];
    if (unknown.length > 0) {
      undetermined.push({
        scope,
        why: `${address} names ${unknown.map(idLabel).join(', ')}, whose rules only the account holds`,
      });
      return;
    }
    if (binding)
      bindings.set(scope, { ...binding, policies: binding.policies.map((p) => keyOf.get(p) ?? p) });
    determined.push(scope);
  };
  for (const type of TRAFFIC_TYPES) {
    const r = desired.ip_restrictions.find((x) => x.type === type);
    if (r) bind(type, `ip_restrictions.${r.key}`, { enforced: r.enforced, policies: r.ip_policy_ids });
    else
      undetermined.push({ scope: type, why: 'the files hold no restriction of this type; the account may' });
  }
  for (const m of desired.tcp_edge_ip_restrictions) {
    const scope = edgeScope(m.edge_id);
    edges.add(scope);
    const binding = m.state === 'absent' ? undefined : { enforced: m.enabled, policies: m.ip_policy_ids };
    bind(scope, `${scope}.ip_restriction`, binding);
  }
  // An endpoint's reach needs its traffic policy and the account-wide restriction: plan lists them.
  for (const g of desired.guards ?? []) {
    if (namesEndpoint(g.scope)) {
      undetermined.push({ scope: g.scope, why: 'an endpoint, judged on the account by accord plan' });
    }
  }
  return { picture: { bindings, rules, edges }, determined, undetermined };
}

/** Policies by ID (known after apply for those the plan creates): their keys in the files. */
export function policyNames(changes: readonly PlanChange[]): Map<PlannedId, string> {
  const names = new Map<PlannedId, string>();
  for (const c of changes) {
    if (!isPolicy(c) || !isEntryOwn(c)) continue;
    if (c.id !== null) names.set(c.id, c.key);
    // What references a policy this plan makes holds its ID known after apply until apply.
    if (c.action === 'create' || c.action === 'replace') names.set(knownAfterApply(c.address), c.key);
  }
  return names;
}

/**
 * A decision as people read it: `allow 10.0.0.0/8 of office`, `no allow matches`, `warn-only`; for an
 * endpoint, `deny 10.0.0.0/8 of office in on_http_request rule 1 action 1`, `endpoints restriction:
 * no allow matches`, and what an action that runs only sometimes would do.
 */
export function describeDecision(d: Decision, names: ReadonlyMap<PlannedId, string>): string {
  if (d.by === 'allow' || d.by === 'deny') {
    return `${d.by} ${d.rule.cidr} of ${names.get(d.rule.policy) ?? idLabel(d.rule.policy)}`;
  }
  if (d.by === 'endpoints restriction') return `endpoints restriction: ${describeDecision(d.inner, names)}`;
  if (d.by === 'restrict-ips') {
    const of = d.policy !== undefined ? ` of ${names.get(d.policy) ?? idLabel(d.policy)}` : '';
    const rule = d.verdict === 'no allow matches' ? d.verdict : `${d.verdict} ${d.cidr}${of}`;
    if (d.sometimes && d.let && d.verdict !== 'allow') return `shut out only when ${d.where} runs: ${rule}`;
    return `${rule} in ${d.where}${d.sometimes ? ' (runs only sometimes)' : ''}`;
  }
  return d.by === 'disabled' ? 'module disabled' : d.by;
}

/**
 * Whether a change is its entry's own object (not a duplicate's delete, a flip's delete half or a
 * union step), from the change's `step`: the address is not read for it.
 */
function isEntryOwn(c: Pick<PlanChange, 'step' | 'action'>): boolean {
  return c.step === undefined || (c.step === 'flip' && c.action !== 'delete');
}
