// Safety rules (DESIGN §2, §4): `protect` refuses any plan that destroys a protected resource, and no
// flag overrides it; destroying more than --max-destroy-percent of >= 10 managed resources needs --force.
import { descriptorFor, isManaged } from '../resources/index.js';
import { isRecord } from '../resources/values.js';
import { DEFAULT_MAX_DESTROY_PERCENT, type PlanOptions, SAFETY_MIN_MANAGED } from './state.js';
import type { PlanChange, PlanSafety } from './types.js';

/** A change that deletes or replaces a live object, with whether this owner's marker protects it. */
export interface Destroyed {
  change: PlanChange;
  protect: boolean;
}

/** The slot that shown values hold ('' for a kind without one, or for no values). */
export function slotOf(kind: PlanChange['kind'], values: unknown): string {
  const descriptor = descriptorFor(kind);
  return isManaged(descriptor) && descriptor.slot && isRecord(values) ? descriptor.slot(values) : '';
}

/** `kind/key` -> the slots (or '' for a kind without one) of the objects that keep that key. */
export type KeptKeys = Map<string, Set<string>>;

/**
 * The keys objects still hold once the plan is applied, with the slot each holds: every change on a
 * live object other than a delete keeps its key. Creates are left out: only a live object proves a key.
 * `slotOf` tells the slot the kept object holds ('' for a kind without one).
 */
export function keptKeys(changes: readonly PlanChange[], slotOf: (c: PlanChange) => string): KeptKeys {
  const kept: KeptKeys = new Map();
  for (const c of changes) {
    if (c.id === null || c.action === 'delete' || c.action === 'create') continue;
    const key = `${c.kind}/${c.key}`;
    const slots = kept.get(key);
    if (slots) slots.add(slotOf(c));
    else kept.set(key, new Set([slotOf(c)]));
  }
  return kept;
}

/**
 * A duplicate's delete is cleanup, not destruction (DESIGN §2): another object of its owner and key,
 * in the same slot, stays. It counts toward no threshold and no `protect`, so the next plain apply heals
 * what a crash or two concurrent applies left behind. An object of a slot no entry wants any more is
 * not a duplicate, whatever its key: its delete is counted and `protect` refuses it.
 */
export function isCleanup(c: PlanChange, kept: KeptKeys, deletedSlot: string): boolean {
  return (
    c.action === 'delete' &&
    c.id !== null &&
    c.address.endsWith(`#${c.id}`) &&
    (kept.get(`${c.kind}/${c.key}`)?.has(deletedSlot) ?? false)
  );
}

export function assessSafety(
  destroyed: readonly Destroyed[],
  managed: number,
  options: Pick<PlanOptions, 'force' | 'maxDestroyPercent'>,
): { safety: PlanSafety; reasons: string[]; warnings: string[] } {
  const max = options.maxDestroyPercent ?? DEFAULT_MAX_DESTROY_PERCENT;
  const forced = options.force ?? false;
  const reasons: string[] = [];
  const warnings: string[] = [];
  const protectedAddresses = destroyed.filter((d) => d.protect).map((d) => d.change.address);
  for (const d of destroyed.filter((x) => x.protect)) {
    const verb = d.change.action === 'replace' ? 'replace' : 'delete';
    reasons.push(
      `${d.change.address}: would ${verb} ${d.change.id}, which is protected (lifecycle.prevent_destroy); ` +
        'keep the entry with prevent_destroy: false, apply, then change it',
    );
  }
  const count = destroyed.length;
  const exceeded = managed >= SAFETY_MIN_MANAGED && count * 100 > max * managed;
  if (exceeded) {
    const pct = Math.round((count * 1000) / managed) / 10;
    const text = `would delete or replace ${count} of ${managed} managed resources (${pct}%), more than --max-destroy-percent ${max}`;
    if (forced) warnings.push(`${text}; allowed by --force`);
    else reasons.push(`${text}; review the plan and rerun with --force if it is intended`);
  }
  return {
    safety: {
      managed,
      destroyed: count,
      max_destroy_percent: max,
      threshold_exceeded: exceeded,
      forced,
      protected: protectedAddresses,
    },
    reasons,
    warnings,
  };
}
