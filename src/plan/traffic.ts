// Keeping what each traffic type and TCP edge lets through between the account and the files while a
// plan is applied (DESIGN §2 "IP policies and their rules", §4 "Never fail open"). The service lets a
// source address through an enforced restriction (or an enabled TCP edge module) when an `allow` rule
// of its policies matches and no `deny` rule of them does; a warn-only or disabled one, or none at all,
// lets everything through. This file orders the changes of policies, their rules and the restrictions
// naming them, and adds the union step of a restriction that swaps policies; what names a deleted
// policy is src/plan/refusals.ts; what each scope lets through, and the lockout guard on it, are
// src/plan/reach.ts and src/plan/lockout.ts.
import {
  descriptorFor,
  isManaged,
  managedDescriptors,
  type Restriction,
  type TrafficRole,
  type TrafficRule,
} from '../resources/index.js';
import type { Account } from './state.js';
import { type PlanChange, type PlanProblem, UNION_SUFFIX, type Warning } from './types.js';

/** `ALL`: no restriction in force (none, warn-only, disabled): everything is let through. */
type Policies = ReadonlySet<string> | 'ALL';

/** A traffic type or a TCP edge named in the file, before and after the plan. */
interface Scope {
  /** How messages name it: `dashboard`, `TCP edge edgtcp_x`. */
  name: string;
  before: Policies;
  after: Policies;
  /** The change that switches it (create, patch, put, replace, delete); undefined when none does. */
  change?: PlanChange;
}

/** A rule change's effect: which policy, allow or deny, added or removed. */
interface RuleEffect {
  change: PlanChange;
  policy: string;
  action: 'allow' | 'deny';
  adds: boolean;
  /** Half of a flip (the delete and the create of one CIDR with the other action). */
  flip: boolean;
}

/** What a change's kind means to traffic (its descriptor's hook). */
function roleOf(c: Pick<PlanChange, 'kind'>): TrafficRole | undefined {
  return descriptorFor(c.kind).traffic;
}

function ruleOf(c: PlanChange, values: Record<string, unknown> | null): TrafficRule | undefined {
  const role = roleOf(c);
  return role?.role === 'rule' && values ? role.rule(values) : undefined;
}

function restrictionOf(c: PlanChange, values: Record<string, unknown> | null): Restriction | undefined {
  const role = roleOf(c);
  return role?.role === 'restriction' && values ? role.restricts(values, c.key) : undefined;
}

function policiesOf(r: Restriction): Policies {
  return r.inForce ? new Set(r.policies) : 'ALL';
}

/** The traffic types and named TCP edges, with what the plan changes about each. */
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
  // A module is read only where the file names it: its change says what it was and will be.
  for (const c of changes) {
    if (roleOf(c)?.role !== 'restriction' || isManaged(descriptorFor(c.kind))) continue;
    const was = restrictionOf(c, c.before);
    const will = restrictionOf(c, c.after);
    const before = was ? policiesOf(was) : 'ALL';
    const after = c.action === 'no-op' ? before : will ? policiesOf(will) : 'ALL';
    const name = restrictionOf(c, c.after ?? c.before ?? {})!.name;
    scopes.push({ name, before, after, ...(c.action === 'no-op' ? {} : { change: c }) });
  }
  return scopes;
}

/** The changes of objects of the managed kinds that restrict, by ID. */
function changesOfRestrictions(changes: readonly PlanChange[]): Map<string, PlanChange> {
  const kinds = new Set<string>(
    managedDescriptors.filter((d) => d.traffic?.role === 'restriction').map((d) => d.kind),
  );
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
    effects.push({ change: c, policy: rule.policy, action: rule.action, adds, flip: flipped.has(c.key) });
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

/**
 * Adds to `changes` the union step of each restriction or module that both gains and loses policies,
 * and to every change the dependencies that keep each scope between what the account lets through
 * before and what the files want after, whatever order the executor picks. Returns the problems: orders
 * that cannot keep that promise.
 */
export function orderTrafficChanges(changes: PlanChange[], account: Account): PlanProblem[] {
  const scopes = scopesOf(changes, account);
  const effects = ruleEffects(changes);
  const byPolicy = new Map<string, RuleEffect[]>();
  for (const e of effects) {
    const list = byPolicy.get(e.policy);
    if (list) list.push(e);
    else byPolicy.set(e.policy, [e]);
  }
  const policyDeletes = new Map(
    changes.filter((c) => roleOf(c)?.role === 'policy' && c.action === 'delete').map((c) => [c.id!, c]),
  );
  const edges = new Map<PlanChange, Set<string>>();
  const chain = (phases: readonly (readonly PlanChange[])[]) => {
    let previous: readonly PlanChange[] = [];
    for (const phase of phases) {
      if (phase.length === 0) continue;
      for (const c of phase) {
        const set = edges.get(c) ?? new Set<string>();
        edges.set(c, set);
        for (const p of previous) if (p !== c) set.add(p.address);
      }
      previous = phase;
    }
  };

  // Every policy's own changes in the reference order: it may be in use where this API cannot see
  // (an endpoint's traffic policy, an edge the file does not name).
  for (const list of byPolicy.values()) chain(phasesOf(list, [], [], undefined, undefined));

  const added: PlanChange[] = [];
  const effectsOf = (ids: readonly string[]) => ids.flatMap((p) => byPolicy.get(p) ?? []);
  for (const s of scopes) {
    if (!s.change || samePolicies(s.before, s.after)) {
      // Unchanged: its policies' changes in the reference order across them.
      if (s.after !== 'ALL') chain(phasesOf(effectsOf([...s.after]), [], [], undefined, undefined));
      continue;
    }
    const before = s.before === 'ALL' ? new Set<string>() : s.before;
    const after = s.after === 'ALL' ? new Set<string>() : s.after;
    const kept = [...before].filter((p) => after.has(p));
    const entering = [...after].filter((p) => !before.has(p));
    const leaving = [...before].filter((p) => !after.has(p));
    const union =
      s.before !== 'ALL' && s.after !== 'ALL' && entering.length > 0 && leaving.length > 0
        ? unionStep(s.change, [...before, ...entering])
        : undefined;
    if (union) added.push(union);
    const enter = s.before === 'ALL' || leaving.length === 0 ? s.change : union;
    const leave = s.after === 'ALL' || entering.length === 0 || union ? s.change : undefined;
    const deletes = leaving.flatMap((p) => (policyDeletes.has(p) ? [policyDeletes.get(p)!] : []));
    chain(
      phasesOf(
        effectsOf(kept),
        effectsOf(entering),
        [...effectsOf(leaving).map((e) => e.change), ...deletes],
        enter,
        leave,
      ),
    );
  }
  changes.push(...added);
  for (const [c, set] of edges) {
    for (const a of c.depends_on) set.delete(a);
    c.depends_on.push(...[...set].sort());
  }
  return cycles(changes);
}

/**
 * A scope's phases (DESIGN §4): 1 new denies of kept policies and every rule change of entering
 * ones; 2 the switch to the union (or to the new policies when none leaves); 3 new allows; 4 allows
 * that go, flips to deny; 5 the switch to the new policies; 6 denies that go, flips to allow; 7 what
 * happens to leaving policies (their rules, their delete).
 */
function phasesOf(
  kept: readonly RuleEffect[],
  entering: readonly RuleEffect[],
  leaving: readonly PlanChange[],
  enter: PlanChange | undefined,
  leave: PlanChange | undefined,
): PlanChange[][] {
  const phase = (n: number) => kept.filter((e) => keptPhase(e) === n).map((e) => e.change);
  return [
    [...phase(1), ...entering.map((e) => e.change)],
    enter ? [enter] : [],
    phase(3),
    phase(4),
    leave && leave !== enter ? [leave] : [],
    phase(6),
    [...leaving],
  ];
}

function samePolicies(a: Policies, b: Policies): boolean {
  if (a === 'ALL' || b === 'ALL') return a === b;
  return a.size === b.size && [...a].every((p) => b.has(p));
}

/**
 * Whether `c` is the union step of another change (`tcp_edges.edgtcp_x.ip_restriction#union`): a step
 * of that change in the plan's order, not a difference of its own, so neither counted nor drift.
 */
export function isUnionStep(c: Pick<PlanChange, 'step'>): boolean {
  return c.step === 'union';
}

/** The change that switches a restriction or module to the union of its old and new policies. */
function unionStep(c: PlanChange, union: readonly string[]): PlanChange {
  const role = roleOf(c);
  if (role?.role !== 'restriction') throw new Error(`${c.kind} restricts no traffic: it has no union step`);
  const { field } = role;
  const after = { ...c.after, [field]: [...new Set(union)].sort() };
  return {
    ...c,
    address: `${c.address}${UNION_SUFFIX}`,
    step: 'union',
    action: isManaged(descriptorFor(c.kind)) ? 'patch' : 'put',
    reason_codes: [{ code: 'union' }],
    after,
    changed_fields: [field],
    drift: {},
    depends_on: [...c.depends_on],
    requests: [],
  };
}

/** Changes on a cycle of depends_on: orders that cannot keep every scope between before and after. */
function cycles(changes: readonly PlanChange[]): PlanProblem[] {
  // A cycle runs through dependencies: a change that has none starts none.
  const starts = changes.filter((c) => c.depends_on.length > 0);
  if (starts.length === 0) return [];
  const byAddress = new Map(changes.map((c) => [c.address, c]));
  const state = new Map<string, 'open' | 'closed'>();
  const found: string[][] = [];
  const visit = (c: PlanChange, path: string[]): void => {
    const seen = state.get(c.address);
    if (seen === 'closed') return;
    if (seen === 'open') {
      found.push(path.slice(path.indexOf(c.address)));
      return;
    }
    state.set(c.address, 'open');
    for (const a of c.depends_on) {
      const dep = byAddress.get(a);
      if (dep) visit(dep, [...path, c.address]);
    }
    state.set(c.address, 'closed');
  };
  for (const c of starts) visit(c, []);
  return found.map((cycle) => ({ code: 'traffic_cycle', cycle }));
}

/**
 * Warns of an allow of every address. The lockout guard is judged on reach (src/plan/lockout.ts);
 * references to deleted policies that the plan cannot see, in src/plan/refusals.ts.
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
