// Slots (DESIGN §2 "Slots"): the one-per-value rule the service enforces for a kind (one IP restriction
// per type). Everything that asks which slot an object holds, who holds a slot, or whether deleting a
// duplicate is cleanup asks here: the matcher, the planner and `apply FILE`'s safety check.

import type { LiveResource } from '../account/model.js';
import type { DesiredManaged } from '../config/model.js';
import { descriptorFor, isManaged, type ManagedDescriptor } from '../resources/index.js';
import { isRecord } from '../resources/values.js';
import { brokenMarkerKey } from './drift.js';
import { entryAt } from './sources.js';
import type { PlanChange, SlotHeld, SlotHolder } from './types.js';

/** The slot that values (normalized, or a change's shown `before`/`after`) hold; undefined: none. */
export function slotOf(kind: PlanChange['kind'], values: unknown): string | undefined {
  const descriptor = descriptorFor(kind);
  return isManaged(descriptor) && descriptor.slot && isRecord(values) ? descriptor.slot(values) : undefined;
}

/** The slot a live object holds; undefined for a kind without slots. */
export function slotOfLive(live: LiveResource): string | undefined {
  return live.descriptor.slot?.(live.values);
}

/** Every live object of one kind by the slot it holds, oldest first (empty for a kind without slots). */
export type SlotIndex = ReadonlyMap<string, readonly LiveResource[]>;

/** `live` must be oldest first: the index keeps that order per slot. */
export function indexSlots(descriptor: ManagedDescriptor, live: readonly LiveResource[]): SlotIndex {
  const index = new Map<string, LiveResource[]>();
  if (!descriptor.slot) return index;
  for (const obj of live) {
    const slot = slotOfLive(obj)!;
    const list = index.get(slot);
    if (list) list.push(obj);
    else index.set(slot, [obj]);
  }
  return index;
}

/** What the holder check needs to know about the live objects of the entry's kind. */
export interface HolderContext {
  descriptor: ManagedDescriptor;
  slots: SlotIndex;
  /** The entry each matched live object belongs to. */
  entryOf: ReadonlyMap<LiveResource, DesiredManaged>;
  /** The file's owner, whose broken markers a holder may still carry. */
  owner: string;
}

/**
 * A create or replace POSTs into the entry's slot, which must be free: for a kind whose slot no change
 * leaves (an IP restriction's type), no create waits for a delete (DESIGN §2 "Slots"); for one whose
 * objects can leave a slot (`slotLeft`), src/plan/slot-moves.ts orders the POST after the holder's
 * change, as it orders a PATCH. This owner's holders were matched by slot, so a holder here is unmanaged,
 * another owner's, an object another entry names with `id:`, or the entry's own object (a replace
 * within one slot); each problem says the way out. `matchedLive` is the entry's live object, if any.
 */
export function slotHolderProblems(
  ctx: HolderContext,
  entry: DesiredManaged,
  matchedLive: LiveResource | undefined,
  after: Record<string, unknown>,
): SlotHolderProblem[] {
  const { descriptor } = ctx;
  const slot = descriptor.slot?.(after);
  if (slot === undefined) return [];
  return (ctx.slots.get(slot) ?? []).map((holder) => {
    const { id, marker } = holder;
    const other = ctx.entryOf.get(holder);
    const by: SlotHolder =
      holder === matchedLive
        ? { is: 'itself' }
        : other
          ? { is: 'entry', address: `${descriptor.section}.${other.key}` }
          : !marker && brokenMarkerKey(holder.object, ctx.owner) === entry.key
            ? { is: 'marker_broken' }
            : !marker
              ? { is: 'unmanaged' }
              : { is: 'other_owner', owner: marker.owner, key: marker.key };
    return {
      problem: {
        code: 'slot_held',
        entry: entryAt(`${descriptor.section}.${entry.key}`, entry.loc),
        slot,
        id,
        description: holder.description,
        holder: by,
      },
      unclaimed: holder !== matchedLive && !other,
    };
  });
}

export interface SlotHolderProblem {
  problem: SlotHeld;
  /**
   * The holder is no entry's (unmanaged, another owner's, a marker broken or given away outside
   * accord): the account's doing, which `accord drift` lists rather than failing on.
   */
  unclaimed: boolean;
}

/** `kind/key` -> the slots (undefined for a kind without them) of the objects that keep that key. */
export type KeptKeys = Map<string, Set<string | undefined>>;

/**
 * The keys objects still hold once the plan is applied, with the slot each holds: every change on a
 * live object other than a delete keeps its key. Creates are left out: only a live object proves a key.
 * `slotOfChange` tells the slot the kept object holds.
 */
export function keptKeys(
  changes: readonly PlanChange[],
  slotOfChange: (c: PlanChange) => string | undefined,
): KeptKeys {
  const kept: KeptKeys = new Map();
  for (const c of changes) {
    if (c.id === null || c.action === 'delete' || c.action === 'create') continue;
    const key = `${c.kind}/${c.key}`;
    const slots = kept.get(key);
    if (slots) slots.add(slotOfChange(c));
    else kept.set(key, new Set([slotOfChange(c)]));
  }
  return kept;
}

/**
 * A duplicate's delete is cleanup, not destruction (DESIGN §2): another object of its owner and key,
 * in the same slot, stays. It counts toward no threshold and no `protect`, so the next plain apply heals
 * what a crash or two concurrent applies left behind. An object of a slot no entry wants any more is
 * not a duplicate, whatever its key: its delete is counted and `protect` refuses it.
 */
export function isCleanup(c: PlanChange, kept: KeptKeys, deletedSlot: string | undefined): boolean {
  return (
    c.action === 'delete' &&
    c.step === 'duplicate' &&
    (kept.get(`${c.kind}/${c.key}`)?.has(deletedSlot) ?? false)
  );
}
