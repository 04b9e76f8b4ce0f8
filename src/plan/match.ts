// Matching live objects of one kind to desired entries (DESIGN §2). In order:
//   1. `id:` names the object (adoption, takeover, or this owner's object under another key);
//   2. for a kind with a slot (one IP restriction per type), this owner's object of the entry's slot,
//      whatever key its marker holds: a renamed key or a swap is a PATCH of the marker, never a window;
//   3. this owner's object with the entry's key (the oldest; the others are duplicates);
//   4. for a kind without a slot, an object whose key left the file and whose immutable values are the
//      entry's, when exactly one such pair exists: a rename, not a create and a delete.
// Whatever of this owner's is left is an orphan, deleted.
import { decodeMarker, type Marker } from '../config/marker.js';
import type { DesiredManaged } from '../config/model.js';
import type { ManagedDescriptor } from '../resources/index.js';
import { jsonEqual, type LiveObject, str } from '../resources/values.js';

export interface Matched {
  desired: DesiredManaged;
  live?: LiveObject;
  marker?: Marker;
  /** Why this is an adoption (`id:` of an unmarked or another owner's resource). */
  adoptReason?: string;
  /** The key this owner's marker holds when it is not the entry's: the change is a rename. */
  renamedFrom?: string;
  /** Live objects with this owner and key besides the match: to delete, as cleanup. */
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
  /** Every live object's marker, as decoded once here. */
  markers: ReadonlyMap<LiveObject, Marker | undefined>;
  /** Every live object by the slot it holds, oldest first (kinds with a slot only). */
  bySlot: ReadonlyMap<string, readonly LiveObject[]>;
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
  renamed: (key: string) => `renamed from ${key}`,
};

export function matchLiveToDesired(
  descriptor: ManagedDescriptor,
  desired: readonly DesiredManaged[],
  live: readonly LiveObject[],
  owner: string,
  allowTakeover: boolean,
): KindMatch {
  const index = indexLive(descriptor, live, owner);
  const { markers, ownedByKey } = index;
  const fileKeys = new Set(desired.map((d) => d.key));
  const claimed = new Set<LiveObject>();
  const errors: string[] = [];
  const warnings: string[] = [];
  const matched: Matched[] = [];
  const where = (d: DesiredManaged) =>
    `${descriptor.section}.${d.key} (${d.loc.file}:${d.loc.line}:${d.loc.col})`;
  const unclaimed = (list: readonly LiveObject[] | undefined) => (list ?? []).filter((o) => !claimed.has(o));
  const matchTo = (d: DesiredManaged, obj: LiveObject, rest: LiveObject[], adoptReason?: string) => {
    const marker = markers.get(obj);
    claimed.add(obj);
    for (const o of rest) claimed.add(o);
    const renamedFrom =
      !adoptReason && marker?.owner === owner && marker.key !== d.key ? marker.key : undefined;
    matched.push({ desired: d, live: obj, marker, adoptReason, renamedFrom, duplicates: rest });
  };

  // 1. `id:` first: it names its object whatever the slot or key says.
  const pending: DesiredManaged[] = [];
  for (const d of desired) {
    if (d.id === undefined) {
      pending.push(d);
      continue;
    }
    const target = index.byId.get(d.id);
    if (!target) {
      if ((ownedByKey.get(d.key) ?? []).length === 0) {
        errors.push(`${where(d)}: id ${d.id} does not exist in the account; remove id: or fix it`);
      } else {
        // The adopted object was replaced by an earlier apply: the marker now names its successor.
        warnings.push(`${where(d)}: id ${d.id} no longer exists; matched by its marker instead; remove id:`);
        pending.push(d);
      }
      continue;
    }
    if (claimed.has(target)) {
      errors.push(`${where(d)}: id ${d.id} is already matched by another entry`);
      continue;
    }
    const marker = markers.get(target);
    let adoptReason: string | undefined;
    if (!marker) adoptReason = ADOPT_REASONS.unmanaged(d.id);
    else if (marker.owner !== owner) {
      if (!allowTakeover) {
        errors.push(
          `${where(d)}: id ${d.id} belongs to owner "${marker.owner}" (key ${marker.key}); rerun with --allow-takeover to take it over`,
        );
        continue;
      }
      adoptReason = ADOPT_REASONS.takeover(d.id, marker.owner);
    } else if (marker.key !== d.key && fileKeys.has(marker.key)) {
      errors.push(`${where(d)}: id ${d.id} is already the entry ${descriptor.section}.${marker.key}`);
      continue;
    }
    // Other objects under its key become duplicates after step 2, which may match them by slot.
    matchTo(d, target, [], adoptReason);
  }

  // 2. Slots: this owner's object of the entry's slot, whatever its key; same-slot extras are duplicates.
  const unmatched: DesiredManaged[] = [];
  for (const d of pending) {
    const slot = descriptor.slot?.(descriptor.normalizeDesired(d));
    const holders =
      slot === undefined
        ? []
        : unclaimed(index.bySlot.get(slot)).filter((o) => markers.get(o)?.owner === owner);
    if (holders.length === 0) {
      unmatched.push(d);
      continue;
    }
    // Where a crash or a concurrent apply left two, prefer the one already under this key.
    const first = holders.find((o) => markers.get(o)!.key === d.key) ?? holders[0]!;
    matchTo(
      d,
      first,
      holders.filter((o) => o !== first),
    );
  }

  // 3. The key: of the objects under it, the one whose immutable values are the entry's, else the
  //    oldest, is the match; for a slot kind its slot is not wanted by any entry (step 2 took those),
  //    so the match is a replace. The others are duplicates.
  const fresh: DesiredManaged[] = [];
  for (const d of unmatched) {
    const list = unclaimed(ownedByKey.get(d.key));
    // After a crash between a replace's create and its delete, the new object is the one to keep.
    const want = list.length > 1 ? descriptor.normalizeDesired(d) : undefined;
    const first = (want && list.find((o) => sameImmutables(descriptor, want, o))) || list[0];
    if (first)
      matchTo(
        d,
        first,
        list.filter((o) => o !== first),
      );
    else fresh.push(d);
  }
  // Duplicates under a key whose entry step 2 matched elsewhere (a half-done swap or move).
  for (const m of matched) {
    const extra = unclaimed(ownedByKey.get(m.desired.key));
    for (const o of extra) claimed.add(o);
    m.duplicates.push(...extra);
  }

  // 4. Renames of kinds without a slot, by immutable values; anything ambiguous is a create and a delete.
  const candidates = descriptor.slot
    ? []
    : [...ownedByKey].filter(([key]) => !fileKeys.has(key)).flatMap(([, list]) => unclaimed(list));
  const renames = renamePairs(descriptor, fresh, candidates, markers, warnings);
  for (const d of fresh) {
    const obj = renames.get(d);
    if (obj) matchTo(d, obj, []);
    else matched.push({ desired: d, duplicates: [] });
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
  for (const list of ownedByKey.values()) {
    for (const obj of list) if (!claimed.has(obj)) orphans.push({ live: obj, marker: markers.get(obj)! });
  }
  return {
    matched,
    orphans,
    unmanaged,
    otherOwners,
    owned: index.owned,
    markers,
    bySlot: index.bySlot,
    errors,
    warnings,
  };
}

interface LiveIndex {
  byId: Map<string, LiveObject>;
  markers: Map<LiveObject, Marker | undefined>;
  /** This owner's objects by marker key, oldest first. */
  ownedByKey: Map<string, LiveObject[]>;
  /** Every object by slot, oldest first (kinds with a slot only). */
  bySlot: Map<string, LiveObject[]>;
  owned: number;
}

function indexLive(descriptor: ManagedDescriptor, live: readonly LiveObject[], owner: string): LiveIndex {
  const index: LiveIndex = {
    byId: new Map(),
    markers: new Map(),
    ownedByKey: new Map(),
    bySlot: new Map(),
    owned: 0,
  };
  for (const obj of [...live].sort(oldestFirst)) {
    index.byId.set(str(obj['id']), obj);
    const marker = decodeMarker(typeof obj['metadata'] === 'string' ? obj['metadata'] : undefined);
    index.markers.set(obj, marker);
    if (descriptor.slot) push(index.bySlot, liveSlot(descriptor, obj), obj);
    if (marker?.owner !== owner) continue;
    index.owned++;
    push(index.ownedByKey, marker.key, obj);
  }
  return index;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The slot a live object holds (kinds with a slot only). */
export function liveSlot(descriptor: ManagedDescriptor, live: LiveObject): string {
  return descriptor.slot!(descriptor.normalizeLive(live));
}

/**
 * New entries paired with this owner's objects whose key left the file, where the immutable values
 * agree and neither side has another candidate. Every other candidate pair is a warning: `id:` makes
 * it a rename.
 */
function renamePairs(
  descriptor: ManagedDescriptor,
  entries: readonly DesiredManaged[],
  objects: readonly LiveObject[],
  markers: ReadonlyMap<LiveObject, Marker | undefined>,
  warnings: string[],
): Map<DesiredManaged, LiveObject> {
  const pairs = new Map<DesiredManaged, LiveObject>();
  if (entries.length === 0 || objects.length === 0) return pairs;
  const byEntry = new Map<DesiredManaged, LiveObject[]>();
  const byObject = new Map<LiveObject, DesiredManaged[]>();
  for (const d of entries) {
    const want = descriptor.normalizeDesired(d);
    for (const o of objects) {
      if (!sameImmutables(descriptor, want, o)) continue;
      push(byEntry, d, o);
      push(byObject, o, d);
    }
  }
  for (const [d, found] of byEntry) {
    const only = found.length === 1 ? found[0]! : undefined;
    if (only && byObject.get(only)!.length === 1) {
      pairs.set(d, only);
      continue;
    }
    const others = found.map((o) => `${str(o['id'])} (${descriptor.section}.${markers.get(o)!.key})`);
    const rivals = only ? byObject.get(only)!.filter((x) => x !== d) : [];
    const why = only
      ? `so does ${rivals.map((x) => `${descriptor.section}.${x.key}`).join(', ')}`
      : `so do ${found.length} objects whose keys left the file`;
    warnings.push(
      `${descriptor.section}.${d.key}: the immutable values equal those of ${others.join(', ')}, but ${why}; ` +
        `planned as a create and a delete; give the entry id: ${str(found[0]!['id'])} to make it a rename`,
    );
  }
  return pairs;
}

/** The live object's immutable values are the entry's (an optional one only where the entry sets it). */
function sameImmutables(
  descriptor: ManagedDescriptor,
  want: Record<string, unknown>,
  obj: LiveObject,
): boolean {
  const have = descriptor.normalizeLive(obj);
  return descriptor.fields.every((f) => {
    if (!f.immutable || (f.optional && want[f.name] === undefined)) return true;
    return f.equals ? f.equals(have[f.name], want[f.name]) : jsonEqual(have[f.name], want[f.name]);
  });
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
