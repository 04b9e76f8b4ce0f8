// `accord apply FILE` applies exactly the saved plan, so it first checks the plan against the account
// (DESIGN §4): same API URL; every object a change patches, replaces or deletes still carries this
// plan's owner marker with the change's key (or is the adoption the change shows); every planned
// object's live_digest unchanged; every create's key still free; and the safety rules, recomputed from
// the listing. Reads one list per managed kind the plan acts on (every managed kind when it destroys
// anything, to count what is managed) and one GET per planned module.
import { decodeMarker, type Marker } from '../config/marker.js';
import { AccordError } from '../errors.js';
import { liveDigest } from '../plan/digest.js';
import type { LiveSource } from '../plan/live.js';
import { ADOPT_REASONS } from '../plan/match.js';
import { assessSafety, type Destroyed } from '../plan/safety.js';
import { isCleanup, keptKeys, slotOf } from '../plan/slots.js';
import type { ManagedKind, Plan, PlanChange } from '../plan/types.js';
import { descriptorFor, isManaged, managedDescriptors } from '../resources/index.js';
import { isRecord, type LiveObject } from '../resources/values.js';
import { mismatch } from './verify.js';

export class StalePlanError extends AccordError {
  override name = 'StalePlanError';
  static override readonly code = 'ACCORD_STALE_PLAN';
}

export class UnsafePlanError extends AccordError {
  override name = 'UnsafePlanError';
  static override readonly code = 'ACCORD_UNSAFE_PLAN';
  override readonly exitCode = 3;
}

export interface CurrentPlanOptions {
  /** How the plan file is named in messages. */
  shownAs: string;
  /** Kinds to list although the plan does not change them (for --cert-dir). */
  alsoList?: readonly ManagedKind[];
  /** The apply's own --force and --max-destroy-percent: a file's verdict is never trusted. */
  force?: boolean;
  maxDestroyPercent?: number;
}

/** A live object with its marker as read. */
interface Listed {
  kind: ManagedKind;
  object: LiveObject;
  marker: Marker | undefined;
}

/**
 * Throws PlanMismatchError (a change acts on an object the plan may not touch), StalePlanError (the
 * account moved since) or UnsafePlanError (a safety rule refuses it); otherwise returns the live
 * objects it listed, by ID.
 */
export async function checkPlanIsCurrent(
  plan: Plan,
  apiUrl: string,
  source: LiveSource,
  options: CurrentPlanOptions,
): Promise<Map<string, LiveObject>> {
  if (plan.api_url !== apiUrl) {
    throw new StalePlanError(
      `plan is stale: it was made for ${plan.api_url}, not ${apiUrl}; run plan again against this API.`,
    );
  }
  const active = plan.changes.filter((c) => c.action !== 'no-op');
  const destroys = active.some(
    (c) => isManagedChange(c) && (c.action === 'delete' || c.action === 'replace'),
  );
  const kinds = new Set<ManagedKind>(options.alsoList ?? []);
  for (const c of active) if (isManagedChange(c)) kinds.add(c.kind as ManagedKind);
  const listed = managedDescriptors.filter((d) => destroys || kinds.has(d.kind));

  const byId = new Map<string, Listed>();
  const lists = listed.map(async (d) => {
    for await (const item of source.listAll<unknown>(d.collectionPath, d.listKey)) {
      if (!isRecord(item) || typeof item['id'] !== 'string') continue;
      const metadata = typeof item['metadata'] === 'string' ? item['metadata'] : undefined;
      byId.set(item['id'], { kind: d.kind, object: item, marker: decodeMarker(metadata) });
    }
  });
  const moduleDigests = new Map<string, string | null>();
  const reads = active
    .filter((c) => !isManagedChange(c))
    .map(async (c) => {
      // The path of the module the address names (verified against the requests when the file was read).
      const descriptor = descriptorFor(c.kind);
      const identity = isManaged(descriptor) ? undefined : descriptor.identify(c.address);
      if (isManaged(descriptor) || !identity)
        throw mismatch(options.shownAs, c.address, 'not a module address');
      const obj = await source.getOptional<unknown>(descriptor.path(identity));
      moduleDigests.set(c.address, obj === undefined ? null : liveDigest(obj));
    });
  await Promise.all([...lists, ...reads]);

  for (const c of active) {
    if (!isManagedChange(c) || c.id === null) continue;
    const found = byId.get(c.id);
    const why = found && ownershipProblem(c, found, plan.owner);
    if (why) throw mismatch(options.shownAs, c.address, why);
  }

  // Keys of this owner's live objects, by kind: a planned create must still find none, apart from the
  // old key of an object this plan renames (a slot match hands that key to a new entry).
  const keyAfter = new Map<string, string>();
  for (const c of active) if (c.id !== null && c.action !== 'delete') keyAfter.set(c.id, c.key);
  const markedKeys = new Map<string, string>();
  for (const [id, l] of byId) {
    if (l.marker?.owner !== plan.owner) continue;
    const next = keyAfter.get(id);
    if (next !== undefined && next !== l.marker.key) continue;
    markedKeys.set(`${l.kind}/${l.marker.key}`, id);
  }
  const problems: string[] = [];
  for (const c of active) {
    const why = isManagedChange(c) ? managedDrift(c, markedKeys, byId) : moduleDrift(c, moduleDigests);
    if (why) problems.push(`${c.address} ${why}`);
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).join('; ');
    const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
    throw new StalePlanError(`plan is stale: ${shown}${more}; run plan again.`);
  }

  if (destroys) checkSafety(plan, active, byId, options);
  return new Map([...byId].map(([id, l]) => [id, l.object]));
}

function isManagedChange(c: PlanChange): boolean {
  return isManaged(descriptorFor(c.kind));
}

/**
 * Why a change may not act on this object: it must carry this owner's marker with the change's key,
 * or be the adoption, takeover or re-keying that the change shows in its reasons. Deletes only ever
 * act on this owner's objects of that key.
 */
function ownershipProblem(c: PlanChange, found: Listed, owner: string): string | undefined {
  const { marker } = found;
  const id = c.id!;
  if (found.kind !== c.kind) return `${id} is a ${found.kind}, not a ${c.kind}`;
  if (marker?.owner === owner && marker.key === c.key) return undefined;
  const whose = !marker
    ? `${id} is not managed by accord (it has no marker)`
    : marker.owner !== owner
      ? `${id} belongs to owner "${marker.owner}"`
      : `${id} is this owner's ${marker.key}, not ${c.key}`;
  if (c.action === 'delete') return whose;
  const shown = !marker
    ? ADOPT_REASONS.unmanaged(id)
    : marker.owner !== owner
      ? ADOPT_REASONS.takeover(id, marker.owner)
      : ADOPT_REASONS.renamed(marker.key);
  return c.reasons.includes(shown) ? undefined : `${whose}, and the change does not show "${shown}"`;
}

function managedDrift(
  c: PlanChange,
  markedKeys: ReadonlyMap<string, string>,
  live: ReadonlyMap<string, Listed>,
): string | undefined {
  if (c.id === null) {
    // A create: another apply of the same file may have made it meanwhile.
    const id = markedKeys.get(`${c.kind}/${c.key}`);
    return id === undefined ? undefined : `was created since the plan was made (${id})`;
  }
  const found = live.get(c.id);
  if (!found) return `(${c.id}) no longer exists`;
  return liveDigest(found.object) === c.live_digest ? undefined : `(${c.id}) changed since the plan was made`;
}

function moduleDrift(c: PlanChange, digests: Map<string, string | null>): string | undefined {
  const now = digests.get(c.address) ?? null;
  if (now === c.live_digest) return undefined;
  return now === null ? 'was removed since the plan was made' : 'changed since the plan was made';
}

/**
 * The safety rules (DESIGN §2, §4) with what is live now and this apply's options, never the file's
 * `safe`: the same assessment the planner makes. A duplicate is cleanup (no protect, no threshold)
 * only while another object of its owner and key stays.
 */
function checkSafety(
  plan: Plan,
  active: readonly PlanChange[],
  live: ReadonlyMap<string, Listed>,
  options: CurrentPlanOptions,
): void {
  // Keys that an object keeps once the plan is applied: that of every change on a live object other
  // than a delete (its ownership is checked above; a no-op's here), in the slot the live object holds,
  // or for a replace the slot its shown `after` takes (its requests were checked against it).
  const keeping = plan.changes.filter((c) => {
    if (!isManagedChange(c) || c.id === null) return false;
    const l = live.get(c.id);
    return c.action !== 'no-op' || (l?.marker?.owner === plan.owner && l.marker.key === c.key);
  });
  const liveValues = (c: PlanChange) => {
    const descriptor = descriptorFor(c.kind);
    const l = c.id === null ? undefined : live.get(c.id);
    return isManaged(descriptor) && l ? descriptor.normalizeLive(l.object) : undefined;
  };
  const kept = keptKeys(keeping, (c) => slotOf(c.kind, c.action === 'replace' ? c.after : liveValues(c)));
  let managed = 0;
  for (const l of live.values()) if (l.marker?.owner === plan.owner) managed++;
  const destroyed: Destroyed[] = [];
  for (const c of active) {
    if (!isManagedChange(c) || c.id === null) continue;
    const l = live.get(c.id);
    const ours = l?.marker?.owner === plan.owner;
    // The planner counts an adopted object as managed: it is once this plan is applied.
    if (!ours && (c.action === 'adopt' || c.action === 'replace' || c.action === 'patch')) managed++;
    if (c.action !== 'delete' && c.action !== 'replace') continue;
    // Cleanup of a duplicate counts toward neither the threshold nor `protect`, as in the planner.
    if (isCleanup(c, kept, slotOf(c.kind, liveValues(c)))) continue;
    destroyed.push({ change: c, protect: ours && l?.marker?.protect === true });
  }
  const { reasons } = assessSafety(destroyed, managed, {
    force: options.force ?? false,
    maxDestroyPercent: options.maxDestroyPercent,
  });
  if (reasons.length > 0) {
    throw new UnsafePlanError(
      `${options.shownAs} is refused by a safety rule: ${reasons.join('; ')}. Nothing was changed.`,
    );
  }
}
