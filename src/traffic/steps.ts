// What a scope lets through at each step of an apply, checked on address sets (DESIGN §4 "Never fail
// open"). A scope's changes go in groups, one after another; within a group they may run in any order,
// and any of them may be the last. This file says whether a chain of groups keeps the scope between
// what the account lets through before (B) and after (A) at every moment: B ∩ A ⊆ let through ⊆ B ∪ A.
// src/traffic/order.ts orders by phases that keep it for any rules; this check lets it drop an order
// that these rules do not need, and find the steps of a swap of more policies than a restriction holds.
import { AddressSet } from '../net/cidr-set.js';
import { compareIds, type PlannedId } from '../resources/known-after-apply.js';

/** `ALL`: no restriction in force (none, warn-only, disabled): everything is let through. */
export type Policies = ReadonlySet<PlannedId> | 'ALL';

/** A rule change's effect on one policy's rules. */
export interface RuleMove {
  policy: PlannedId;
  action: 'allow' | 'deny';
  cidr: string;
  adds: boolean;
}

/** What one change of a group does to the scope: moves a rule, or switches the scope's policies. */
export type StepEffect = { rule: RuleMove } | { switchTo: Policies };

/** Each policy's rules: the CIDRs of its allow rules and of its deny rules. */
export type PolicyRules = ReadonlyMap<PlannedId, RulesOfPolicy>;

export interface RulesOfPolicy {
  readonly allow: ReadonlySet<string>;
  readonly deny: ReadonlySet<string>;
}

/** The rules once `moves` are made. */
export function withMoves(rules: PolicyRules, moves: readonly RuleMove[]): PolicyRules {
  const out = new Map(rules);
  for (const m of moves) {
    const was = out.get(m.policy);
    const set = new Set(was?.[m.action] ?? []);
    if (m.adds) set.add(m.cidr);
    else set.delete(m.cidr);
    out.set(m.policy, { allow: was?.allow ?? new Set(), deny: was?.deny ?? new Set(), [m.action]: set });
  }
  return out;
}

function cidrsOf(rules: PolicyRules, policies: Iterable<PlannedId>, action: 'allow' | 'deny'): string[] {
  const out: string[] = [];
  for (const p of policies) out.push(...(rules.get(p)?.[action] ?? []));
  return out;
}

/** What a scope naming `policies` lets through under `rules`. */
export function letThrough(policies: Policies, rules: PolicyRules): AddressSet {
  if (policies === 'ALL') return AddressSet.everyone;
  return AddressSet.of(cidrsOf(rules, policies, 'allow')).minus(
    AddressSet.of(cidrsOf(rules, policies, 'deny')),
  );
}

/** The bounds every moment must keep: B ∩ A and B ∪ A. */
export interface Bounds {
  both: AddressSet;
  either: AddressSet;
}

export function boundsOf(before: AddressSet, after: AddressSet): Bounds {
  return { both: before.intersect(after), either: before.union(after) };
}

function within(set: AddressSet, bounds: Bounds): boolean {
  return bounds.both.isSubsetOf(set) && set.isSubsetOf(bounds.either);
}

/** Whether one state (a policy set under some rules) keeps the bounds. */
export function stateKeeps(policies: Policies, rules: PolicyRules, bounds: Bounds): boolean {
  return within(letThrough(policies, rules), bounds);
}

/**
 * Whether every state a group can leave the scope in keeps the bounds, from `policies` under `rules`:
 * any part of its rule moves made, and the scope on its policies or on what the group switches it to.
 * Checked on what the most and the least any such state lets through, so it may refuse a group that
 * would keep them, never pass one that would not.
 */
function groupKeeps(
  policies: Policies,
  rules: PolicyRules,
  effects: readonly StepEffect[],
  bounds: Bounds,
): boolean {
  const moves = effects.flatMap((e) => ('rule' in e ? [e.rule] : []));
  const sets: Policies[] = [policies, ...effects.flatMap((e) => ('switchTo' in e ? [e.switchTo] : []))];
  const adds = moves.filter((m) => m.adds);
  const removes = moves.filter((m) => !m.adds);
  // The most: every allow that is or may come, no deny but those that stay; the least, the other way.
  const most = withMoves(rules, [
    ...adds.filter((m) => m.action === 'allow'),
    ...removes.filter((m) => m.action === 'deny'),
  ]);
  const least = withMoves(rules, [
    ...adds.filter((m) => m.action === 'deny'),
    ...removes.filter((m) => m.action === 'allow'),
  ]);
  for (const set of sets) {
    if (set === 'ALL') {
      if (!AddressSet.everyone.isSubsetOf(bounds.either)) return false;
      continue;
    }
    const upper = AddressSet.of(cidrsOf(most, set, 'allow')).minus(AddressSet.of(cidrsOf(most, set, 'deny')));
    const lower = AddressSet.of(cidrsOf(least, set, 'allow')).minus(
      AddressSet.of(cidrsOf(least, set, 'deny')),
    );
    if (!upper.isSubsetOf(bounds.either) || !bounds.both.isSubsetOf(lower)) return false;
  }
  return true;
}

/**
 * Whether a chain of groups keeps the bounds at every moment, from `policies` under `rules`: each group
 * runs once the groups before it are done; a floating move may be made at any moment. A group switches
 * the scope at most once.
 */
export function chainKeeps(
  policies: Policies,
  rules: PolicyRules,
  groups: readonly (readonly StepEffect[])[],
  bounds: Bounds,
  floating: readonly RuleMove[] = [],
): boolean {
  let current = policies;
  let now = rules;
  const free = floating.map((rule) => ({ rule }));
  // With no group left, the floating moves alone: made or not, on the policies the groups end with.
  for (const effects of groups.length > 0 ? groups : [[]]) {
    if (!groupKeeps(current, now, [...effects, ...free], bounds)) return false;
    now = withMoves(
      now,
      effects.flatMap((e) => ('rule' in e ? [e.rule] : [])),
    );
    for (const e of effects) if ('switchTo' in e) current = e.switchTo;
  }
  return true;
}

/**
 * The policy sets a restriction passes through on its way from `from` to `to` when the union of both
 * is more than `limit` policies: each at most `limit`, each keeping the bounds under `rules` (the
 * rules at the moment of the switch), the last holding every policy of `to`. Policies are added while
 * there is room and taken out when the bounds allow it. Undefined when no such steps are found.
 */
export function limitedSteps(
  from: ReadonlySet<PlannedId>,
  to: ReadonlySet<PlannedId>,
  limit: number,
  rules: PolicyRules,
  bounds: Bounds,
): ReadonlySet<PlannedId>[] | undefined {
  const entering = [...to].filter((p) => !from.has(p)).sort(compareIds);
  const leaving = [...from].filter((p) => !to.has(p)).sort(compareIds);
  const steps: ReadonlySet<PlannedId>[] = [];
  let current = new Set(from);
  while (entering.some((p) => !current.has(p))) {
    const next = new Set(current);
    for (const p of entering) {
      if (next.size >= limit || next.has(p)) continue;
      next.add(p);
      if (!stateKeeps(next, rules, bounds)) next.delete(p);
    }
    if (entering.some((p) => !next.has(p))) {
      for (const p of leaving) {
        if (!next.has(p)) continue;
        next.delete(p);
        if (!stateKeeps(next, rules, bounds)) next.add(p);
      }
    }
    if (samePolicySet(next, current)) return undefined;
    steps.push(next);
    current = next;
  }
  return steps;
}

function samePolicySet(a: ReadonlySet<PlannedId>, b: ReadonlySet<PlannedId>): boolean {
  return a.size === b.size && [...a].every((p) => b.has(p));
}
