// The lockout guard (DESIGN §2), judged on reach (src/traffic/reach.ts), exactly and per address family,
// so that the verdict is the same however the rules get there: an empty or deny-only policy swapped in,
// a deny of every address shadowing each allow, an IPv6-only allow, a type moved between keys, a part
// of the files selected, several files. Also the rules that do nothing after the plan.

import type { Account } from '../account/model.js';
import { type IpVersion, parseCidr } from '../net/cidr.js';
import { AddressSet } from '../net/cidr-set.js';
import type { PlanChange, Refusal, ScopeReachJson, Warning } from '../plan/types.js';
import type { PlannedId } from '../resources/known-after-apply.js';
import { ENDPOINTS_TYPE } from '../resources/scope.js';
import { changesEndpointsRestriction } from './edges.js';
import {
  type Binding,
  FAMILIES,
  planCalculators,
  policyLabel,
  type ReachCalculator,
  reachWith,
  type ScopeReach,
  scopeBefore,
  type TrafficPicture,
} from './reach.js';
import { isPolicy, kindsWithRole, ruleOf } from './roles.js';

export interface LockoutVerdict {
  /** Refuse the plan unless --force. */
  refusals: Refusal[];
  warnings: Warning[];
}

/** The plan's reach and the guard's verdict on it, for the plan's kept changes. */
export function judgeReach(
  changes: readonly PlanChange[],
  live: Account,
): LockoutVerdict & {
  reach: ScopeReachJson[];
  unchanged: string[];
  /** The calculators it judged by, for the guards to check the same sets. */
  was: ReachCalculator;
  will: ReachCalculator;
} {
  const [was, will] = planCalculators(changes, live);
  const [before, after] = [was.picture, will.picture];
  const reach = reachWith(was, will);
  const keys = policyKeys(changes);
  const verdict = lockoutGuard(reach, after, keys);
  const changed = reach.filter((r) => !sameReach(r));
  return {
    refusals: verdict.refusals.map((r) => blamed(r, was, will, changes, keys)),
    warnings: [
      ...verdict.warnings,
      ...openedToEveryone(changed, after, changes, was),
      ...idleRules(changes, before, will),
    ],
    reach: changed.map(reachJson),
    unchanged: reach.filter(sameReach).map((r) => r.scope),
    was,
    will,
  };
}

/**
 * An endpoint's lockout blamed on what makes it: where its own traffic policy still lets in addresses
 * of the family that some connection reaches today, and the account-wide `endpoints` restriction lets
 * none of those through after the plan, the restriction (the change that makes it, where it is written)
 * shuts the endpoint out.
 */
function blamed(
  r: Refusal,
  was: ReachCalculator,
  will: ReachCalculator,
  changes: readonly PlanChange[],
  keys: ReadonlyMap<PlannedId, string>,
): Refusal {
  const endpoint = r.code === 'locked_out' ? will.picture.endpoints?.get(r.scope) : undefined;
  if (r.code !== 'locked_out' || !endpoint) return r;
  let own = AddressSet.everyone;
  for (const a of endpoint.actions) if (a.enforce && a.always) own = own.intersect(will.actionSet(a));
  const some = (set: AddressSet) => (r.family !== undefined ? set.hasAny(r.family) : !set.isEmpty());
  const kept = own.intersect(was.bounds(r.scope).atMost);
  if (!some(kept) || some(kept.intersect(will.reach(ENDPOINTS_TYPE)))) return r;
  const binding = will.picture.bindings.get(ENDPOINTS_TYPE);
  const change = changes.find(changesEndpointsRestriction);
  const source = change?.address ?? binding?.source;
  return {
    ...r,
    cause: 'endpoints_restriction',
    policies: (binding?.policies ?? []).map((p) => keys.get(p) ?? policyLabel(p)),
    ...(source !== undefined ? { source } : {}),
    ...(change?.source ? { at: change.source } : {}),
  };
}

/** Whether the plan leaves a scope's reach as it is (both bounds of an endpoint's). */
function sameReach(r: ScopeReach): boolean {
  return r.before.equals(r.after) && (r.most === undefined || r.most.before.equals(r.most.after));
}

function diffJson(before: AddressSet, after: AddressSet) {
  return {
    before: before.summary(),
    after: after.summary(),
    let_in: after.minus(before).summary(),
    shut_out: before.minus(after).summary(),
  };
}

/**
 * A scope's reach as the plan's JSON carries it; an endpoint not exact on a side with both bounds
 * (the top-level sets are its least).
 */
export function reachJson(r: ScopeReach): ScopeReachJson {
  const least = diffJson(r.before, r.after);
  return {
    scope: r.scope,
    ...(r.address !== undefined ? { address: r.address } : {}),
    ...least,
    ...(r.most ? { at_least: least, at_most: diffJson(r.most.before, r.most.after) } : {}),
  };
}

/**
 * Refuses a scope that lets some addresses through today and none after; and, for a scope enforced
 * today, one that lets some addresses of a family through today and none of it after. A scope that
 * lets nobody through before and after is a warning: the plan does not make that lockout.
 */
export function lockoutGuard(
  reach: readonly ScopeReach[],
  after: TrafficPicture,
  names: ReadonlyMap<PlannedId, string> = new Map(),
): LockoutVerdict {
  const refusals: Refusal[] = [];
  const warnings: Warning[] = [];
  for (const r of reach) {
    // An endpoint is judged on what some connection gets (its most): a lockout is that no connection
    // gets through at all; one the plan creates or deletes is not locked out.
    if (r.exists && (!r.exists.before || !r.exists.after)) continue;
    const judged = r.most ? { ...r, before: r.most.before, after: r.most.after } : r;
    const binding = after.bindings.get(r.scope) ?? endpointBinding(after, r.scope);
    if (judged.after.isEmpty()) {
      if (judged.before.isEmpty()) {
        warnings.push({ code: 'no_reach', scope: r.scope, policies: policyNames(binding, names) });
      } else refusals.push(lockedOut(r.scope, binding, names, judged.before, undefined));
      continue;
    }
    if (!r.enforced.before) continue;
    for (const family of FAMILIES) {
      if (judged.before.hasAny(family) && !judged.after.hasAny(family)) {
        refusals.push(lockedOut(r.scope, binding, names, judged.before.family(family), family));
      }
    }
  }
  return { refusals, warnings };
}

/**
 * Warns of each scope that lets only some addresses through today and everyone after: its restriction
 * or module deleted (as when a file planned alone leaves out entries that other files hold), made
 * warn-only or disabled, or its policies letting every address in. Guards refuse it where they say so.
 * An endpoint (`was`: the account's calculator) is judged by what every connection gets: see
 * `endpointOpened`.
 */
export function openedToEveryone(
  reach: readonly ScopeReach[],
  after: TrafficPicture,
  changes: readonly PlanChange[],
  was: ReachCalculator,
): Warning[] {
  const warnings: Warning[] = [];
  for (const r of reach) {
    if (r.before.isEveryone() || !r.after.isEveryone()) continue;
    if (r.exists) {
      const w = endpointOpened(r, was, after);
      if (w) warnings.push(w);
      continue;
    }
    const binding = after.bindings.get(r.scope);
    const by = binding === undefined ? 'deleted' : binding.enforced ? 'rules' : 'not_enforced';
    const source =
      binding === undefined
        ? changes.find((c) => c.action === 'delete' && scopeBefore(c) === r.scope)?.address
        : binding.source;
    warnings.push({
      code: 'opens_to_everyone',
      scope: r.scope,
      by,
      ...(source !== undefined ? { source } : {}),
      today: r.before.summary(),
    });
  }
  return warnings;
}

/**
 * An endpoint that exists before and after, where some connection was shut out today (its least is
 * not everyone, the caller checked) and every connection gets everyone after, warns when its own
 * traffic policy restricted today: one opened only by the account-wide `endpoints` restriction is
 * that scope's warning. `by` is `traffic_policy` when no enforced `restrict-ips` runs after (removed,
 * `enforce: false`, or behind an action that always ends the processing), else `rules`: the
 * restrict-ips left, through the IP policies they name or their own CIDRs, let every address in.
 */
function endpointOpened(r: ScopeReach, was: ReachCalculator, after: TrafficPicture): Warning | undefined {
  if (!r.exists?.before || !r.exists.after) return undefined;
  const today = was.picture.endpoints?.get(r.scope);
  const restricted = today?.actions.some((a) => a.enforce && !was.actionSet(a).isEveryone()) ?? false;
  if (!restricted) return undefined;
  const endpoint = after.endpoints?.get(r.scope);
  const by = endpoint?.actions.some((a) => a.enforce) ? 'rules' : 'traffic_policy';
  const source = endpoint?.address ?? today?.address;
  return {
    code: 'opens_to_everyone',
    scope: r.scope,
    by,
    ...(source !== undefined ? { source } : {}),
    today: r.before.summary(),
  };
}

function lockedOut(
  scope: string,
  binding: Binding | undefined,
  names: ReadonlyMap<PlannedId, string>,
  today: AddressSet,
  family?: IpVersion,
): Refusal {
  return {
    code: 'locked_out',
    scope,
    ...(binding?.source !== undefined ? { source: binding.source } : {}),
    policies: policyNames(binding, names),
    ...(family !== undefined ? { family } : {}),
    today: today.summary(),
  };
}

/** An endpoint as a lockout names it: its traffic policy's source, and the policies its actions name. */
function endpointBinding(picture: TrafficPicture, scope: string): Binding | undefined {
  const e = picture.endpoints?.get(scope);
  if (!e) return undefined;
  const policies = [...new Set(e.actions.flatMap((a) => a.policies))];
  return { enforced: true, policies, ...(e.address !== undefined ? { source: e.address } : {}) };
}

/** The policies of a binding as messages name them. */
function policyNames(binding: Binding | undefined, names: ReadonlyMap<PlannedId, string>): string[] {
  return (binding?.policies ?? []).map((p) => names.get(p) ?? policyLabel(p));
}

/** The key of each policy of the files by its live ID (`ip_policies.office`), as messages name it. */
function policyKeys(changes: readonly PlanChange[]): Map<PlannedId, string> {
  return new Map(changes.filter((c) => c.id !== null && isPolicy(c)).map((c) => [c.id as string, c.address]));
}

/**
 * Rules of the files that change no scope's reach after the plan: a deny that no allow of the enforced
 * scopes using its policy matches, an allow that their denies wholly cover. Only policies the plan
 * touches (a rule of theirs, or a scope naming them, changes) are looked at: the others were looked at
 * by the plan that made them so. A rule of a policy that no scope uses is left alone: endpoint traffic
 * policies, which this API cannot list, may use it.
 */
export function idleRules(
  changes: readonly PlanChange[],
  before: TrafficPicture,
  will: ReachCalculator,
): Warning[] {
  const after = will.picture;
  const touched = touchedPolicies(changes, before, after);
  const users = new Map<PlannedId, string[]>();
  // A rule of a policy an endpoint's `restrict-ips` names may decide that endpoint: never idle.
  const byEndpoints = new Set(
    [...(after.endpoints?.values() ?? [])].flatMap((e) => e.actions.flatMap((a) => a.policies)),
  );
  for (const [scope, binding] of after.bindings) {
    if (!binding.enforced) continue;
    for (const p of binding.policies) users.set(p, [...(users.get(p) ?? []), scope]);
  }
  const warnings: Warning[] = [];
  // The rules of the touched policies are picked out first: a plan holds every rule of the files,
  // and the loop below over thousands of them would be long and heavy. A rule's values are read only
  // when its live ID is a touched policy's, or it is new or changes: a rule that stays as it is keeps
  // its policy (a rule never moves between policies), and reading thousands of values is slow.
  const touchedIds = new Set<string | null>();
  for (const p of touched) for (const r of before.rules.get(p) ?? []) touchedIds.add(r.id);
  const ruleKinds = kindsWithRole('rule');
  for (const c of changes) {
    if (!ruleKinds.has(c.kind) || (c.action === 'no-op' && c.id !== null && !touchedIds.has(c.id))) continue;
    const r = ruleOf(c, c.after);
    if (!r || !touched.has(r.policy)) continue;
    const scopes = users.get(r.policy) ?? [];
    const cidr = parseCidr(r.cidr);
    if (scopes.length === 0 || 'problem' in cidr || byEndpoints.has(r.policy)) continue;
    const rule = AddressSet.of([cidr]);
    const idle = { code: 'idle_rule', address: c.address, cidr: r.cidr, scopes } as const;
    if (r.action === 'deny' && scopes.every((s) => !rule.intersects(will.scopeSets(s).allow))) {
      warnings.push({ ...idle, action: 'deny' });
    }
    if (r.action === 'allow' && scopes.every((s) => rule.isSubsetOf(will.scopeSets(s).deny))) {
      warnings.push({ ...idle, action: 'allow' });
    }
  }
  return warnings;
}

/** Policies with a rule the plan creates or deletes, and those of each scope whose binding changes. */
function touchedPolicies(
  changes: readonly PlanChange[],
  before: TrafficPicture,
  after: TrafficPicture,
): Set<PlannedId> {
  const touched = new Set<PlannedId>();
  for (const c of changes) {
    if (c.action === 'no-op') continue;
    for (const values of [c.before, c.after]) {
      const rule = ruleOf(c, values);
      if (rule) touched.add(rule.policy);
    }
  }
  for (const [scope, binding] of after.bindings) {
    const was = before.bindings.get(scope);
    const same =
      was?.enforced === binding.enforced &&
      was.policies.length === binding.policies.length &&
      was.policies.every((p) => binding.policies.includes(p));
    if (!same) for (const p of binding.policies) touched.add(p);
  }
  return touched;
}
