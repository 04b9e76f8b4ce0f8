// Matching live objects of one kind to desired entries by ownership marker or `id:` (DESIGN §2).
import { decodeMarker, type Marker } from '../config/marker.js';
import type { DesiredManaged } from '../config/model.js';
import type { ManagedDescriptor } from '../resources/index.js';
import type { LiveObject } from '../resources/values.js';

export interface Matched {
  desired: DesiredManaged;
  live?: LiveObject;
  marker?: Marker;
  /** Why this is an adoption (`id:` of an unmarked, another owner's, or re-keyed resource). */
  adoptReason?: string;
  /** Live objects with this owner and key besides the match: to delete. */
  duplicates: LiveObject[];
}

export interface KindMatch {
  matched: Matched[];
  /** This owner's live objects whose key is not in the file: to delete, oldest first per key. */
  orphans: { live: LiveObject; marker: Marker }[];
  unmanaged: number;
  otherOwners: number;
  /** Live objects carrying this owner's marker. */
  owned: number;
  errors: string[];
  warnings: string[];
}

/**
 * The reasons a change acts on an object that does not carry this owner's marker with the change's
 * key. `apply FILE` accepts such an object only when the change shows the matching reason.
 */
export const ADOPT_REASONS = {
  unmanaged: (id: string) => `adopts unmanaged ${id} named by id:`,
  takeover: (id: string, owner: string) => `takes ${id} over from owner "${owner}" (--allow-takeover)`,
  rekey: (id: string, key: string) => `renames ${id} from key ${key}`,
};

export function matchLiveToDesired(
  descriptor: ManagedDescriptor,
  desired: readonly DesiredManaged[],
  live: readonly LiveObject[],
  owner: string,
  allowTakeover: boolean,
): KindMatch {
  const byId = new Map<string, LiveObject>();
  const markers = new Map<LiveObject, Marker | undefined>();
  const ownedByKey = new Map<string, LiveObject[]>();
  let owned = 0;
  for (const obj of live) {
    byId.set(String(obj['id']), obj);
    const marker = decodeMarker(typeof obj['metadata'] === 'string' ? obj['metadata'] : undefined);
    markers.set(obj, marker);
    if (marker?.owner === owner) {
      owned++;
      const list = ownedByKey.get(marker.key);
      if (list) list.push(obj);
      else ownedByKey.set(marker.key, [obj]);
    }
  }
  for (const list of ownedByKey.values()) list.sort(oldestFirst);

  const fileKeys = new Set(desired.map((d) => d.key));
  const claimed = new Set<LiveObject>();
  const errors: string[] = [];
  const warnings: string[] = [];
  const matched: Matched[] = [];
  for (const d of desired) {
    const where = () => `${descriptor.section}.${d.key} (${d.loc.file}:${d.loc.line}:${d.loc.col})`;
    const sameKey = ownedByKey.get(d.key) ?? [];
    const target = d.id === undefined ? undefined : byId.get(d.id);
    if (d.id !== undefined && !target && sameKey.length > 0) {
      // The adopted object was replaced by an earlier apply: the marker now names its successor.
      warnings.push(`${where()}: id ${d.id} no longer exists; matched by its marker instead; remove id:`);
    }
    if (d.id === undefined || (!target && sameKey.length > 0)) {
      const [first, ...rest] = sameKey;
      for (const o of sameKey) claimed.add(o);
      matched.push({ desired: d, live: first, marker: first && markers.get(first), duplicates: rest });
      continue;
    }
    if (!target) {
      errors.push(`${where()}: id ${d.id} does not exist in the account; remove id: or fix it`);
      continue;
    }
    if (claimed.has(target)) {
      errors.push(`${where()}: id ${d.id} is already matched by another entry`);
      continue;
    }
    const marker = markers.get(target);
    let adoptReason: string | undefined;
    if (!marker) adoptReason = ADOPT_REASONS.unmanaged(d.id);
    else if (marker.owner !== owner) {
      if (!allowTakeover) {
        errors.push(
          `${where()}: id ${d.id} belongs to owner "${marker.owner}" (key ${marker.key}); rerun with --allow-takeover to take it over`,
        );
        continue;
      }
      adoptReason = ADOPT_REASONS.takeover(d.id, marker.owner);
    } else if (marker.key !== d.key) {
      if (fileKeys.has(marker.key)) {
        errors.push(`${where()}: id ${d.id} is already the entry ${descriptor.section}.${marker.key}`);
        continue;
      }
      adoptReason = ADOPT_REASONS.rekey(d.id, marker.key);
    }
    claimed.add(target);
    for (const o of sameKey) claimed.add(o);
    matched.push({
      desired: d,
      live: target,
      marker,
      adoptReason,
      duplicates: sameKey.filter((o) => o !== target),
    });
  }

  const orphans: KindMatch['orphans'] = [];
  let unmanaged = 0;
  let otherOwners = 0;
  for (const obj of live) {
    if (claimed.has(obj)) continue;
    const marker = markers.get(obj);
    if (!marker) unmanaged++;
    else if (marker.owner !== owner) otherOwners++;
  }
  for (const [key, list] of ownedByKey) {
    if (fileKeys.has(key)) continue;
    for (const obj of list) if (!claimed.has(obj)) orphans.push({ live: obj, marker: markers.get(obj)! });
  }
  return { matched, orphans, unmanaged, otherOwners, owned, errors, warnings };
}

/** Oldest first by created_at, then by id: the oldest of duplicates is the match. */
export function oldestFirst(a: LiveObject, b: LiveObject): number {
  const ta = Date.parse(String(a['created_at']));
  const tb = Date.parse(String(b['created_at']));
  if (ta !== tb && !Number.isNaN(ta) && !Number.isNaN(tb)) return ta - tb;
  const ia = String(a['id']);
  const ib = String(b['id']);
  return ia < ib ? -1 : ia > ib ? 1 : 0;
}
