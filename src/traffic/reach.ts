// Who can reach what (DESIGN §4 "Reach"): for each scope (the four traffic types, and each TCP edge
// whose module the files name or, when the edges were listed, the account shows), the exact set of source addresses let through by
// the account (before) and by the account once the plan's changes are made (after). An enforced
// restriction or enabled module lets through the union of its policies' allow CIDRs minus the union of
// their deny CIDRs; a warn-only restriction, a disabled module, or none lets everyone through.

import type { Account, LiveResource } from '../account/model.js';
import type { IpVersion } from '../net/cidr.js';
import { AddressSet, CidrBlocks } from '../net/cidr-set.js';
import type { PlanChange } from '../plan/types.js';
import {
  descriptorFor,
  isManaged,
  managedDescriptors,
  moduleDescriptors,
  type ResourceKind,
} from '../resources/index.js';
import { type PlannedId, plannedIdSet } from '../resources/known-after-apply.js';
import { edgeOfScope, isEdgeScope } from '../resources/scope.js';
import { listedEdgeScopes } from './edges.js';
import { actionSet, endpointBounds, type ReachBounds, type RestrictAction } from './endpoint-policy.js';
import {
  type EndpointScope,
  isEndpointScope,
  liveEndpointScopes,
  plannedEndpointScopes,
} from './endpoint-scopes.js';
import { isUnionStep } from './order.js';
import { isPolicy } from './roles.js';

/** The traffic types, in the order scopes are shown; TCP edges (`tcp_edges.edgtcp_x`) follow by ID. */
export const TRAFFIC_TYPES = ['dashboard', 'api', 'agent', 'endpoints'] as const;

import type { Binding, ScopeReach, TrafficPicture, TrafficRule } from './picture.js';

export type { Binding, ScopeReach, TrafficPicture, TrafficRule };

// What each kind means to traffic is its descriptor's `traffic` hook (src/resources/types.ts).
function bindingOf(
  kind: ResourceKind,
  key: string,
  values: Readonly<Record<string, unknown>>,
): ({ scope: string } & Binding) | undefined {
  const role = descriptorFor(kind).traffic;
  if (role?.role !== 'restriction') return undefined;
  const r = role.restricts(values, key);
  return { scope: r.scope, enforced: r.inForce, policies: plannedIdSet(r.policies) };
}

/** The scope a change's restriction or module decides before the change; undefined for other kinds. */
export function scopeBefore(c: PlanChange): string | undefined {
  return c.before ? bindingOf(c.kind, c.key, c.before)?.scope : undefined;
}

/** The scope of a module kind's restriction at `key`, whatever its values: its edge's. */
function moduleScope(kind: ResourceKind, key: string): string | undefined {
  const role = descriptorFor(kind).traffic;
  return role?.role === 'restriction' ? role.restricts({}, key).scope : undefined;
}

function ruleOf(
  kind: ResourceKind,
  id: string | null,
  values: Readonly<Record<string, unknown>>,
): TrafficRule | undefined {
  const role = descriptorFor(kind).traffic;
  return role?.role === 'rule' ? { id, ...role.rule(values) } : undefined;
}

function add<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function addRules(
  rules: Map<PlannedId, TrafficRule[]>,
  role: { rule(values: Readonly<Record<string, unknown>>): Omit<TrafficRule, 'id'> },
  objects: readonly LiveResource[],
): void {
  // An indexed loop: thousands of rules, read once per plan, mostly before the code is compiled.
  for (let i = 0; i < objects.length; i++) {
    const obj = objects[i] as LiveResource;
    const rule = role.rule(obj.values);
    add(rules, rule.policy, { id: obj.id, policy: rule.policy, action: rule.action, cidr: rule.cidr });
  }
}

/** What the account decides today: every restriction and rule listed, and the modules read. */
export function livePicture(account: Account): TrafficPicture {
  const bindings = new Map<string, Binding>();
  const rules = new Map<PlannedId, TrafficRule[]>();
  const edges = new Set<string>();
  for (const d of managedDescriptors) {
    const objects = account.managed[d.kind] ?? [];
    // A kind's role is looked up once: a policy's rules are thousands of objects.
    if (d.traffic?.role === 'rule') addRules(rules, d.traffic, objects);
    if (d.traffic?.role !== 'restriction') continue;
    for (const obj of objects) {
      const b = bindingOf(d.kind, obj.marker?.key ?? obj.id, obj.values);
      if (b) bindings.set(b.scope, { enforced: b.enforced, policies: b.policies });
    }
  }
  for (const d of moduleDescriptors) {
    for (const [address, values] of Object.entries(account.modules)) {
      const identity = d.identify(address);
      const scope = identity && moduleScope(d.kind, d.key(identity));
      if (!identity || scope === undefined) continue;
      edges.add(scope);
      const b = values && bindingOf(d.kind, d.key(identity), values);
      if (b) bindings.set(b.scope, { enforced: b.enforced, policies: b.policies });
    }
  }
  const listed = listedEdges(account, bindings, edges);
  const endpoints = Array.isArray(account.endpoints) ? { endpoints: liveEndpointScopes(account) } : {};
  return { bindings, rules, edges, listed, ...endpoints };
}

/**
 * The TCP edges as listed (only when they were: DESIGN §2), each with its module inline: every edge is
 * a scope, and the module of one the files do not name decides it. A module the files name was read
 * on its own and is kept: it is the same module, read later.
 */
function listedEdges(account: Account, bindings: Map<string, Binding>, edges: Set<string>): Set<string> {
  const listed = new Set<string>();
  for (const edge of listedEdgeScopes(account)) {
    edges.add(edge.scope);
    if (edge.named) continue;
    listed.add(edge.scope);
    if (edge.binding) bindings.set(edge.scope, { ...edge.binding });
  }
  return listed;
}

/**
 * The account once `changes` are made (a plan's kept changes; union steps are steps of a change, not
 * changes of their own): what each change takes out first, then what each puts in, so that two
 * restrictions swapping types, or a rule deleted and created again, read the same in any order.
 */
export function plannedPicture(before: TrafficPicture, changes: readonly PlanChange[]): TrafficPicture {
  const bindings = new Map(before.bindings);
  // A policy's list is copied only when the plan changes it: an unchanged one is the same array in both
  // pictures, and ReachCalculator builds its sets once for both.
  const rules = new Map<PlannedId, readonly TrafficRule[]>(before.rules);
  const edges = new Set(before.edges);
  const acting = changes.filter((c) => c.action !== 'no-op' && !isUnionStep(c));
  for (const c of acting) {
    // A deleted policy's rules go with it; a module the files do not name may still name it.
    if (c.action === 'delete' && c.id && isPolicy(c)) rules.set(c.id, []);
    const b = c.before && bindingOf(c.kind, c.key, c.before);
    if (b) bindings.delete(b.scope);
    const rule = c.before && ruleOf(c.kind, c.id, c.before);
    if (rule)
      rules.set(
        rule.policy,
        (rules.get(rule.policy) ?? []).filter((r) => r.id !== c.id),
      );
  }
  for (const c of acting) {
    const b = c.after && bindingOf(c.kind, c.key, c.after);
    if (b) bindings.set(b.scope, { enforced: b.enforced, policies: b.policies, source: c.address });
    const edge = isManaged(descriptorFor(c.kind)) ? undefined : moduleScope(c.kind, c.key);
    if (edge !== undefined) edges.add(edge);
    const rule = c.after && ruleOf(c.kind, null, c.after);
    if (rule) rules.set(rule.policy, [...(rules.get(rule.policy) ?? []), rule]);
  }
  return {
    bindings,
    rules,
    edges,
    ...(before.listed ? { listed: before.listed } : {}),
    ...(before.endpoints ? { endpoints: plannedEndpointScopes(before.endpoints, changes) } : {}),
  };
}

/** Every scope of either picture: the four types, then the TCP edges by ID, then the endpoints by URL. */
export function scopesOf(...pictures: TrafficPicture[]): string[] {
  const edges = new Set<string>();
  const endpoints = new Set<string>();
  for (const p of pictures) {
    for (const scope of [...p.edges, ...p.bindings.keys()]) if (isEdgeScope(scope)) edges.add(scope);
    for (const scope of p.endpoints?.keys() ?? []) endpoints.add(scope);
  }
  return [...TRAFFIC_TYPES, ...[...edges].sort(), ...[...endpoints].sort()];
}

/** The allow and deny CIDRs of a scope's policies as sets, and what they let through once computed. */
export interface ScopeSets {
  allow: AddressSet;
  deny: AddressSet;
  through?: AddressSet;
}

/** Reach per scope, with each policy's allow and deny sets built once. */
export class ReachCalculator {
  private readonly sets = new Map<PlannedId, PolicyBlocks>();

  /** `base`: a calculator of another picture whose sets this one takes for policies both hold alike. */
  constructor(
    readonly picture: TrafficPicture,
    private readonly base?: ReachCalculator,
  ) {}

  private readonly scopes = new Map<string, ScopeSets>();
  private readonly endpoints = new Map<string, ReachBounds>();
  private readonly actions = new Map<RestrictAction, AddressSet>();

  /** What the scope lets through (an endpoint: what every connection gets, its lower bound). */
  reach(scope: string): AddressSet {
    if (isEndpointScope(scope)) return this.bounds(scope).atLeast;
    const binding = this.picture.bindings.get(scope);
    if (!binding?.enforced) return AddressSet.everyone;
    // Kept with the sets, which a scope the plan leaves alone shares with the account's calculator:
    // its reach is then computed once, and is the same object before and after.
    const sets = this.scopeSets(scope);
    sets.through ??= sets.allow.minus(sets.deny);
    return sets.through;
  }

  /**
   * The bounds of what the scope lets through: equal but for an endpoint with a `restrict-ips` that
   * runs only sometimes; none for an endpoint this picture does not have.
   */
  bounds(scope: string): ReachBounds {
    if (!isEndpointScope(scope)) {
      const exact = this.reach(scope);
      return { atLeast: exact, atMost: exact };
    }
    let bounds = this.endpoints.get(scope);
    if (!bounds) {
      const endpoint = this.picture.endpoints?.get(scope);
      const account = this.reach('endpoints');
      const base = this.base;
      const shared =
        base !== undefined &&
        endpoint !== undefined &&
        base.picture.endpoints?.get(scope) === endpoint &&
        base.reach('endpoints') === account &&
        endpoint.actions.every((a) =>
          a.policies.every((p) => base.picture.rules.get(p) === this.picture.rules.get(p)),
        );
      bounds = shared
        ? base.bounds(scope)
        : endpoint
          ? endpointBounds(endpoint.actions, (a) => this.actionSet(a), account)
          : { atLeast: AddressSet.none, atMost: AddressSet.none };
      this.endpoints.set(scope, bounds);
    }
    return bounds;
  }

  /** What an endpoint's action lets through; the base's when its policies' rules are the same there. */
  actionSet(a: RestrictAction): AddressSet {
    let set = this.actions.get(a);
    if (!set) {
      const base = this.base;
      const same = base && a.policies.every((p) => base.picture.rules.get(p) === this.picture.rules.get(p));
      set = same ? base.actionSet(a) : actionSet(a, (p) => this.policy(p));
      this.actions.set(a, set);
    }
    return set;
  }

  /** The union of the allow CIDRs and of the deny CIDRs of the policies the scope's binding names. */
  scopeSets(scope: string): ScopeSets {
    let sets = this.scopes.get(scope);
    if (!sets) {
      const policies = this.picture.bindings.get(scope)?.policies ?? [];
      sets = this.sharesWithBase(scope, policies) ? this.base!.scopeSets(scope) : this.decisive(policies);
      this.scopes.set(scope, sets);
    }
    return sets;
  }

  /** Whether the base picture names the same policies for `scope`, each with the same rules. */
  private sharesWithBase(scope: string, policies: readonly PlannedId[]): boolean {
    const base = this.base?.picture;
    const theirs = base?.bindings.get(scope)?.policies;
    return (
      base !== undefined &&
      theirs !== undefined &&
      theirs.length === policies.length &&
      policies.every((p, i) => theirs[i] === p && base.rules.get(p) === this.picture.rules.get(p))
    );
  }

  /** The union of the allow CIDRs and of the deny CIDRs of `policies`. */
  decisive(policies: readonly PlannedId[]): ScopeSets {
    const sets = policies.map((p) => this.policy(p));
    return {
      allow: AddressSet.ofBlocks(sets.map((s) => s.allow)),
      deny: AddressSet.ofBlocks(sets.map((s) => s.deny)),
    };
  }

  /** The allow CIDRs and the deny CIDRs of one policy, read. */
  policy(id: PlannedId): PolicyBlocks {
    let sets = this.sets.get(id);
    if (!sets) {
      const rules = this.picture.rules.get(id) ?? [];
      const shared = this.base && this.base.picture.rules.get(id) === rules;
      sets = shared ? this.base!.policy(id) : policyBlocks(rules);
      this.sets.set(id, sets);
    }
    return sets;
  }
}

type PolicyBlocks = { allow: CidrBlocks; deny: CidrBlocks };

function policyBlocks(rules: readonly TrafficRule[]): PolicyBlocks {
  return CidrBlocks.ofRules(rules);
}

/** Both pictures of a plan: the account (`live`) and the account after `changes` (the kept ones). */
export function picturesOf(changes: readonly PlanChange[], live: Account) {
  const before = livePicture(live);
  return { before, after: plannedPicture(before, changes) };
}

/** Calculators of the account and of the account after `changes`. */
export function planCalculators(
  changes: readonly PlanChange[],
  live: Account,
): [ReachCalculator, ReachCalculator] {
  const { before, after } = picturesOf(changes, live);
  return calculatorsOf(before, after);
}

/** Every scope's reach before and after `changes`. */
export function reachOf(changes: readonly PlanChange[], live: Account): ScopeReach[] {
  const { before, after } = picturesOf(changes, live);
  return reachBetween(before, after);
}

export function reachBetween(before: TrafficPicture, after: TrafficPicture): ScopeReach[] {
  return reachWith(...calculatorsOf(before, after));
}

/** Calculators of the account and of the account after the plan, the second sharing the first's sets. */
export function calculatorsOf(
  before: TrafficPicture,
  after: TrafficPicture,
): [ReachCalculator, ReachCalculator] {
  const was = new ReachCalculator(before);
  return [was, new ReachCalculator(after, was)];
}

/** Every scope's reach by two calculators, of the account and of the account after the plan. */
export function reachWith(was: ReachCalculator, will: ReachCalculator): ScopeReach[] {
  const [before, after] = [was.picture, will.picture];
  return scopesOf(before, after).map((scope): ScopeReach => {
    if (isEndpointScope(scope)) return endpointReach(scope, was, will);
    return {
      scope,
      before: was.reach(scope),
      after: will.reach(scope),
      enforced: {
        before: before.bindings.get(scope)?.enforced === true,
        after: after.bindings.get(scope)?.enforced === true,
      },
    };
  });
}

export { type Decision, decide } from './decide.js';

/** How messages name a scope: `dashboard`, `TCP edge edgtcp_x`, `endpoint https://admin.example.com`. */
export function scopeLabel(scope: string): string {
  if (isEndpointScope(scope)) return `endpoint ${scope}`;
  const edge = edgeOfScope(scope);
  return edge === undefined ? scope : `TCP edge ${edge}`;
}

/** How messages name a policy: its live ID, or `ip_policies.KEY` for one the plan makes. */
export function policyLabel(policy: PlannedId): string {
  return typeof policy === 'string' ? policy : policy.address;
}

export const FAMILIES: readonly IpVersion[] = [4, 6];

/** An endpoint's reach: its bounds on each side, `most` only when one side is not exact. */
export function endpointReach(scope: string, was: ReachCalculator, will: ReachCalculator): ScopeReach {
  const [b, a] = [was.bounds(scope), will.bounds(scope)];
  const exact = b.atLeast.equals(b.atMost) && a.atLeast.equals(a.atMost);
  const [before, after] = [was.picture.endpoints?.get(scope), will.picture.endpoints?.get(scope)];
  const restricted = (c: ReachCalculator, e: EndpointScope | undefined) =>
    e !== undefined &&
    (c.picture.bindings.get('endpoints')?.enforced === true || e.actions.some((x) => x.enforce));
  return {
    scope,
    before: b.atLeast,
    after: a.atLeast,
    enforced: { before: restricted(was, before), after: restricted(will, after) },
    ...(exact ? {} : { most: { before: b.atMost, after: a.atMost } }),
    exists: { before: before !== undefined, after: after !== undefined },
    ...((after ?? before)?.address !== undefined ? { address: (after ?? before)!.address } : {}),
  };
}
