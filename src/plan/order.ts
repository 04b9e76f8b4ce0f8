// Ordering as a DAG (DESIGN §4). The only dependencies between changes are one-per-value slots (one IP
// restriction per type): a change whose POST takes a slot waits for the DELETE of the change that frees
// it. A replace creates before it deletes unless that would close a cycle (a slot it needs is freed only
// after its own delete, e.g. two restrictions swapping types): then it deletes first, and the plan says
// that the slot is empty in between.
import type { PlanChange } from './types.js';

export interface SlotUse {
  /** The slot the change's POST takes. */
  takes?: string;
  /** The slot the change's DELETE frees. */
  frees?: string;
}

/** Phase nodes: `P:<address>` (the POST) and `D:<address>` (the DELETE). */
type Graph = Map<string, Set<string>>;

export function orderBySlots(
  changes: readonly PlanChange[],
  slots: ReadonlyMap<PlanChange, SlotUse>,
  /** Slots held by live objects no change frees, with a description of the holder. */
  heldElsewhere: ReadonlyMap<string, string>,
  warnings: string[],
): void {
  const freers = new Map<string, PlanChange[]>();
  for (const [change, use] of slots) {
    if (use.frees === undefined) continue;
    const list = freers.get(use.frees);
    if (list) list.push(change);
    else freers.set(use.frees, [change]);
  }
  const deleteFirst = new Set<PlanChange>();
  for (const [change, use] of slots) {
    if (use.takes === undefined) continue;
    for (const freer of freers.get(use.takes) ?? []) {
      if (freer === change) deleteFirst.add(change);
      else if (!change.depends_on.includes(freer.address)) change.depends_on.push(freer.address);
    }
    const holder = heldElsewhere.get(use.takes);
    if (holder !== undefined) {
      warnings.push(
        `${change.address}: ${use.takes} is held by ${holder}, which this plan leaves alone; creating will fail until it is removed or adopted with id:`,
      );
    }
  }

  const byAddress = new Map(changes.map((c) => [c.address, c]));
  for (;;) {
    const cycle = findCycle(phaseGraph(changes, deleteFirst));
    if (!cycle) break;
    const candidates = cycle
      .filter((n) => n.startsWith('P:'))
      .map((n) => byAddress.get(n.slice(2))!)
      .filter((c) => c.action === 'replace' && !deleteFirst.has(c))
      .sort((a, b) => (a.address < b.address ? -1 : 1));
    if (candidates.length === 0) throw new Error(`unorderable plan: ${cycle.join(' -> ')}`);
    deleteFirst.add(candidates[0]!);
  }

  // The requests follow replace_order (src/plan/requests.ts).
  for (const change of changes) {
    if (change.action !== 'replace') continue;
    if (deleteFirst.has(change)) {
      change.replace_order = 'delete_before_create';
      const slot = slots.get(change)?.takes ?? 'of its kind';
      change.reasons.push(`delete_before_create: the service allows only one ${slot}`);
      warnings.push(
        `${change.address}: deleted before its replacement is created; there is no ${slot} in between`,
      );
    } else change.replace_order = 'create_before_delete';
  }
  for (const change of changes) change.depends_on.sort();
}

function phaseGraph(changes: readonly PlanChange[], deleteFirst: ReadonlySet<PlanChange>): Graph {
  const g: Graph = new Map();
  const edge = (from: string, to: string) => {
    const set = g.get(from);
    if (set) set.add(to);
    else g.set(from, new Set([to]));
  };
  for (const c of changes) {
    if (c.action === 'replace') {
      if (deleteFirst.has(c)) edge(`D:${c.address}`, `P:${c.address}`);
      else edge(`P:${c.address}`, `D:${c.address}`);
    }
    for (const dep of c.depends_on) edge(`D:${dep}`, `P:${c.address}`);
  }
  return g;
}

function findCycle(g: Graph): string[] | undefined {
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const visit = (n: string): string[] | undefined => {
    state.set(n, 1);
    stack.push(n);
    for (const m of g.get(n) ?? []) {
      if (state.get(m) === 1) return stack.slice(stack.indexOf(m));
      if (!state.has(m)) {
        const found = visit(m);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(n, 2);
    return undefined;
  };
  for (const n of [...g.keys()].sort()) {
    if (!state.has(n)) {
      const found = visit(n);
      if (found) return found;
    }
  }
  return undefined;
}
