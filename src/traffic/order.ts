// Keeping what each traffic type and TCP edge lets through between the account and the files while a
// plan is applied (DESIGN §2 "IP policies and their rules", §4 "Never fail open"). The service lets a
// source address through an enforced restriction (or an enabled TCP edge module) when an `allow` rule
// of its policies matches and no `deny` rule of them does; a warn-only or disabled one, or none at all,
// lets everything through. This file orders the changes of policies, their rules and the restrictions
// naming them, and adds the union step of a restriction that swaps policies; what names a deleted
// policy is src/traffic/holders.ts; what each scope lets through, and the lockout guard on it, are
// src/traffic/reach.ts and src/traffic/lockout.ts.

import type { Account } from '../account/model.js';
import { type PlanChange, type PlanProblem, UNION_SUFFIX, type Warning } from '../plan/types.js';
import { descriptorFor, isManaged, managedDescriptors, type Restriction } from '../resources/index.js';
import { compareIds, type PlannedId } from '../resources/known-after-apply.js';
import { type Chain, cycles, edgesOf, type Proposed, relaxCycles } from './chains.js';
import { listedEdgeScopes } from './edges.js';
import { endpointGroups, type LiveRules, liveRules } from './endpoint-order.js';
import { endpointPolicies } from './endpoint-scopes.js';
import { kindsWithRole, restrictionOf, roleOf, ruleOf } from './roles.js';
import {
  boundsOf,
  chainKeeps,
  letThrough,
  limitedSteps,
  type Policies,
  type PolicyRules,
  type RuleMove,
  type StepEffect,
  withMoves,
} from './steps.js';

/** A traffic type or a TCP edge, before and after the plan. */
interface Scope {
  /** How messages name it: `dashboard`, `TCP edge edgtcp_x`. */
  name: string;
  before: Policies;
  after: Policies;
  /** The change that switches it (create, patch, put, replace, delete); undefined when none does. */
  change?: PlanChange;
}

/** A rule change's effect: which policy, allow or deny of which CIDR, added or removed. */
interface RuleEffect extends RuleMove {
  change: PlanChange;
  /** Half of a flip (the delete and the create of one CIDR with the other action). */
  flip: boolean;
}

/** The policies a restriction in force lets decide; `ALL` for one not in force. */
function policiesOf(r: { inForce: boolean; policies: readonly PlannedId[] }): Policies {
  return r.inForce ? new Set(r.policies) : 'ALL';
}

/**
 * The traffic types, the TCP edges whose module the files name, and the TCP edges the account listed
 * (whose modules the plan keeps), with what the plan changes about each.
 */
function scopesOf(changes: readonly PlanChange[], account: Account): Scope[] {
  const byScope = new Map<string, Scope>();
  const scope = (r: Restriction) => {
    let s = byScope.get(r.scope);
    if (!s) {
      s = { name: r.name, before: 'ALL', after: 'ALL' };
      byScope.set(r.scope, s);
    }
    return s;
  };
  const changed = changesOfRestrictions(changes);
  // Every object of a managed kind that restricts, whoever manages it, restricts its scope today.
  for (const d of managedDescriptors) {
    const role = d.traffic;
    if (role?.role !== 'restriction') continue;
    for (const obj of account.managed[d.kind] ?? []) {
      const r = role.restricts(obj.values, obj.marker?.key ?? obj.id);
      const s = scope(r);
      s.before = policiesOf(r);
      const c = changed.get(obj.id);
      // A delete or a replace takes the object out of its scope; what a change puts in is added below.
      if (!c || c.action === 'no-op') s.after = s.before;
      else s.change = c;
    }
  }
  const scopes: Scope[] = [];
  for (const c of changes) {
    if (c.action === 'no-op' || !isManaged(descriptorFor(c.kind))) continue;
    const r = restrictionOf(c, c.after);
    if (!r) continue;
    const s = scope(r);
    s.after = policiesOf(r);
    s.change = c;
  }
  scopes.push(...byScope.values());
  // A module the files name was read on its own: its change says what it was and will be.
  for (const c of changes) {
    if (roleOf(c)?.role !== 'restriction' || isManaged(descriptorFor(c.kind))) continue;
    const was = restrictionOf(c, c.before);
    const will = restrictionOf(c, c.after);
    const before = was ? policiesOf(was) : 'ALL';
    const after = c.action === 'no-op' ? before : will ? policiesOf(will) : 'ALL';
    const name = restrictionOf(c, c.after ?? c.before ?? {})!.name;
    scopes.push({ name, before, after, ...(c.action === 'no-op' ? {} : { change: c }) });
  }
  // A listed edge the files do not name keeps its module: its policies' changes are ordered for it.
  for (const edge of listedEdgeScopes(account)) {
    if (edge.named || !edge.binding) continue;
    const policies = policiesOf({ inForce: edge.binding.enforced, policies: edge.binding.policies });
    scopes.push({ name: edge.scope, before: policies, after: policies });
  }
  return scopes;
}

/** The changes of objects of the managed kinds that restrict, by ID. */
function changesOfRestrictions(changes: readonly PlanChange[]): Map<string, PlanChange> {
  const kinds = kindsWithRole('restriction');
  const byId = new Map<string, PlanChange>();
  for (const c of changes) if (c.id !== null && kinds.has(c.kind)) byId.set(c.id, c);
  return byId;
}

function ruleEffects(changes: readonly PlanChange[]): RuleEffect[] {
  const rules = changes.filter((c) => roleOf(c)?.role === 'rule');
  const flipped = new Set(rules.filter((c) => c.step === 'flip').map((c) => c.key));
  const effects: RuleEffect[] = [];
  for (const c of rules) {
    const adds = c.action === 'create';
    if (!adds && c.action !== 'delete') continue;
    const rule = ruleOf(c, adds ? c.after : c.before);
    if (!rule) continue;
    effects.push({ change: c, ...rule, adds, flip: flipped.has(c.key) });
  }
  return effects;
}

/**
 * The phase of a rule change of a policy a scope keeps (DESIGN §4's reference order): 1 new denies,
 * 3 new allows, 4 allows that go and flips to deny, 6 denies that go and flips to allow.
 */
function keptPhase(e: RuleEffect): 1 | 3 | 4 | 6 {
  if (e.flip) return e.action === (e.adds ? 'deny' : 'allow') ? 4 : 6;
  if (e.action === 'deny') return e.adds ? 1 : 6;
  return e.adds ? 3 : 4;
}

/** What the plan's traffic changes need to know of each other and of the account. */
interface TrafficContext {
  byPolicy: ReadonlyMap<PlannedId, RuleEffect[]>;
  effectOf: ReadonlyMap<PlanChange, RuleEffect>;
  policyDeletes: ReadonlyMap<PlannedId, PlanChange>;
  rules: () => PolicyRules;
  problems: PlanProblem[];
  added: PlanChange[];
}

/**
 * Adds to `changes` the union steps of each restriction or module that both gains and loses policies,
 * and to every change the dependencies that keep each scope between what the account lets through
 * before and what the files want after, whatever order the executor picks. Returns the problems (orders
 * that cannot keep that promise) and the dependencies only the endpoint order proposed (`proposed`),
 * for src/traffic/endpoint-order-search.ts to drop and order anew where the proposals fall short.
 */
export function orderTrafficChanges(
  changes: PlanChange[],
  account: Account,
): { problems: PlanProblem[]; proposed: Proposed } {
  const effects = ruleEffects(changes);
  const byPolicy = new Map<PlannedId, RuleEffect[]>();
  for (const e of effects) {
    const list = byPolicy.get(e.policy);
    if (list) list.push(e);
    else byPolicy.set(e.policy, [e]);
  }
  let rules: PolicyRules | undefined;
  const context: TrafficContext = {
    byPolicy,
    effectOf: new Map(effects.map((e) => [e.change, e])),
    policyDeletes: new Map(
      changes.filter((c) => roleOf(c)?.role === 'policy' && c.action === 'delete').map((c) => [c.id!, c]),
    ),
    // Read only when a check needs them: most plans need none.
    rules: () => (rules ??= liveRules(account)),
    problems: [],
    added: [],
  };
  // Every policy's own changes in the reference order: it may be in use where this API cannot see
  // (an endpoint's traffic policy, an edge that was not listed).
  const chains: Chain[] = [...byPolicy.values()].map((list) => ({
    groups: phasesOf(list, [], [], [], undefined),
  }));
  for (const s of scopesOf(changes, account)) chains.push(scopeChain(s, context));
  // Each listed endpoint: the changes of every policy its enforced restrict-ips name, in the reference
  // order across them, so that each action stays between before and after (docs/reach.md).
  let live: LiveRules | undefined;
  for (const { endpoint, policies } of endpointPolicies(account)) {
    const effects = [...policies].flatMap((p) => byPolicy.get(p) ?? []);
    if (effects.length === 0) continue;
    live ??= liveRules(account);
    const groups = endpointGroups(endpoint.document, phasesOf(effects, [], [], [], undefined), live);
    // A proposal only: where it makes a cycle with a scope's order it gives way, and every endpoint
    // state of the result is judged, and ordered where it fails, by src/traffic/endpoint-states.ts.
    if (groups !== undefined && groups.length > 1)
      chains.push({ groups, check: () => true, mayFloat: () => true, proposal: true });
  }
  const all = [...changes, ...context.added];
  relaxCycles(all, chains);
  changes.push(...context.added);
  // What only a proposal asks is noted apart: most plans have none, and then nothing is noted.
  const required = chains.some((c) => c.proposal) ? edgesOf(chains.filter((c) => !c.proposal)) : undefined;
  const proposed: Proposed = new Map();
  for (const [c, set] of edgesOf(chains)) {
    for (const a of c.depends_on) set.delete(a);
    const only = required ? [...set].filter((a) => !required.get(c)?.has(a)) : [];
    if (only.length > 0) proposed.set(c, new Set(only));
    c.depends_on.push(...[...set].sort());
  }
  return { problems: [...context.problems, ...cycles(changes, (c) => c.depends_on)], proposed };
}

/** A scope's chain of groups, with the union steps it needs (added to `context.added`). */
function scopeChain(s: Scope, context: TrafficContext): Chain {
  const effectsOf = (ids: Iterable<PlannedId>) => [...ids].flatMap((p) => context.byPolicy.get(p) ?? []);
  const check = (switches: ReadonlyMap<PlanChange, Policies>) => checkOf(s, switches, context);
  if (!s.change || samePolicies(s.before, s.after)) {
    // Unchanged: its policies' changes in the reference order across them.
    const groups = s.after === 'ALL' ? [] : phasesOf(effectsOf(s.after), [], [], [], undefined);
    return { groups, check: check(new Map()), mayFloat: (c) => context.effectOf.has(c) };
  }
  const before = s.before === 'ALL' ? new Set<PlannedId>() : s.before;
  const after = s.after === 'ALL' ? new Set<PlannedId>() : s.after;
  const kept = [...before].filter((p) => after.has(p));
  const entering = [...after].filter((p) => !before.has(p));
  const leaving = [...before].filter((p) => !after.has(p));
  const switches = new Map<PlanChange, Policies>([[s.change, s.after]]);
  const swaps = s.before !== 'ALL' && s.after !== 'ALL' && entering.length > 0 && leaving.length > 0;
  const steps = swaps ? unionSteps(s, before, after, effectsOf([...kept, ...entering]), context) : [];
  for (const [step, policies] of steps) switches.set(step, policies);
  context.added.push(...steps.map(([step]) => step));
  const enter = s.before === 'ALL' || leaving.length === 0 ? [s.change] : steps.map(([step]) => step);
  const leave = s.after === 'ALL' || entering.length === 0 || steps.length > 0 ? s.change : undefined;
  const deletes = leaving.flatMap((p) =>
    context.policyDeletes.has(p) ? [context.policyDeletes.get(p)!] : [],
  );
  const groups = phasesOf(
    effectsOf(kept),
    effectsOf(entering),
    [...effectsOf(leaving).map((e) => e.change), ...deletes],
    enter,
    leave,
  );
  return { groups, check: check(switches), mayFloat: (c) => context.effectOf.has(c) };
}

/**
 * The union steps of a restriction that both gains and loses policies: one to the union of its old
 * and new policies, or, when that is more than the restriction holds, the steps of src/plan/traffic-
 * steps.ts (none, and a problem, when there are none).
 */
function unionSteps(
  s: Scope,
  before: ReadonlySet<PlannedId>,
  after: ReadonlySet<PlannedId>,
  first: readonly RuleEffect[],
  context: TrafficContext,
): [PlanChange, ReadonlySet<PlannedId>][] {
  const change = s.change!;
  const role = roleOf(change);
  const limit =
    role?.role === 'restriction' ? (role.maxPolicies ?? Number.POSITIVE_INFINITY) : Number.POSITIVE_INFINITY;
  const union = new Set([...before, ...after]);
  if (union.size <= limit) return [[unionStep(change, union, 1), union]];
  // The switches come after the new denies of kept policies and every change of entering ones.
  const rules = context.rules();
  const bounds = boundsOf(letThrough(before, rules), letThrough(after, finalRules(rules, context)));
  const atSwitch = withMoves(
    rules,
    first.filter((e) => !before.has(e.policy) || keptPhase(e) === 1),
  );
  const sets = limitedSteps(before, after, limit, atSwitch, bounds);
  if (!sets) {
    context.problems.push({ code: 'policy_limit', address: change.address, limit, union: union.size });
    return [];
  }
  return sets.map((set, i) => [unionStep(change, set, i + 1), set]);
}

function finalRules(rules: PolicyRules, context: TrafficContext): PolicyRules {
  return withMoves(rules, [...context.effectOf.values()]);
}

/** The check of a scope's chain: any groups of its changes keep it between before and after. */
function checkOf(
  s: Scope,
  switches: ReadonlyMap<PlanChange, Policies>,
  context: TrafficContext,
): Chain['check'] {
  return (groups, floating) => {
    if (groups.some((g) => g.filter((c) => switches.has(c)).length > 1)) return false;
    const rules = context.rules();
    const bounds = boundsOf(letThrough(s.before, rules), letThrough(s.after, finalRules(rules, context)));
    const effects = groups.map((g) =>
      g.flatMap((c): StepEffect[] => {
        const policies = switches.get(c);
        if (policies !== undefined) return [{ switchTo: policies }];
        const e = context.effectOf.get(c);
        return e ? [{ rule: e }] : [];
      }),
    );
    const free = floating.flatMap((c) => {
      const e = context.effectOf.get(c);
      return e ? [e] : [];
    });
    return chainKeeps(s.before, rules, effects, bounds, free);
  };
}

/**
 * A scope's phases (DESIGN §4): 1 new denies of kept policies and every rule change of entering
 * ones; 2 the switch to the union (or to the new policies when none leaves), one group per step; 3 new
 * allows; 4 allows that go, flips to deny; 5 the switch to the new policies; 6 denies that go, flips to
 * allow; 7 what happens to leaving policies (their rules, their delete). Empty phases are left out.
 */
function phasesOf(
  kept: readonly RuleEffect[],
  entering: readonly RuleEffect[],
  leaving: readonly PlanChange[],
  enter: readonly PlanChange[],
  leave: PlanChange | undefined,
): PlanChange[][] {
  const phase = (n: number) => kept.filter((e) => keptPhase(e) === n).map((e) => e.change);
  return [
    [...phase(1), ...entering.map((e) => e.change)],
    ...enter.map((c) => [c]),
    phase(3),
    phase(4),
    leave && !enter.includes(leave) ? [leave] : [],
    phase(6),
    [...leaving],
  ].filter((g) => g.length > 0);
}

function samePolicies(a: Policies, b: Policies): boolean {
  if (a === 'ALL' || b === 'ALL') return a === b;
  return a.size === b.size && [...a].every((p) => b.has(p));
}

/**
 * Whether `c` is a union step of another change (`tcp_edges.edgtcp_x.ip_restriction#union`): a step
 * of that change in the plan's order, not a difference of its own, so neither counted nor drift.
 */
export function isUnionStep(c: Pick<PlanChange, 'step'>): boolean {
  return c.step === 'union';
}

/** The `n`th change that switches a restriction or module on its way: to `policies`. */
function unionStep(c: PlanChange, policies: ReadonlySet<PlannedId>, n: number): PlanChange {
  const role = roleOf(c);
  if (role?.role !== 'restriction') throw new Error(`${c.kind} restricts no traffic: it has no union step`);
  const { field } = role;
  const after = { ...c.after, [field]: [...policies].sort(compareIds) };
  return {
    ...c,
    address: `${c.address}${UNION_SUFFIX}${n === 1 ? '' : `-${n}`}`,
    step: 'union',
    step_of: c.address,
    action: isManaged(descriptorFor(c.kind)) ? 'patch' : 'put',
    reason_codes: [{ code: 'union' }],
    after,
    changed_fields: [field],
    drift: {},
    depends_on: [...c.depends_on],
    requests: [],
  };
}

/**
 * Warns of an allow of every address. The lockout guard is judged on reach (src/traffic/lockout.ts);
 * references to deleted policies that the plan cannot see, in src/traffic/holders.ts.
 */
export function trafficWarnings(changes: readonly PlanChange[]): Warning[] {
  const warnings: Warning[] = [];
  for (const c of changes) {
    const rule = c.action === 'create' ? ruleOf(c, c.after) : undefined;
    if (rule?.action === 'allow' && (rule.cidr === '0.0.0.0/0' || rule.cidr === '::/0')) {
      warnings.push({ code: 'allows_everything', address: c.address, cidr: rule.cidr });
    }
  }
  return warnings;
}
