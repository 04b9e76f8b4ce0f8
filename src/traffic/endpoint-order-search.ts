// The order of every change that moves what an endpoint lets through, where the plan's own order fails
// the judgement of src/traffic/endpoint-states.ts: one order of all of them, found by a search within
// the dependencies the other scopes and the references need, grouped where every state a group can
// leave keeps each endpoint between; or the step that has none.
import type { Account } from '../account/model.js';
import type { PlanChange, PlanProblem } from '../plan/types.js';
import { compareIds, type PlannedId } from '../resources/known-after-apply.js';
import type { Proposed } from './chains.js';
import {
  keeps,
  type Move,
  reachAt,
  rulesAt,
  type Scope,
  scopeKeeps,
  sentKeeps,
  touches,
  type World,
  worldOf,
} from './endpoint-states.js';
import { deniesOnlyAt } from './named-policies.js';

/** States the search for an order looks at before it gives up. */
const MAX_SEARCH = 20_000;

/**
 * Judges every listed endpoint on the plan's DAG (`changes`' depends_on); where some state fails,
 * drops the dependencies only proposed for endpoints (`proposed`, by the change that waits) and
 * finds one order for all endpoints at once within what is left. Returns the problems: endpoints no
 * order keeps between.
 */
export function keepEndpointsBetween(
  changes: readonly PlanChange[],
  account: Account,
  proposed: Proposed,
): PlanProblem[] {
  if (!Array.isArray(account.endpoints)) return [];
  const world = worldOf(changes, account);
  if (world.scopes.length === 0 || world.moves.length === 0) return [];
  const judged = world.scopes.every((s) => scopeKeeps(world, s, new Set(), world.moves));
  if (judged && world.moves.every((m) => sentKeeps(world, m))) return [];
  for (const [c, edges] of proposed) c.depends_on = c.depends_on.filter((a) => !edges.has(a));
  const required = worldOf(changes, account);
  const found = searchOrder(required);
  if ('stuck' in found) return [found.stuck];
  addOrder(required, coarsen(required, found.order));
  return [];
}

/** Why `m` cannot be made next, with `done` made: the scope it would take out of its bounds. */
function refusedAt(world: World, done: ReadonlySet<Move>, m: Move): Scope | 'service' | undefined {
  if (m.type === 'endpoint' && m.to) {
    // The service checks a traffic policy against the rules as they are when it is sent.
    const rules = rulesAt(world, done);
    const has = (p: PlannedId, action: 'allow' | 'deny') => (rules.get(p)?.[action].size ?? 0) > 0;
    if (deniesOnlyAt(m.to.document, has) !== undefined) return 'service';
  }
  const next = new Set([...done, m]);
  return world.scopes.find((s) => touches(s, m) && !keeps(s, reachAt(world, s, next)));
}

/** First the changes that let fewer in or take an endpoint away, then switches, then the widening ones. */
function preference(m: Move): number {
  if (m.type === 'endpoint') return m.to ? 2 : 0;
  if (m.type === 'rule') return m.widens ? 3 : 1;
  return 2;
}

/**
 * One order of every move, each made once those it waits for are, that keeps every endpoint between at
 * each step; a depth-first search from the preferred move, within a budget. Stuck: the problem that
 * names an endpoint no next step keeps, and the changes that were waiting.
 */
function searchOrder(world: World): { order: Move[] } | { stuck: PlanProblem } {
  const index = new Map(world.moves.map((m, i) => [m, i]));
  const done = new Set<Move>();
  const order: Move[] = [];
  const seen = new Set<string>();
  let budget = MAX_SEARCH;
  let deepest: { depth: number; waiting: [Move, Scope | 'service' | undefined][] } = {
    depth: -1,
    waiting: [],
  };
  const step = (): boolean => {
    if (order.length === world.moves.length) return true;
    const key = [...done]
      .map((m) => index.get(m)!)
      .sort((a, b) => a - b)
      .join(',');
    if (seen.has(key)) return false;
    seen.add(key);
    const ready = world.moves
      .filter((m) => !done.has(m) && [...world.before(m)].every((a) => done.has(a)))
      .sort((a, b) => preference(a) - preference(b) || index.get(a)! - index.get(b)!);
    const waiting: [Move, Scope | 'service' | undefined][] = [];
    for (const m of ready) {
      if (--budget < 0) return false;
      const refused = refusedAt(world, done, m);
      waiting.push([m, refused]);
      if (refused !== undefined) continue;
      done.add(m);
      order.push(m);
      if (step()) return true;
      done.delete(m);
      order.pop();
    }
    if (order.length > deepest.depth) deepest = { depth: order.length, waiting };
    return false;
  };
  if (step()) return { order };
  return { stuck: stuckProblem(world, deepest.waiting) };
}

function stuckProblem(world: World, waiting: readonly [Move, Scope | 'service' | undefined][]): PlanProblem {
  const scopes = waiting.flatMap(([, why]) => (why !== undefined && why !== 'service' ? [why] : []));
  const scope = scopes[0] ?? world.scopes.find((s) => waiting.some(([m]) => m === s.own)) ?? world.scopes[0]!;
  const changed = new Set(world.moves.flatMap((m) => (m.type === 'rule' ? [m.rule.policy] : [])));
  return {
    code: 'endpoint_order',
    address: scope.name,
    policies: [...scope.policies].filter((p) => changed.has(p)).sort(compareIds),
    waiting: waiting.map(([m, why]) => ({
      address: m.change.step_of ?? m.change.address,
      refused: why === 'service' ? 'service' : (why?.name ?? 'budget'),
    })),
  };
}

/**
 * The order in groups: rule changes next to each other run together where every state the group can
 * leave keeps every endpoint between (its own order within it kept); a switch runs alone.
 */
function coarsen(world: World, order: readonly Move[]): Move[][] {
  const groups: Move[][] = [];
  const base = new Set<Move>();
  let current: Move[] = [];
  for (const m of order) {
    const joins =
      current.length > 0 &&
      m.type === 'rule' &&
      current[0]!.type === 'rule' &&
      world.scopes.every((s) => scopeKeeps(world, s, base, [...current, m]));
    if (joins) {
      current.push(m);
      continue;
    }
    if (current.length > 0) groups.push(current);
    for (const x of current) base.add(x);
    current = [m];
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** Each group's changes wait for every change of the group before it. */
function addOrder(world: World, groups: readonly Move[][]): void {
  for (let i = 1; i < groups.length; i++) {
    for (const m of groups[i]!) {
      for (const p of groups[i - 1]!) {
        if (!world.before(m).has(p) && !m.change.depends_on.includes(p.change.address))
          m.change.depends_on.push(p.change.address);
      }
    }
  }
}
