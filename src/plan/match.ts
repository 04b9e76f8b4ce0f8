// Matching live objects of one kind to desired entries (DESIGN §2), in phases, each a function of what
// the ones before it matched:
//   1. `id:` names the object (adoption, takeover, or this owner's object under another key);
//   2. for a kind with a slot (one IP restriction per type), this owner's object of the entry's slot,
//      whatever key its marker holds: a renamed key or a swap is a PATCH of the marker, never a window;
//   3. this owner's object with the entry's key (the oldest; the others are duplicates);
//   4. for a kind without a slot, an object whose key left the file and whose immutable values are the
//      entry's, when exactly one such pair exists: a rename, not a create and a delete.
// Whatever of this owner's is left is an orphan, deleted. Slots are src/plan/slots.ts's.

import type { LiveResource } from '../account/model.js';
import type { DesiredManaged } from '../config/model.js';
import type { ManagedDescriptor } from '../resources/index.js';
import type { Marker } from '../resources/marker.js';
import { fieldEquals, type LiveObject } from '../resources/values.js';
import { indexSlots, type SlotIndex } from './slots.js';
import { entryAt } from './sources.js';
import type { EntryAt, PlanProblem, Reason, Warning } from './types.js';

/** Normalized values (`normalizeDesired`, `normalizeLive`). */
export type Values = Readonly<Record<string, unknown>>;

/** A desired entry with its values normalized, once per plan. */
export interface Wanted {
  desired: DesiredManaged;
  values: Values;
}

export interface Matched extends Wanted {
  live?: LiveResource;
  /** Why this is an adoption (`id:` of an unmarked or another owner's resource). */
  adoptReason?: AdoptReason;
  /** The key this owner's marker holds when it is not the entry's: the change is a rename. */
  renamedFrom?: string;
  /** Live objects with this owner and key besides the match: to delete, as cleanup. */
  duplicates: LiveResource[];
}

export interface KindMatch {
  matched: Matched[];
  /** This owner's live objects whose key is not in the file: to delete, oldest first per key. */
  orphans: { live: LiveResource; marker: Marker }[];
  unmanaged: number;
  otherOwners: number;
  /** Live objects carrying this owner's marker. */
  owned: number;
  /** Every live object by the slot it holds, oldest first (kinds with a slot only). */
  slots: SlotIndex;
  errors: PlanProblem[];
  warnings: EntryWarning[];
}

/** A warning about one entry, with the address of its change: it goes where that change goes. */
export type EntryWarning = Extract<Warning, { address: string }>;

/**
 * The reasons a change acts on an object that does not carry this owner's marker with the change's
 * key. `apply FILE` accepts such an object only when the change shows the matching reason.
 */
export type AdoptReason = Extract<Reason, { code: 'adopt_unmanaged' | 'takeover' | 'adopt_nested' }>;

export function matchLiveToDesired(
  descriptor: ManagedDescriptor,
  desired: readonly Wanted[],
  live: readonly LiveResource[],
  owner: string,
  allowTakeover: boolean,
): KindMatch {
  const index = indexLive(descriptor, live, owner);
  const scope: MatchScope = {
    descriptor,
    index,
    owner,
    allowTakeover,
    fileKeys: new Set(desired.map((w) => w.desired.key)),
  };
  const byId = matchById(scope, desired);
  const bySlot = matchBySlot(scope, byId.rest, claimedBy(byId.matched));
  const byKey = matchByKey(scope, bySlot.rest, claimedBy(byId.matched, bySlot.matched));
  const found = withKeyDuplicates(scope, [...byId.matched, ...bySlot.matched, ...byKey.matched]);
  const claimed = claimedBy(found);
  const renamed = matchRenames(scope, byKey.rest, claimed);
  for (const m of renamed.matched) if (m.live) claimed.add(m.live);
  const matched = [...found, ...renamed.matched];
  return {
    matched,
    ...leftOver(scope, live, claimed),
    owned: index.owned,
    slots: index.slots,
    errors: byId.errors,
    warnings: [...byId.warnings, ...renamed.warnings],
  };
}

/** What every phase reads: nothing in it changes once matching starts. */
interface MatchScope {
  descriptor: ManagedDescriptor;
  index: LiveIndex;
  owner: string;
  allowTakeover: boolean;
  fileKeys: ReadonlySet<string>;
}

/** A phase's result: the entries it matched, and those it leaves to the next phase. */
interface Phase {
  matched: Matched[];
  rest: Wanted[];
  errors: PlanProblem[];
  warnings: EntryWarning[];
}

/** The live objects the matches hold (their match and duplicates). */
function claimedBy(...groups: readonly (readonly Matched[])[]): Set<LiveResource> {
  const claimed = new Set<LiveResource>();
  for (const group of groups) {
    for (const m of group) {
      if (m.live) claimed.add(m.live);
      for (const o of m.duplicates) claimed.add(o);
    }
  }
  return claimed;
}

function matchOf(
  scope: MatchScope,
  w: Wanted,
  obj: LiveResource,
  duplicates: LiveResource[],
  adoptReason?: AdoptReason,
): Matched {
  const { marker } = obj;
  const renamedFrom =
    !adoptReason && marker?.owner === scope.owner && marker.key !== w.desired.key ? marker.key : undefined;
  // Built field by field: a spread of `w` here costs V8 several times as much (see withShared).
  return { desired: w.desired, values: w.values, live: obj, adoptReason, renamedFrom, duplicates };
}

function where(scope: MatchScope, d: DesiredManaged): string {
  return `${scope.descriptor.section}.${d.key} (${d.loc.file}:${d.loc.line}:${d.loc.col})`;
}

function entryOf(scope: MatchScope, d: DesiredManaged): EntryAt {
  return entryAt(`${scope.descriptor.section}.${d.key}`, d.loc);
}

/** 1. `id:` first: it names its object whatever the slot or key says. */
function matchById(scope: MatchScope, desired: readonly Wanted[]): Phase {
  const { index, owner } = scope;
  const phase: Phase = { matched: [], rest: [], errors: [], warnings: [] };
  const claimed = new Set<LiveResource>();
  for (const w of desired) {
    const d = w.desired;
    if (d.id === undefined) {
      phase.rest.push(w);
      continue;
    }
    const target = index.byId.get(d.id);
    if (!target) {
      if ((index.ownedByKey.get(d.key) ?? []).length === 0) {
        phase.errors.push({ code: 'id_unknown', entry: entryOf(scope, d), id: d.id });
      } else {
        // The adopted object was replaced by an earlier apply: the marker now names its successor.
        phase.warnings.push({
          code: 'id_gone',
          address: `${scope.descriptor.section}.${d.key}`,
          where: where(scope, d),
          id: d.id,
        });
        phase.rest.push(w);
      }
      continue;
    }
    if (claimed.has(target)) {
      phase.errors.push({ code: 'id_claimed', entry: entryOf(scope, d), id: d.id });
      continue;
    }
    const { marker } = target;
    let adoptReason: AdoptReason | undefined;
    if (!marker) adoptReason = { code: 'adopt_unmanaged', id: d.id };
    else if (marker.owner !== owner) {
      if (!scope.allowTakeover) {
        const { owner: other, key } = marker;
        phase.errors.push({ code: 'id_other_owner', entry: entryOf(scope, d), id: d.id, owner: other, key });
        continue;
      }
      adoptReason = { code: 'takeover', id: d.id, owner: marker.owner };
    } else if (marker.key !== d.key && scope.fileKeys.has(marker.key)) {
      const other = `${scope.descriptor.section}.${marker.key}`;
      phase.errors.push({ code: 'id_other_entry', entry: entryOf(scope, d), id: d.id, other });
      continue;
    }
    // Other objects under its key become duplicates later (withKeyDuplicates): the slot phase may
    // match them first.
    claimed.add(target);
    phase.matched.push(matchOf(scope, w, target, [], adoptReason));
  }
  return phase;
}

/**
 * 2. Slots: this owner's object of the entry's slot, whatever its key; same-slot extras are duplicates.
 * A renamed key or a swap is a PATCH of the marker, never a window.
 */
function matchBySlot(scope: MatchScope, desired: readonly Wanted[], taken: ReadonlySet<LiveResource>): Phase {
  const { descriptor, index, owner } = scope;
  const phase: Phase = { matched: [], rest: [], errors: [], warnings: [] };
  const claimed = new Set(taken);
  for (const w of desired) {
    const slot = descriptor.slot?.(w.values);
    const holders =
      slot === undefined
        ? []
        : (index.slots.get(slot) ?? []).filter((o) => !claimed.has(o) && o.marker?.owner === owner);
    if (holders.length === 0) {
      phase.rest.push(w);
      continue;
    }
    // Where a crash or a concurrent apply left two, prefer the one already under this key.
    const first = holders.find((o) => o.marker!.key === w.desired.key) ?? holders[0]!;
    for (const o of holders) claimed.add(o);
    phase.matched.push(
      matchOf(
        scope,
        w,
        first,
        holders.filter((o) => o !== first),
      ),
    );
  }
  return phase;
}

/**
 * 3. The key: of the objects under it, the one whose immutable values are the entry's, else the
 * oldest, is the match; for a slot kind its slot is not wanted by any entry (the slot phase took
 * those), so the match is a replace. The others are duplicates.
 */
function matchByKey(scope: MatchScope, desired: readonly Wanted[], taken: ReadonlySet<LiveResource>): Phase {
  const { descriptor, index } = scope;
  const phase: Phase = { matched: [], rest: [], errors: [], warnings: [] };
  for (const w of desired) {
    const list = untaken(index.ownedByKey.get(w.desired.key), taken);
    // After a crash between a replace's create and its delete, the new object is the one to keep.
    const first = (list.length > 1 && list.find((o) => sameImmutables(descriptor, w.values, o))) || list[0];
    if (first)
      phase.matched.push(matchOf(scope, w, first, list.length === 1 ? [] : list.filter((o) => o !== first)));
    else phase.rest.push(w);
  }
  return phase;
}

/**
 * The matches with the objects still left under each one's key added to its duplicates: what a
 * half-done swap or move leaves where the slot phase matched the entry elsewhere.
 */
function withKeyDuplicates(scope: MatchScope, matched: readonly Matched[]): Matched[] {
  const claimed = claimedBy(matched);
  return matched.map((m) => {
    const extra = untaken(scope.index.ownedByKey.get(m.desired.key), claimed);
    return extra.length === 0 ? m : { ...m, duplicates: [...m.duplicates, ...extra] };
  });
}

const NONE: readonly LiveResource[] = [];

/**
 * The objects of `list` not in `taken`. Nearly every key has one object, which its entry matched: that
 * case allocates nothing.
 */
function untaken(
  list: readonly LiveResource[] | undefined,
  taken: ReadonlySet<LiveResource>,
): readonly LiveResource[] {
  if (list === undefined) return NONE;
  if (list.length === 1) return taken.has(list[0]!) ? NONE : list;
  return list.filter((o) => !taken.has(o));
}

/**
 * 4. Renames of kinds without a slot, by immutable values: an object of this owner whose key left the
 * file and whose immutable values are the entry's, when exactly one such pair exists. Anything
 * ambiguous is a create and a delete, with a warning.
 */
function matchRenames(
  scope: MatchScope,
  desired: readonly Wanted[],
  taken: ReadonlySet<LiveResource>,
): { matched: Matched[]; warnings: EntryWarning[] } {
  const { descriptor } = scope;
  // A kind without immutable values (an IP policy) has nothing to recognize a renamed object by.
  const candidates =
    descriptor.slot || !descriptor.fields.some((f) => f.immutable) ? [] : leftKeysObjects(scope, taken);
  const warnings: EntryWarning[] = [];
  const renames = renamePairs(descriptor, desired, candidates, warnings);
  const matched = desired.map((w): Matched => {
    const obj = renames.get(w);
    return obj ? matchOf(scope, w, obj, []) : { desired: w.desired, values: w.values, duplicates: [] };
  });
  return { matched, warnings };
}

/** This owner's objects not taken whose key left the file. */
function leftKeysObjects(scope: MatchScope, taken: ReadonlySet<LiveResource>): LiveResource[] {
  const objects: LiveResource[] = [];
  for (const [key, list] of scope.index.ownedByKey) {
    if (scope.fileKeys.has(key)) continue;
    for (const o of list) if (!taken.has(o)) objects.push(o);
  }
  return objects;
}

/** Whatever no entry claimed: this owner's are orphans, to delete; the rest is counted. */
function leftOver(
  scope: MatchScope,
  live: readonly LiveResource[],
  claimed: ReadonlySet<LiveResource>,
): Pick<KindMatch, 'orphans' | 'unmanaged' | 'otherOwners'> {
  const { index, owner } = scope;
  let unmanaged = 0;
  let otherOwners = 0;
  for (const obj of live) {
    if (claimed.has(obj)) continue;
    if (!obj.marker) unmanaged++;
    else if (obj.marker.owner !== owner) otherOwners++;
  }
  const orphans: KindMatch['orphans'] = [];
  for (const list of index.ownedByKey.values()) {
    for (const obj of list) if (!claimed.has(obj)) orphans.push({ live: obj, marker: obj.marker! });
  }
  return { orphans, unmanaged, otherOwners };
}

interface LiveIndex {
  byId: Map<string, LiveResource>;
  /** This owner's objects by marker key, oldest first. */
  ownedByKey: Map<string, LiveResource[]>;
  slots: SlotIndex;
  owned: number;
}

function indexLive(descriptor: ManagedDescriptor, live: readonly LiveResource[], owner: string): LiveIndex {
  const sorted = [...live].sort(oldestLiveFirst);
  const index: LiveIndex = {
    byId: new Map(),
    ownedByKey: new Map(),
    slots: indexSlots(descriptor, sorted),
    owned: 0,
  };
  for (const obj of sorted) {
    index.byId.set(obj.id, obj);
    if (obj.marker?.owner !== owner) continue;
    index.owned++;
    push(index.ownedByKey, obj.marker.key, obj);
  }
  return index;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * New entries paired with this owner's objects whose key left the file, where the immutable values
 * agree and neither side has another candidate. Every other candidate pair is a warning: `id:` makes
 * it a rename.
 */
function renamePairs(
  descriptor: ManagedDescriptor,
  entries: readonly Wanted[],
  objects: readonly LiveResource[],
  warnings: EntryWarning[],
): Map<Wanted, LiveResource> {
  const pairs = new Map<Wanted, LiveResource>();
  if (entries.length === 0 || objects.length === 0) return pairs;
  const byEntry = new Map<Wanted, LiveResource[]>();
  const byObject = new Map<LiveResource, Wanted[]>();
  for (const w of entries) {
    for (const o of objects) {
      if (!sameImmutables(descriptor, w.values, o)) continue;
      push(byEntry, w, o);
      push(byObject, o, w);
    }
  }
  for (const [w, found] of byEntry) {
    const only = found.length === 1 ? found[0]! : undefined;
    if (only && byObject.get(only)!.length === 1) {
      pairs.set(w, only);
      continue;
    }
    const objects = found.map((o) => ({ id: o.id, address: `${descriptor.section}.${o.marker!.key}` }));
    const rivals = only
      ? byObject
          .get(only)!
          .filter((x) => x !== w)
          .map((x) => `${descriptor.section}.${x.desired.key}`)
      : undefined;
    warnings.push({
      code: 'ambiguous_rename',
      address: `${descriptor.section}.${w.desired.key}`,
      objects,
      ...(rivals ? { rivals } : {}),
    });
  }
  return pairs;
}

/** The live object's immutable values are the entry's (an optional one only where the entry sets it). */
function sameImmutables(descriptor: ManagedDescriptor, want: Values, obj: LiveResource): boolean {
  const have = obj.values;
  return descriptor.fields.every((f) => {
    if (!f.immutable || (f.optional && want[f.name] === undefined)) return true;
    return fieldEquals(f, have[f.name], want[f.name]);
  });
}

/** Oldest first by created_at, then by id: the oldest of duplicates is the match. */
export function oldestFirst(a: LiveObject, b: LiveObject): number {
  return byTimeThenId(
    Date.parse(String(a['created_at'])),
    Date.parse(String(b['created_at'])),
    String(a['id']),
    String(b['id']),
  );
}

/** oldestFirst of typed objects: their times were read once, when they were typed. */
export function oldestLiveFirst(a: LiveResource, b: LiveResource): number {
  return byTimeThenId(a.createdAt, b.createdAt, a.id, b.id);
}

function byTimeThenId(ta: number, tb: number, ia: string, ib: string): number {
  if (ta !== tb && !Number.isNaN(ta) && !Number.isNaN(tb)) return ta - tb;
  return ia < ib ? -1 : ia > ib ? 1 : 0;
}
