// A change that takes a slot of a kind whose objects can leave one (`slotLeft`: a cloud endpoint's
// `url`): a PATCH that moves its object into another slot, or a create (or replace) that POSTs into one.
// The service lets one object hold a slot at any moment (409), so the slot must be free when the request
// is sent. A holder that leaves the slot in the same plan (deleted, or itself moved elsewhere) goes
// first: the change depends on the holder's. Any other holder is a plan problem (`slot_held`). Objects
// that would each take the slot the next one holds, round to the first (two endpoints exchanging URLs),
// cannot be ordered at all: that is refused (`slot_cycle`). A kind whose slot no change leaves (an IP
// restriction's type) keeps the rule of src/plan/slots.ts: no create waits for a delete.

import type { LiveResource } from '../account/model.js';
import type { DesiredManaged } from '../config/model.js';
import { type HolderContext, type SlotHolderProblem, slotHolderProblems, slotOf } from './slots.js';
import type { EntryAt, PlanChange, PlanProblem } from './types.js';

/** A PATCH (or adoption) into another slot, or a POST into one, with who holds that slot in the account. */
export interface SlotMove {
  change: PlanChange;
  holders: SlotHolderProblem[];
}

/**
 * The entry's change into a slot: a create's or a replace's POST, or a PATCH into a slot other than its
 * live object's; undefined when it stays in its slot or takes none.
 */
export function slotMove(
  ctx: HolderContext,
  entry: DesiredManaged,
  live: LiveResource | undefined,
  change: PlanChange,
): SlotMove | undefined {
  const slot = slotOf(change.kind, change.after);
  if (slot === undefined || change.action === 'delete') return undefined;
  const posts = change.action === 'create' || change.action === 'replace';
  if (!posts && slot === slotOf(change.kind, change.before)) return undefined;
  return { change, holders: slotHolderProblems(ctx, entry, live, change.after!) };
}

/** Whether a change leaves the slot its live object holds: deleted, or moved to another. */
function leaves(c: PlanChange): boolean {
  return c.action === 'delete' || slotOf(c.kind, c.after) !== slotOf(c.kind, c.before);
}

/**
 * Orders each move after the changes that free its slot (`changes`: the kind's), and says what no
 * order frees: problems, or, as for creates, reasons when `reportHeldSlots` and no entry holds it.
 * Moves on a cycle wait on nothing (the cycle is the problem said).
 */
export function orderSlotMoves(
  moves: readonly SlotMove[],
  changes: readonly PlanChange[],
  reportHeldSlots: boolean,
): PlanProblem[] {
  const errors: PlanProblem[] = [];
  const waits = new Map<PlanChange, PlanChange[]>();
  for (const { change, holders } of moves) {
    for (const h of holders) {
      const freed = changes.find((c) => c.id === h.problem.id && c !== change && leaves(c));
      if (freed) waits.set(change, [...(waits.get(change) ?? []), freed]);
      else if (h.unclaimed && reportHeldSlots)
        change.reason_codes.push({ code: 'slot_held', problem: h.problem });
      else errors.push(h.problem);
    }
  }
  const cycles = cyclesOf(moves, waits);
  const onCycle = new Set(cycles.flatMap((c) => c.path));
  for (const [change, freed] of waits) {
    if (onCycle.has(change)) continue;
    for (const f of freed) if (!change.depends_on.includes(f.address)) change.depends_on.push(f.address);
  }
  return [...errors, ...cycles.map((c) => c.problem)];
}

/** Each cycle of moves waiting on one another, once, from its move whose address sorts first. */
function cyclesOf(
  moves: readonly SlotMove[],
  waits: ReadonlyMap<PlanChange, PlanChange[]>,
): { path: PlanChange[]; problem: PlanProblem }[] {
  const found: { path: PlanChange[]; problem: PlanProblem }[] = [];
  const seen = new Set<PlanChange>();
  const entryOf = new Map(moves.map((m) => [m.change, m.holders[0]?.problem.entry]));
  for (const { change } of moves) {
    const round = seen.has(change) ? undefined : cycleFrom(change, waits);
    if (!round) continue;
    for (const c of round) seen.add(c);
    const first = round.reduce((a, c, i) => (c.address < round[a]!.address ? i : a), 0);
    const path = [...round.slice(first), ...round.slice(0, first)];
    const entry = entryOf.get(path[0]!) as EntryAt;
    const cycle = path.map((c) => ({ address: c.address, slot: slotOf(c.kind, c.after) ?? '' }));
    found.push({ path, problem: { code: 'slot_cycle', entry, cycle } });
  }
  return found;
}

/** The moves from `start` round to it along what each waits on; undefined when none leads back. */
function cycleFrom(
  start: PlanChange,
  waits: ReadonlyMap<PlanChange, PlanChange[]>,
): PlanChange[] | undefined {
  const walk = (path: PlanChange[]): PlanChange[] | undefined => {
    for (const next of waits.get(path[path.length - 1]!) ?? []) {
      if (next === start) return path;
      if (path.includes(next)) continue;
      const found = walk([...path, next]);
      if (found) return found;
    }
    return undefined;
  };
  return walk([start]);
}
