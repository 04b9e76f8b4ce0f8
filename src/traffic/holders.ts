// What the service refuses about references, and a plan orders around (DESIGN §2 "IP policies and their
// rules"; shared/SPEC-ip-policies.md "What the production service refuses"). Whether a restriction is
// enforced does not matter here: the service keeps a policy that any IP restriction names (1420), and
// the only rule of a policy that the dashboard restriction uses (1419). A TCP edge's module does not
// block a delete, but then names a policy with no rules, which lets none of that edge's traffic in: a
// plan never gets there either. Where a plan could only get there through a refused request, it is a
// plan error that says what to detach first.

import { type Account, type LiveResource, listedModule } from '../account/model.js';
import type { PlanChange, PlanProblem, PolicyHolder, Warning } from '../plan/types.js';
import { descriptorFor, isManaged, type TrafficRole } from '../resources/index.js';
import type { PlannedId } from '../resources/known-after-apply.js';
import { mayChangeEndpoints } from './edges.js';
import { policiesNamedBy } from './named-policies.js';
import { isUnionStep } from './order.js';
import { isPolicy, managedWithRole, restrictionOf, restrictionRole, roleOf, ruleOf } from './roles.js';

type RestrictionRole = Extract<TrafficRole, { role: 'restriction' }>;

/** The live objects of the managed kinds that restrict (IP restrictions), with their kind's role. */
function liveRestrictions(live: Account): { resource: LiveResource; role: RestrictionRole }[] {
  return managedWithRole('restriction').flatMap((d) => {
    const role = restrictionRole(d.traffic)!;
    return (live.managed[d.kind] ?? []).map((resource) => ({ resource, role }));
  });
}

/** The policy IDs a change's values name; none for a kind that names none. */
function policiesOf(c: PlanChange, values: PlanChange['after']): readonly PlannedId[] {
  return restrictionOf(c, values)?.policies ?? [];
}

/** What names a policy after the plan, or the change after which it no longer does. */
interface Holder {
  is: PolicyHolder;
  /** The change that stops it naming the policy; undefined when it still names it after the plan. */
  releasedBy?: PlanChange;
  /** The service refuses the policy's delete while it names it (an IP restriction, not a module). */
  keeps: boolean;
}

/** The final change of each live object a change acts on (not a union step), by kind and ID. */
function changeOf(changes: readonly PlanChange[], kind: string, id: string): PlanChange | undefined {
  return changes.find((c) => c.kind === kind && c.id === id && !isUnionStep(c) && c.action !== 'no-op');
}

/** Whether, after `c`, its object still names `policy` (a delete or replace takes the old object away). */
function namesAfter(c: PlanChange | undefined, before: readonly PlannedId[], policy: string): boolean {
  if (!c) return before.includes(policy);
  if (c.action === 'delete' || c.action === 'replace' || c.after === null) return false;
  return policiesOf(c, c.after).includes(policy);
}

/** Every IP restriction and TCP edge module that names `policy` before the plan or after it. */
function holdersOf(changes: readonly PlanChange[], live: Account, policy: string): Holder[] {
  const holders: Holder[] = [];
  for (const { resource, role } of liveRestrictions(live)) {
    const restriction = role.restricts(resource.values, '');
    if (!restriction.policies.includes(policy)) continue;
    const c = changeOf(changes, resource.descriptor.kind, resource.id);
    const still = namesAfter(c, restriction.policies, policy);
    const is: PolicyHolder = { is: 'restriction', id: resource.id, type: restriction.name };
    holders.push({ is, keeps: role.keepsPolicies, ...(still ? {} : { releasedBy: c }) });
  }
  for (const c of changes) {
    if (c.action !== 'create' || isUnionStep(c)) continue;
    const role = restrictionRole(descriptorFor(c.kind).traffic);
    if (role && policiesOf(c, c.after).includes(policy))
      holders.push({ is: { is: 'new_restriction', address: c.address }, keeps: role.keepsPolicies });
  }
  return [...holders, ...moduleHoldersOf(changes, live, policy), ...endpointHoldersOf(changes, live, policy)];
}

/** The policies an endpoint change's values name; undefined when the change's kind is no endpoint. */
function endpointNames(c: PlanChange, values: PlanChange['after']): readonly PlannedId[] | undefined {
  const role = roleOf(c);
  if (role?.role !== 'endpoint') return undefined;
  return values ? policiesNamedBy(role.endpoint(values).document) : [];
}

/**
 * Every endpoint whose traffic policy names `policy` before the plan (as listed) or after it. Whether
 * the service refuses the delete is not known (shared/SPEC-endpoints.md "What the service does not
 * say"): accord never plans it.
 */
function endpointHoldersOf(changes: readonly PlanChange[], live: Account, policy: string): Holder[] {
  const holders: Holder[] = [];
  for (const e of Array.isArray(live.endpoints) ? live.endpoints : []) {
    const c = changes.find(
      (c) => c.id === e.id && !isUnionStep(c) && c.action !== 'no-op' && endpointNames(c, null),
    );
    const before = policiesNamedBy(e.document).includes(policy);
    const after = c ? c.action !== 'delete' && endpointNames(c, c.after)!.includes(policy) : before;
    if (!before && !after) continue;
    const is: PolicyHolder = { is: 'endpoint', id: e.id, url: e.url };
    holders.push({ is, keeps: false, ...(after ? {} : { releasedBy: c }) });
  }
  for (const c of changes) {
    if (c.action === 'create' && !isUnionStep(c) && endpointNames(c, c.after)?.includes(policy))
      holders.push({ is: { is: 'new_endpoint', address: c.address }, keeps: false });
  }
  return holders;
}

/** A module that restricts, by its kind and ID: what it named before the plan. */
interface ModuleBefore {
  kind: string;
  id: string;
  key: string;
  policies: readonly PlannedId[];
  keeps: boolean;
}

/** Every module (a TCP edge's IP restriction) that names `policy` before the plan or after it. */
function moduleHoldersOf(changes: readonly PlanChange[], live: Account, policy: string): Holder[] {
  const modules = new Map<string, ModuleBefore>();
  const add = (m: ModuleBefore) => modules.set(`${m.kind}\u0000${m.id}`, m);
  const listed = listedModule();
  const listedRole = restrictionRole(listed?.traffic);
  if (Array.isArray(live.tcpEdges) && listed && listedRole) {
    for (const edge of live.tcpEdges) {
      if (!edge.module) continue;
      const policies = listedRole.restricts(edge.module, edge.id).policies;
      add({ kind: listed.kind, id: edge.id, key: edge.id, policies, keeps: listedRole.keepsPolicies });
    }
  }
  // A module the files name is read on its own: what it holds now is what it held before the plan.
  for (const c of changes) {
    const role = restrictionRole(descriptorFor(c.kind).traffic);
    if (!role || isManaged(descriptorFor(c.kind)) || isUnionStep(c) || c.id === null) continue;
    add({ kind: c.kind, id: c.id, key: c.key, policies: policiesOf(c, c.before), keeps: role.keepsPolicies });
  }
  const holders: Holder[] = [];
  for (const m of modules.values()) {
    const c = changeOf(changes, m.kind, m.id);
    const named = c?.action === 'put' && policiesOf(c, c.after).includes(policy);
    if (!m.policies.includes(policy) && !named) continue;
    const still = c ? named : m.policies.includes(policy);
    holders.push({
      is: { is: 'tcp_edge_module', edge: m.key },
      keeps: m.keeps,
      ...(still ? {} : { releasedBy: c }),
    });
  }
  return holders;
}

/**
 * Makes each policy delete wait for every change that stops an IP restriction or TCP edge module
 * naming the policy; returns a problem for each policy that something still names after the plan.
 */
export function orderPolicyDeletes(changes: readonly PlanChange[], live: Account): PlanProblem[] {
  const problems: PlanProblem[] = [];
  for (const d of changes) {
    if (d.action !== 'delete' || d.id === null || !isPolicy(d)) continue;
    const holders = holdersOf(changes, live, d.id);
    const kept = holders.filter((h) => !h.releasedBy);
    for (const h of holders) {
      if (h.releasedBy && !d.depends_on.includes(h.releasedBy.address))
        d.depends_on.push(h.releasedBy.address);
    }
    if (kept.length === 0) continue;
    problems.push({
      code: 'policy_still_named',
      address: d.address,
      id: d.id,
      holders: kept.map((h) => h.is),
      refused: kept.some((h) => h.keeps),
    });
  }
  return problems;
}

/** Warnings about references to deleted policies that this plan cannot see. */
export function unseenReferenceWarnings(changes: readonly PlanChange[], live: Account): Warning[] {
  // The endpoints were asked for (a rule changes) and the service has none to list: their reach is unseen.
  const warnings: Warning[] =
    live.endpoints === 'unavailable' && mayChangeEndpoints(changes) ? [{ code: 'unlisted_endpoints' }] : [];
  for (const c of changes) {
    if (c.action !== 'delete' || !isPolicy(c)) continue;
    if (!Array.isArray(live.tcpEdges)) {
      const edges = live.tcpEdges === 'unavailable' ? 'unavailable' : 'unlisted';
      warnings.push({ code: 'unseen_tcp_edges', address: c.address, id: String(c.id), edges });
    }
    if (!Array.isArray(live.endpoints)) {
      const endpoints = live.endpoints === 'unavailable' ? 'unavailable' : 'unlisted';
      warnings.push({ code: 'unseen_endpoints', address: c.address, id: String(c.id), endpoints });
    }
  }
  return warnings;
}

/** The rule changes of one policy, and the live rules it keeps. */
interface PolicyRules {
  creates: PlanChange[];
  deletes: PlanChange[];
  /** Live rules of the policy that no change deletes. */
  kept: number;
}

function rulesOf(changes: readonly PlanChange[], live: Account, policy: PlannedId): PolicyRules {
  const creates = changes.filter((c) => c.action === 'create' && ruleOf(c, c.after)?.policy === policy);
  const deletes = changes.filter((c) => c.action === 'delete' && ruleOf(c, c.before)?.policy === policy);
  const deleted = new Set(deletes.map((c) => c.id));
  let kept = 0;
  for (const d of managedWithRole('rule')) {
    for (const r of live.managed[d.kind] ?? []) {
      if (!deleted.has(r.id) && ruleOf(d, r.values)?.policy === policy) kept++;
    }
  }
  return { creates, deletes, kept };
}

/** Whether the service keeps the only rule of each policy that these values of the change's kind name. */
function protects(c: Pick<PlanChange, 'kind'>, values: PlanChange['after']): boolean {
  const role = restrictionRole(descriptorFor(c.kind).traffic);
  return values !== null && role?.protectsLastRule?.(values) === true;
}

/**
 * The restriction whose policies' only rules the service keeps (the dashboard IP restriction): its
 * policies before and after the plan, and the changes that switch it.
 */
function protectingOf(changes: readonly PlanChange[], live: Account) {
  const found = liveRestrictions(live).find(({ resource }) => protects(resource.descriptor, resource.values));
  const before = found ? found.role.restricts(found.resource.values, '').policies : [];
  const own = found ? changeOf(changes, found.resource.descriptor.kind, found.resource.id) : undefined;
  const planned = changes.find((c) => !isUnionStep(c) && c.action !== 'no-op' && protects(c, c.after));
  const after = planned ? policiesOf(planned, planned.after) : own ? [] : before;
  return { id: found ? found.resource.id : (planned?.address ?? ''), before, after, own, planned };
}

/**
 * The only rule of a policy that the dashboard restriction uses is never deleted (1419): a policy's
 * rules are deleted after the dashboard restriction stops naming it, and before it starts to. Run
 * before the traffic order, whose union steps take these dependencies with them.
 */
export function orderDashboardRules(changes: readonly PlanChange[], live: Account): void {
  const dashboard = protectingOf(changes, live);
  const wait = (c: PlanChange, on: readonly PlanChange[]) => {
    for (const o of on) if (!c.depends_on.includes(o.address)) c.depends_on.push(o.address);
  };
  for (const p of dashboard.before) {
    if (dashboard.after.includes(p) || !dashboard.own) continue;
    for (const d of rulesOf(changes, live, p).deletes) wait(d, [dashboard.own]);
  }
  for (const p of dashboard.after) {
    if (dashboard.before.includes(p) || !dashboard.planned) continue;
    wait(dashboard.planned, rulesOf(changes, live, p).deletes);
  }
}

/** Addresses reachable from `start` along `next` (not `start` itself). */
function reach(start: string, next: (address: string) => readonly string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...next(start)];
  while (todo.length > 0) {
    const a = todo.pop()!;
    if (seen.has(a)) continue;
    seen.add(a);
    todo.push(...next(a));
  }
  return seen;
}

/**
 * For each policy the dashboard restriction names before and after the plan, checks on the plan's
 * order that no rule delete can come when the rule is the policy's last: some other rule must exist
 * then in every order the dependencies allow. Where a create of the policy can come first, the delete
 * waits for it; otherwise the plan could only get there through a refused request (a flip of the only
 * rule, the last rule removed): a problem saying what to do first.
 */
export function checkOnlyRuleDeletes(changes: readonly PlanChange[], live: Account): PlanProblem[] {
  const dashboard = protectingOf(changes, live);
  const deletedPolicies = new Set<PlannedId | null>(
    changes.filter((c) => c.action === 'delete' && isPolicy(c)).map((c) => c.id),
  );
  // The plan's dependency graph, built only for a plan that deletes a rule of such a policy.
  let graph: { byAddress: Map<string, PlanChange>; dependents: Map<string, string[]> } | undefined;
  const graphOf = () => {
    if (graph) return graph;
    const dependents = new Map<string, string[]>();
    for (const c of changes) {
      for (const a of c.depends_on) dependents.set(a, [...(dependents.get(a) ?? []), c.address]);
    }
    graph = { byAddress: new Map(changes.map((c) => [c.address, c])), dependents };
    return graph;
  };
  const ancestors = (c: PlanChange) => reach(c.address, (a) => graphOf().byAddress.get(a)?.depends_on ?? []);
  const descendants = (c: PlanChange) => reach(c.address, (a) => graphOf().dependents.get(a) ?? []);
  const problems: PlanProblem[] = [];
  for (const p of dashboard.before.filter((id) => dashboard.after.includes(id) && !deletedPolicies.has(id))) {
    const { creates, deletes, kept } = rulesOf(changes, live, p);
    if (kept > 0) continue;
    for (const d of deletes) {
      const before = ancestors(d);
      const after = descendants(d);
      const present =
        creates.some((c) => before.has(c.address)) || deletes.some((o) => o !== d && after.has(o.address));
      if (present) continue;
      const first = creates.find((c) => !after.has(c.address));
      if (first) {
        d.depends_on.push(first.address);
        const { dependents } = graphOf();
        for (const a of [first.address, ...ancestors(first)])
          dependents.set(a, [...(dependents.get(a) ?? []), d.address]);
        continue;
      }
      const cidr = ruleOf(d, d.before)?.cidr ?? '';
      problems.push({ code: 'last_rule', address: d.address, cidr, policy: p, restriction: dashboard.id });
    }
  }
  return problems;
}
