// An endpoint's change (its traffic policy created or patched) between the rule changes of the IP
// policies it names (DESIGN §4 "Never fail open"), proposed: the rule changes of a policy only its new
// document names go first (a policy is whole before an endpoint starts naming it, so the service never
// sees a deny with nothing allowed yet, ERR_NGROK_393); those of a policy only its old document named go
// after it (the old policy keeps deciding until nothing names it); a policy both documents name has its
// rule changes on the side the check below proves, any subset of them done. Every state of the result
// is then judged on the plan's own order, and ordered anew where this proposal falls short, by
// src/traffic/endpoint-states.ts.

import type { Account } from '../account/model.js';
import { AddressSet, CidrBlocks } from '../net/cidr-set.js';
import type { PlanChange } from '../plan/types.js';
import type { PlannedId } from '../resources/known-after-apply.js';
import type { Proposed } from './chains.js';
import { actionSet, endpointBounds, restrictActions } from './endpoint-policy.js';
import { deniesOnlyAt, policiesNamedBy } from './named-policies.js';
import { managedWithRole, roleOf, ruleOf } from './roles.js';
import { type PolicyRules, type RuleMove, withMoves } from './steps.js';

type Document = Readonly<Record<string, unknown>> | undefined;
/** The rules of each policy by ID: its allow and deny CIDRs. */
export type LiveRules = PolicyRules;

/** A rule change: which rule of which policy it makes (`adds`) or deletes. */
interface RuleChange extends RuleMove {
  change: PlanChange;
  /** It lets more in (an allow made, a deny gone). */
  widens: boolean;
}

function documentOf(c: PlanChange, values: PlanChange['after']): Document | null {
  const role = roleOf(c);
  if (role?.role !== 'endpoint') return null;
  return values ? role.endpoint(values).document : undefined;
}

function ruleChanges(changes: readonly PlanChange[]): RuleChange[] {
  return changes.flatMap((change) => {
    if (change.action !== 'create' && change.action !== 'delete') return [];
    const rule = ruleOf(change, change.after ?? change.before);
    if (!rule) return [];
    const adds = change.action === 'create';
    return [{ change, ...rule, adds, widens: adds === (rule.action === 'allow') }];
  });
}

/** What a document lets through on these rules: at least, at most. */
function letThrough(document: Document, rules: LiveRules) {
  const sets = (p: PlannedId) => {
    const r = rules.get(p);
    return { allow: CidrBlocks.of(r?.allow ?? []), deny: CidrBlocks.of(r?.deny ?? []) };
  };
  return endpointBounds(restrictActions(document), (a) => actionSet(a, sets), AddressSet.everyone);
}

/** Whether the states with `document` on `rules` plus any subset of `pending` stay within [lo, hi]. */
function sideKeeps(
  document: Document,
  rules: LiveRules,
  pending: readonly RuleChange[],
  lo: AddressSet,
  hi: AddressSet,
) {
  const widest = letThrough(
    document,
    withMoves(
      rules,
      pending.filter((c) => c.widens),
    ),
  );
  const narrowest = letThrough(
    document,
    withMoves(
      rules,
      pending.filter((c) => !c.widens),
    ),
  );
  return widest.atMost.isSubsetOf(hi) && lo.isSubsetOf(narrowest.atLeast);
}

/** Whether `from` depends, through `depends_on`, on the change at address `to`. */
function reaches(byAddress: ReadonlyMap<string, PlanChange>, from: PlanChange, to: string): boolean {
  const seen = new Set<string>();
  const stack = [...from.depends_on];
  while (stack.length > 0) {
    const address = stack.pop()!;
    if (address === to) return true;
    if (seen.has(address)) continue;
    seen.add(address);
    stack.push(...(byAddress.get(address)?.depends_on ?? []));
  }
  return false;
}

/** Makes `later` wait for `first`; false when `first` already waits for `later`. */
function wait(
  byAddress: ReadonlyMap<string, PlanChange>,
  later: PlanChange,
  first: PlanChange,
  proposed: Proposed,
): boolean {
  if (later.depends_on.includes(first.address)) return true;
  if (reaches(byAddress, first, later.address)) return false;
  later.depends_on.push(first.address);
  const noted = proposed.get(later) ?? new Set<string>();
  proposed.set(later, noted.add(first.address));
  return true;
}

/** The rule changes to go before the endpoint's change; undefined when no order keeps it between. */
function beforeChange(
  e: PlanChange,
  rules: readonly RuleChange[],
  live: LiveRules,
): RuleChange[] | undefined {
  const [old, next] = [e.action === 'patch' ? documentOf(e, e.before) : undefined, documentOf(e, e.after)];
  const [was, will] = [policiesNamedBy(old ?? undefined), policiesNamedBy(next ?? undefined)];
  const mine = rules.filter((r) => was.includes(r.policy) || will.includes(r.policy));
  const onlyNew = mine.filter((r) => !was.includes(r.policy));
  const both = mine.filter((r) => was.includes(r.policy) && will.includes(r.policy));
  if (e.action === 'create' || both.length === 0) return [...onlyNew, ...both];
  const [B, A] = [letThrough(old ?? undefined, live), letThrough(next ?? undefined, withMoves(live, mine))];
  const lo = B.atLeast.intersect(A.atLeast);
  const hi = B.atMost.union(A.atMost);
  for (const first of [[...onlyNew, ...both], onlyNew]) {
    const then = mine.filter((r) => !first.includes(r));
    const done = withMoves(live, first);
    // The service checks the new document against the rules as they are when it is sent.
    const refused = deniesOnlyAt(next ?? undefined, (p, action) => (done.get(p)?.[action].size ?? 0) > 0);
    if (refused !== undefined) continue;
    if (sideKeeps(old ?? undefined, live, first, lo, hi) && sideKeeps(next ?? undefined, done, then, lo, hi))
      return first;
  }
  return undefined;
}

/**
 * Proposes the order of each endpoint create or patch among the rule changes of the policies it names:
 * the dependencies of the first side the check above proves. Where none is proven, or one would close
 * a cycle, it proposes nothing more for that endpoint: every state of the result is judged, and the
 * order found where the proposal falls short, by src/traffic/endpoint-states.ts.
 */
export function orderEndpointChanges(
  changes: readonly PlanChange[],
  account: Account,
  proposed: Proposed,
): void {
  const byAddress = new Map(changes.map((c) => [c.address, c]));
  const rules = ruleChanges(changes);
  let live: LiveRules | undefined;
  for (const e of changes) {
    if ((e.action !== 'create' && e.action !== 'patch') || documentOf(e, e.after) === null) continue;
    live ??= liveRules(account);
    const first = beforeChange(e, rules, live);
    if (first === undefined) continue;
    const was = e.action === 'patch' ? policiesNamedBy(documentOf(e, e.before) ?? undefined) : [];
    const will = policiesNamedBy(documentOf(e, e.after) ?? undefined);
    rules.every((r) => {
      if (first.includes(r)) return wait(byAddress, e, r.change, proposed);
      return !(was.includes(r.policy) || will.includes(r.policy)) || wait(byAddress, r.change, e, proposed);
    });
  }
}

/** The rules of each policy the account has, read through the rule role of their kind. */
export function liveRules(account: Account): LiveRules {
  const rules = new Map<PlannedId, { allow: Set<string>; deny: Set<string> }>();
  for (const d of managedWithRole('rule')) {
    for (const obj of account.managed[d.kind] ?? []) {
      const rule = ruleOf(d, obj.values);
      if (!rule) continue;
      const r = rules.get(rule.policy) ?? { allow: new Set<string>(), deny: new Set<string>() };
      rules.set(rule.policy, r);
      r[rule.action].add(rule.cidr);
    }
  }
  return rules;
}

/** Whether every state the groups can leave, in turn, any subset of each, stays within [lo, hi]. */
function groupsKeep(
  document: Document,
  live: LiveRules,
  groups: readonly RuleChange[][],
  lo: AddressSet,
  hi: AddressSet,
) {
  let done = live;
  for (const group of groups) {
    if (!sideKeeps(document, done, group, lo, hi)) return false;
    done = withMoves(done, group);
  }
  return true;
}

/**
 * The groups in which to make the rule changes of the policies a listed endpoint's traffic policy
 * names, one after another: the reference order (`reference`, as for a restriction) where an exact
 * check of each group's widest and narrowest states proves it keeps the endpoint between what it lets
 * through before and after; else every change that lets fewer in, then every change that lets more in
 * (two actions of one endpoint, one gaining what the other loses); undefined when neither holds.
 */
export function endpointGroups(
  document: Document,
  reference: readonly (readonly PlanChange[])[],
  live: LiveRules,
): PlanChange[][] | undefined {
  const rules = ruleChanges(reference.flat());
  const byChange = new Map(rules.map((r) => [r.change, r]));
  const asRules = (groups: readonly (readonly PlanChange[])[]) =>
    groups.map((g) => g.flatMap((c) => (byChange.has(c) ? [byChange.get(c)!] : [])));
  const [B, A] = [letThrough(document, live), letThrough(document, withMoves(live, rules))];
  const lo = B.atLeast.intersect(A.atLeast);
  const hi = B.atMost.union(A.atMost);
  const narrowing = rules.filter((r) => !r.widens).map((r) => r.change);
  const widening = rules.filter((r) => r.widens).map((r) => r.change);
  for (const groups of [reference, [narrowing, widening]]) {
    const kept = groups.filter((g) => g.length > 0);
    if (groupsKeep(document, live, asRules(kept), lo, hi)) return kept.map((g) => [...g]);
  }
  return undefined;
}
