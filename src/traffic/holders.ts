// What the service refuses about references, and a plan orders around (DESIGN §2 "IP policies and their
// rules"; shared/SPEC-ip-policies.md "What the production service refuses"). Whether a restriction is
// enforced does not matter here: the service keeps a policy that any IP restriction names (1420), and
// the only rule of a policy that the dashboard restriction uses (1419). A TCP edge's module does not
// block a delete, but then names a policy with no rules, which lets none of that edge's traffic in: a
// plan never gets there either. Where a plan could only get there through a refused request, it is a
// plan error that says what to detach first.

import type { Account } from '../account/model.js';
import type { PlanChange, PlanProblem, PolicyHolder, Warning } from '../plan/types.js';
import { isRecord, type LiveObject, str } from '../resources/values.js';
import { isUnionStep } from './order.js';

/** The live objects of a kind as the API listed them. */
const listed = (live: Account, kind: 'ip_restriction' | 'ip_policy_rule'): readonly LiveObject[] =>
  (live.managed[kind] ?? []).map((r) => r.object);

/** The policy IDs an `ip_policies` value names: Refs as the service lists them, or IDs as a plan holds them. */
function idsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.map((r) => (isRecord(r) ? str(r['id']) : str(r))).filter((id) => id !== '');
}

/** What names a policy after the plan, or the change after which it no longer does. */
interface Holder {
  is: PolicyHolder;
  /** The change that stops it naming the policy; undefined when it still names it after the plan. */
  releasedBy?: PlanChange;
  /** An IP restriction (the service refuses the delete) rather than a TCP edge's module. */
  restriction: boolean;
}

/** The final change of each live object a change acts on (not a union step), by kind and ID. */
function changeOf(changes: readonly PlanChange[], kind: string, id: string): PlanChange | undefined {
  return changes.find((c) => c.kind === kind && c.id === id && !isUnionStep(c) && c.action !== 'no-op');
}

/** Whether, after `c`, its object still names `policy` (a delete or replace takes the old object away). */
function namesAfter(c: PlanChange | undefined, before: string[], policy: string): boolean {
  if (!c) return before.includes(policy);
  if (c.action === 'delete' || c.action === 'replace' || c.after === null) return false;
  return idsOf(c.after['ip_policies']).includes(policy);
}

/** Every IP restriction and TCP edge module that names `policy` before the plan or after it. */
function holdersOf(changes: readonly PlanChange[], live: Account, policy: string): Holder[] {
  const holders: Holder[] = [];
  for (const obj of listed(live, 'ip_restriction')) {
    const before = idsOf(obj['ip_policies']);
    if (!before.includes(policy)) continue;
    const c = changeOf(changes, 'ip_restriction', str(obj['id']));
    const still = namesAfter(c, before, policy);
    const is: PolicyHolder = { is: 'restriction', id: str(obj['id']), type: str(obj['type']) };
    holders.push({ is, restriction: true, ...(still ? {} : { releasedBy: c }) });
  }
  for (const c of changes) {
    if (c.kind !== 'ip_restriction' || c.action !== 'create' || isUnionStep(c)) continue;
    if (idsOf(c.after?.['ip_policies']).includes(policy)) {
      holders.push({ is: { is: 'new_restriction', address: c.address }, restriction: true });
    }
  }
  const edges = new Map<string, string[]>();
  if (Array.isArray(live.tcpEdges)) {
    for (const edge of live.tcpEdges) if (edge.module) edges.set(edge.id, idsOf(edge.module['ip_policies']));
  }
  // A module the files name is read on its own: what it holds now is what it held before the plan.
  for (const c of changes) {
    if (c.kind === 'tcp_edge_ip_restriction' && !isUnionStep(c))
      edges.set(c.key, idsOf(c.before?.['ip_policies']));
  }
  for (const [edge, before] of edges) {
    const c = changeOf(changes, 'tcp_edge_ip_restriction', edge);
    const named = c?.action === 'put' && idsOf(c.after?.['ip_policies']).includes(policy);
    if (!before.includes(policy) && !named) continue;
    const still = c ? named : before.includes(policy);
    holders.push({
      is: { is: 'tcp_edge_module', edge },
      restriction: false,
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
    if (d.kind !== 'ip_policy' || d.action !== 'delete' || d.id === null) continue;
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
    });
  }
  return problems;
}

/** Warnings about references to deleted policies that this plan cannot see. */
export function unseenReferenceWarnings(changes: readonly PlanChange[], live: Account): Warning[] {
  const warnings: Warning[] = [];
  for (const c of changes) {
    if (c.kind !== 'ip_policy' || c.action !== 'delete') continue;
    if (!Array.isArray(live.tcpEdges)) {
      const edges = live.tcpEdges === 'unavailable' ? 'unavailable' : 'unlisted';
      warnings.push({ code: 'unseen_tcp_edges', address: c.address, id: String(c.id), edges });
    }
    warnings.push({ code: 'unseen_endpoints', address: c.address, id: String(c.id) });
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

function rulesOf(changes: readonly PlanChange[], live: Account, policy: string): PolicyRules {
  const ofPolicy = (v: Record<string, unknown> | null) => v !== null && str(v['ip_policy']) === policy;
  const creates = changes.filter(
    (c) => c.kind === 'ip_policy_rule' && c.action === 'create' && ofPolicy(c.after),
  );
  const deletes = changes.filter(
    (c) => c.kind === 'ip_policy_rule' && c.action === 'delete' && ofPolicy(c.before),
  );
  const deleted = new Set(deletes.map((c) => c.id));
  const kept = listed(live, 'ip_policy_rule').filter(
    (r) => isRecord(r['ip_policy']) && str(r['ip_policy']['id']) === policy && !deleted.has(str(r['id'])),
  ).length;
  return { creates, deletes, kept };
}

/** The dashboard IP restriction's policies before and after the plan, and the changes that switch it. */
function dashboardOf(changes: readonly PlanChange[], live: Account) {
  const obj = listed(live, 'ip_restriction').find((r) => str(r['type']) === 'dashboard');
  const before = obj ? idsOf(obj['ip_policies']) : [];
  const own = obj ? changeOf(changes, 'ip_restriction', str(obj['id'])) : undefined;
  const planned = changes.find(
    (c) =>
      c.kind === 'ip_restriction' &&
      !isUnionStep(c) &&
      c.action !== 'no-op' &&
      str(c.after?.['type']) === 'dashboard',
  );
  const after = planned ? idsOf(planned.after?.['ip_policies']) : own ? [] : before;
  return { id: obj ? str(obj['id']) : (planned?.address ?? ''), before, after, own, planned };
}

/**
 * The only rule of a policy that the dashboard restriction uses is never deleted (1419): a policy's
 * rules are deleted after the dashboard restriction stops naming it, and before it starts to. Run
 * before the traffic order, whose union steps take these dependencies with them.
 */
export function orderDashboardRules(changes: readonly PlanChange[], live: Account): void {
  const dashboard = dashboardOf(changes, live);
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
  const dashboard = dashboardOf(changes, live);
  const deletedPolicies = new Set(
    changes.filter((c) => c.kind === 'ip_policy' && c.action === 'delete').map((c) => c.id),
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
      const cidr = str(d.before?.['cidr']);
      problems.push({ code: 'last_rule', address: d.address, cidr, policy: p, restriction: dashboard.id });
    }
  }
  return problems;
}
