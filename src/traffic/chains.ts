// The order of a plan's traffic changes as chains of groups (src/traffic/order.ts makes them): each
// group runs once the group before it in its chain is done. Where the chains make a cycle, a chain
// whose check says its scope keeps its bounds without some of its order lets go of it: a rule change
// floats free of the chain (it may run at any moment), or two groups next to each other merge.
import type { PlanChange, PlanProblem } from '../plan/types.js';

/**
 * A scope's changes in groups that run one after another. `check` says whether other groups of the
 * same changes keep the scope between before and after: an order the scope does not need may be
 * dropped when another scope needs the opposite one. A policy's own reference order has no check.
 */
export interface Chain {
  groups: PlanChange[][];
  /** Changes of the scope that may run at any moment, before, between or after the groups. */
  floating?: PlanChange[];
  /** Whether these groups and floating changes keep the scope between before and after. */
  check?: (groups: readonly (readonly PlanChange[])[], floating: readonly PlanChange[]) => boolean;
  /** Whether a change of the chain may float (a rule change, not a switch of the scope's policies). */
  mayFloat?: (c: PlanChange) => boolean;
  /** An order proposed for an endpoint, judged afterwards (src/traffic/endpoint-states.ts), not required. */
  proposal?: true;
}

/** The dependencies only an endpoint's proposed order added, by the change that waits. */
export type Proposed = Map<PlanChange, Set<string>>;

/** Each change's dependencies on the group before its own, in every chain. */
export function edgesOf(chains: readonly Chain[]): Map<PlanChange, Set<string>> {
  const edges = new Map<PlanChange, Set<string>>();
  for (const { groups } of chains) {
    for (let i = 1; i < groups.length; i++) {
      for (const c of groups[i]!) {
        const set = edges.get(c) ?? new Set<string>();
        edges.set(c, set);
        for (const p of groups[i - 1]!) if (p !== c) set.add(p.address);
      }
    }
  }
  return edges;
}

/**
 * While the chains' orders make a cycle, merges two groups next to each other on it in a chain whose
 * check passes without their order: refused is only what has no order the checks can find.
 */
export function relaxCycles(changes: readonly PlanChange[], chains: Chain[]): void {
  for (;;) {
    const edges = edgesOf(chains);
    const found = cycles(changes, (c) => {
      const more = edges.get(c);
      return more ? [...c.depends_on, ...more] : c.depends_on;
    });
    if (found.length === 0) return;
    const onCycle = new Set(found.flatMap((p) => (p.code === 'traffic_cycle' ? p.cycle : [])));
    if (!floatOne(chains, onCycle) && !mergeOne(chains, onCycle)) return;
  }
}

/** Lets one rule change on a cycle float free of a chain that keeps its scope without its order. */
function floatOne(chains: Chain[], onCycle: ReadonlySet<string>): boolean {
  for (const chain of chains) {
    if (!chain.check || !chain.mayFloat) continue;
    const floating = chain.floating ?? [];
    for (const c of chain.groups.flat()) {
      if (!onCycle.has(c.address) || !chain.mayFloat(c)) continue;
      const groups = chain.groups.map((g) => g.filter((x) => x !== c)).filter((g) => g.length > 0);
      if (!chain.check(groups, [...floating, c])) continue;
      chain.groups = groups;
      chain.floating = [...floating, c];
      return true;
    }
  }
  return false;
}

/** Merges two groups next to each other, both on a cycle, in a chain that keeps its scope without their order. */
function mergeOne(chains: Chain[], onCycle: ReadonlySet<string>): boolean {
  const on = (g: readonly PlanChange[]) => g.some((c) => onCycle.has(c.address));
  for (const chain of chains) {
    if (!chain.check) continue;
    const { groups } = chain;
    for (let i = 0; i + 1 < groups.length; i++) {
      if (!on(groups[i]!) || !on(groups[i + 1]!)) continue;
      const merged = [...groups.slice(0, i), [...groups[i]!, ...groups[i + 1]!], ...groups.slice(i + 2)];
      if (!chain.check(merged, chain.floating ?? [])) continue;
      chain.groups = merged;
      return true;
    }
  }
  return false;
}

/** Changes on a cycle of dependencies: orders that cannot keep every scope between before and after. */
export function cycles(
  changes: readonly PlanChange[],
  dependsOn: (c: PlanChange) => readonly string[],
): PlanProblem[] {
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
    for (const a of dependsOn(c)) {
      const dep = byAddress.get(a);
      if (dep) visit(dep, [...path, c.address]);
    }
    state.set(c.address, 'closed');
  };
  // A cycle runs through dependencies: a change that has none starts none.
  for (const c of changes) if (dependsOn(c).length > 0) visit(c, []);
  return found.map((cycle) => ({ code: 'traffic_cycle', cycle }));
}
