// Every endpoint between what it lets through before and after the plan, at every state the plan's own
// order can leave the account in (docs/reach.md "Why a guard that holds before and after holds
// throughout the apply"). What an endpoint lets through depends on three kinds of change at once: the
// account-wide `endpoints` IP restriction (its policies, enforced or not, its union steps), the
// endpoint's own traffic policy (a create, a PATCH, a delete), and the rules of every policy either
// names. The scope order (src/traffic/order.ts) and the endpoint order (src/traffic/endpoint-order.ts)
// propose dependencies; this file judges the states the resulting DAG allows, exactly, and whether the
// service takes each traffic policy when it is sent. Where some state would let in what neither side
// does (or shut out what both let in), src/traffic/endpoint-order-search.ts finds another order.
//
// The states of an apply are the DAG's down-closed sets of changes (any of them may be the last: a
// failure stops the run). For a fixed choice of the switches done (restriction steps, endpoint
// changes), what an endpoint lets through is monotone in each rule change: an allow made or a deny gone
// lets more in, a deny made or an allow gone fewer. So the widest and the narrowest choice of the rule
// changes that may be done bound every state; where a bound fails, the rule changes that touch the
// failing addresses are enumerated along the DAG's own order, so that a state the order never allows
// (an allow made before the deny it waits for) is never held against it.

import type { Account } from '../account/model.js';
import { AddressSet, CidrBlocks } from '../net/cidr-set.js';
import type { PlanChange } from '../plan/types.js';
import type { Restriction } from '../resources/index.js';
import type { PlannedId } from '../resources/known-after-apply.js';
import { ENDPOINTS_TYPE } from '../resources/scope.js';
import { changesEndpointsRestriction } from './edges.js';
import { liveRules } from './endpoint-order.js';
import {
  actionSet,
  endpointBounds,
  type ReachBounds,
  type RestrictAction,
  restrictActions,
} from './endpoint-policy.js';
import { deniesOnlyAt, policiesNamedBy } from './named-policies.js';
import { managedWithRole, restrictionOf, restrictionRole, roleOf, ruleOf } from './roles.js';
import { letThrough, type PolicyRules, type RuleMove, type RulesOfPolicy, withMoves } from './steps.js';

type Document = Readonly<Record<string, unknown>> | undefined;
/** An endpoint's traffic policy on one side; undefined where the endpoint does not exist. */
type Door = { document: Document; actions: readonly RestrictAction[] } | undefined;

/** A traffic policy as a door: its document, and its `restrict-ips` actions read once. */
function doorOf(document: Document): Door {
  return { document, actions: restrictActions(document) };
}

/** One change that moves what some endpoint lets through. */
export type Move =
  | { type: 'rule'; change: PlanChange; rule: RuleMove; widens: boolean }
  | { type: 'restriction'; change: PlanChange; object: string; to: Restriction | undefined }
  | { type: 'endpoint'; change: PlanChange; to: Door };

/** An endpoint as a scope of this judgement. */
export interface Scope {
  /** How the problem names it: its URL, with its address when an entry manages it. */
  name: string;
  before: Door;
  /** Its own create, PATCH, replace or delete. */
  own?: Move;
  /** The policies it or the `endpoints` restriction names on any side or step. */
  policies: ReadonlySet<PlannedId>;
  lo: AddressSet;
  hi: AddressSet;
}

export interface World {
  moves: Move[];
  scopes: Scope[];
  live: PolicyRules;
  /** The `endpoints` restriction objects before the plan, by object. */
  restrictions: ReadonlyMap<string, Restriction | undefined>;
  /** Each move's ancestors among the moves, through every dependency of the plan. */
  before: (m: Move) => ReadonlySet<Move>;
}

/** Down-closed sets of one scope's switches tried at most; beyond, the judgement refuses. */
const MAX_SWITCHES = 10;
/** Down-closed sets of the rule changes touching failing addresses enumerated at most. */
const MAX_STATES = 4096;

export function worldOf(changes: readonly PlanChange[], account: Account): World {
  const restrictions = liveRestrictions(account);
  const moves = movesOf(changes);
  const live = liveRules(account);
  const before = ancestorsOf(changes, moves);
  const world: World = { moves, scopes: [], live, restrictions, before };
  const restricted = new Set<PlannedId>();
  for (const r of restrictions.values()) for (const p of r?.policies ?? []) restricted.add(p);
  for (const m of moves)
    if (m.type === 'restriction') for (const p of m.to?.policies ?? []) restricted.add(p);
  const own = new Map<string, Move>();
  for (const m of moves) if (m.type === 'endpoint' && m.change.id !== null) own.set(m.change.id, m);
  const sides: { name: string; before: Door; own?: Move }[] = [];
  for (const e of account.endpoints as Exclude<Account['endpoints'], 'unavailable' | undefined>) {
    if (e.unreadable !== undefined) continue;
    const mine = own.get(e.id);
    const name = mine ? `${e.url} (${mine.change.address})` : e.url;
    sides.push({ name, before: doorOf(e.document), ...(mine ? { own: mine } : {}) });
  }
  for (const m of moves) {
    if (m.type !== 'endpoint' || m.change.action !== 'create' || !m.to) continue;
    sides.push({ name: `${urlOf(m.change)} (${m.change.address})`, before: undefined, own: m });
  }
  for (const side of sides) {
    const policies = new Set(restricted);
    for (const door of [side.before, side.own?.type === 'endpoint' ? side.own.to : undefined])
      for (const p of policiesNamedBy(door?.document)) policies.add(p);
    const scope: Scope = { ...side, policies, lo: AddressSet.none, hi: AddressSet.none };
    const [B, A] = [reachAt(world, scope, new Set()), reachAt(world, scope, new Set(moves))];
    scope.lo = B.atLeast.intersect(A.atLeast);
    scope.hi = B.atMost.union(A.atMost);
    world.scopes.push(scope);
  }
  return world;
}

function urlOf(c: PlanChange): string {
  const role = roleOf(c);
  return role?.role === 'endpoint' && c.after ? role.endpoint(c.after).url : c.address;
}

/** The objects that restrict the `endpoints` scope today, by ID. */
function liveRestrictions(account: Account): Map<string, Restriction | undefined> {
  const out = new Map<string, Restriction | undefined>();
  for (const d of managedWithRole('restriction')) {
    const role = restrictionRole(d.traffic)!;
    for (const obj of account.managed[d.kind] ?? []) {
      const r = role.restricts(obj.values, obj.marker?.key ?? obj.id);
      if (r.scope === ENDPOINTS_TYPE) out.set(obj.id, r);
    }
  }
  return out;
}

/** The plan's changes that move what an endpoint lets through. */
function movesOf(changes: readonly PlanChange[]): Move[] {
  const moves: Move[] = [];
  for (const c of changes) {
    if (c.action === 'no-op') continue;
    const role = roleOf(c);
    if (role?.role === 'rule' && (c.action === 'create' || c.action === 'delete')) {
      const rule = ruleOf(c, c.action === 'create' ? c.after : c.before);
      if (!rule) continue;
      const adds = c.action === 'create';
      moves.push({
        type: 'rule',
        change: c,
        rule: { ...rule, adds },
        widens: adds === (rule.action === 'allow'),
      });
    } else if (role?.role === 'restriction') {
      if (!changesEndpointsRestriction(c)) continue;
      const will = restrictionOf(c, c.after);
      const object = c.step_of !== undefined ? (c.id ?? c.step_of) : (c.id ?? c.address);
      const to = c.action === 'delete' || will?.scope !== ENDPOINTS_TYPE ? undefined : will;
      moves.push({ type: 'restriction', change: c, object, to });
    } else if (role?.role === 'endpoint') {
      const to = c.action === 'delete' || !c.after ? undefined : doorOf(role.endpoint(c.after).document);
      moves.push({ type: 'endpoint', change: c, to });
    }
  }
  return moves;
}

/** Each move's ancestors among `moves`, through every change's depends_on. */
function ancestorsOf(changes: readonly PlanChange[], moves: readonly Move[]): (m: Move) => ReadonlySet<Move> {
  const byAddress = new Map(changes.map((c) => [c.address, c]));
  const moveOf = new Map(moves.map((m) => [m.change, m]));
  const memo = new Map<PlanChange, Set<Move>>();
  const of = (c: PlanChange, path: Set<PlanChange>): Set<Move> => {
    const known = memo.get(c);
    if (known) return known;
    const out = new Set<Move>();
    path.add(c);
    for (const a of c.depends_on) {
      const dep = byAddress.get(a);
      if (!dep || path.has(dep)) continue; // a cycle is reported by the order's own check
      const m = moveOf.get(dep);
      if (m) out.add(m);
      for (const x of of(dep, path)) out.add(x);
    }
    path.delete(c);
    memo.set(c, out);
    return out;
  };
  return (m) => of(m.change, new Set());
}

/** Whether `m` can move what `scope` lets through. */
export function touches(scope: Scope, m: Move): boolean {
  if (m.type === 'rule') return scope.policies.has(m.rule.policy);
  return m.type === 'restriction' || m === scope.own;
}

/** What `scope` lets through once the moves of `done` are made. */
export function reachAt(world: World, scope: Scope, done: ReadonlySet<Move>): ReachBounds {
  const door =
    scope.own && done.has(scope.own) && scope.own.type === 'endpoint' ? scope.own.to : scope.before;
  if (!door) return { atLeast: AddressSet.none, atMost: AddressSet.none };
  const rules = rulesAt(world, done);
  let account = AddressSet.everyone;
  for (const r of restrictionsAt(world, done).values()) {
    if (r?.inForce) account = account.intersect(letThrough(new Set(r.policies), rules));
  }
  const blocks = (p: PlannedId) => blocksOf(rules.get(p));
  return endpointBounds(door.actions, (a) => actionSet(a, blocks), account);
}

/** A policy's rules as blocks, once per rules object: a state shares the rules of each policy it does not move. */
const BLOCKS = new WeakMap<RulesOfPolicy, { allow: CidrBlocks; deny: CidrBlocks }>();
const NO_RULES = { allow: CidrBlocks.of([]), deny: CidrBlocks.of([]) };
function blocksOf(rules: RulesOfPolicy | undefined): { allow: CidrBlocks; deny: CidrBlocks } {
  if (!rules) return NO_RULES;
  let blocks = BLOCKS.get(rules);
  if (!blocks) {
    blocks = { allow: CidrBlocks.of(rules.allow), deny: CidrBlocks.of(rules.deny) };
    BLOCKS.set(rules, blocks);
  }
  return blocks;
}

export function rulesAt(world: World, done: ReadonlySet<Move>): PolicyRules {
  const moves: RuleMove[] = [];
  for (const m of world.moves) if (m.type === 'rule' && done.has(m)) moves.push(m.rule);
  return withMoves(world.live, moves);
}

/** The `endpoints` restriction objects once `done` is made: each at its latest step done. */
function restrictionsAt(world: World, done: ReadonlySet<Move>): Map<string, Restriction | undefined> {
  const out = new Map(world.restrictions);
  const latest = new Map<string, Move>();
  for (const m of world.moves) {
    if (m.type !== 'restriction' || !done.has(m)) continue;
    const was = latest.get(m.object);
    if (!was || world.before(m).has(was)) latest.set(m.object, m);
  }
  for (const [object, m] of latest) if (m.type === 'restriction') out.set(object, m.to);
  return out;
}

export function keeps(scope: Scope, r: ReachBounds, within: AddressSet = AddressSet.everyone): boolean {
  return r.atMost.intersect(within).isSubsetOf(scope.hi) && scope.lo.intersect(within).isSubsetOf(r.atLeast);
}

/**
 * Whether every state the moves of `pending` can leave `scope` in, from `base` done, keeps it between:
 * each down-closed set of its switches done, with the rule changes those wait for, and any of the
 * other rule changes that may be done by then, along the DAG's order.
 */
export function scopeKeeps(
  world: World,
  scope: Scope,
  base: ReadonlySet<Move>,
  pending: readonly Move[],
): boolean {
  const mine = pending.filter((m) => touches(scope, m));
  const switches = mine.filter((m) => m.type !== 'rule');
  const rules = mine.filter((m) => m.type === 'rule');
  if (switches.length > MAX_SWITCHES) return false;
  for (const on of downSets(switches, world.before)) {
    const must = new Set(rules.filter((r) => on.some((x) => world.before(x).has(r))));
    const free = rules.filter(
      (r) => !must.has(r) && switches.every((s) => on.includes(s) || !world.before(r).has(s)),
    );
    if (!freeKeeps(world, scope, new Set([...base, ...on, ...must]), free)) return false;
  }
  return true;
}

/** Whether `scope` keeps between with `done` made and any down-closed part of `free`. */
function freeKeeps(world: World, scope: Scope, done: ReadonlySet<Move>, free: readonly Move[]): boolean {
  const widest = reachAt(
    world,
    scope,
    new Set([...done, ...free.filter((m) => m.type === 'rule' && m.widens)]),
  );
  const narrowest = reachAt(
    world,
    scope,
    new Set([...done, ...free.filter((m) => m.type === 'rule' && !m.widens)]),
  );
  if (keeps(scope, widest) && keeps(scope, narrowest)) return true;
  // Only the rule changes that touch the failing addresses decide them: those, along the DAG's order.
  const failing = widest.atMost.minus(scope.hi).union(scope.lo.minus(narrowest.atLeast));
  const near = free.filter((m) => m.type === 'rule' && AddressSet.of([m.rule.cidr]).intersects(failing));
  let states = 0;
  for (const part of downSets(near, world.before)) {
    if (++states > MAX_STATES) return false;
    if (!keeps(scope, reachAt(world, scope, new Set([...done, ...part])), failing)) return false;
  }
  return true;
}

/** Every subset of `items` that holds each item's ancestors among them. */
function* downSets(items: readonly Move[], before: World['before']): Generator<Move[]> {
  const inside = (m: Move) => items.filter((a) => a !== m && before(m).has(a));
  // Ancestors first: an ancestor has fewer ancestors among the items than its descendant.
  const order = items.map((m) => ({ m, up: inside(m) })).sort((a, b) => a.up.length - b.up.length);
  const chosen = new Set<Move>();
  function* walk(i: number): Generator<Move[]> {
    if (i === order.length) {
      yield [...chosen];
      return;
    }
    const { m, up } = order[i]!;
    yield* walk(i + 1);
    if (up.every((a) => chosen.has(a))) {
      chosen.add(m);
      yield* walk(i + 1);
      chosen.delete(m);
    }
  }
  yield* walk(0);
}

/**
 * Whether the service takes an endpoint's traffic policy whenever the DAG lets it be sent: it refuses a
 * `restrict-ips` that denies with nothing allowed (ERR_NGROK_393), counting the rules as they are then.
 * Judged on the worst: an allow only where every state at sending has one (the live ones no other
 * change may delete first, and those made before it), a deny wherever some state may have one.
 */
export function sentKeeps(world: World, m: Move): boolean {
  if (m.type !== 'endpoint' || !m.to) return true;
  const first = world.before(m);
  const rules = world.moves.filter((x): x is Extract<Move, { type: 'rule' }> => x.type === 'rule');
  const done = rules.filter((x) => first.has(x)).map((x) => x.rule);
  // Changes that may run before it: neither what it waits for nor what waits for it.
  const free = rules.filter((x) => !first.has(x) && !world.before(x).has(m)).map((x) => x.rule);
  const fewest = withMoves(world.live, [...done, ...free.filter((r) => r.action === 'allow' && !r.adds)]);
  const most = withMoves(world.live, [...done, ...free.filter((r) => r.action === 'deny' && r.adds)]);
  const has = (p: PlannedId, action: 'allow' | 'deny') =>
    ((action === 'allow' ? fewest : most).get(p)?.[action].size ?? 0) > 0;
  return deniesOnlyAt(m.to.document, has) === undefined;
}
