// Planning one kind's entries (DESIGN §2-§4): each matched entry compared with its live object and
// turned into a change, the deletes of duplicates and orphans, nested kinds (a policy's rules) within
// their parent (edge modules: modules.ts). src/plan/planner.ts runs these over every kind.

import type { LiveResource } from '../account/model.js';
import type { DesiredManaged } from '../config/model.js';
import { entryAddress, type ManagedDescriptor, type Nested } from '../resources/index.js';
import type { FieldSpec } from '../resources/types.js';
import { fieldEquals } from '../resources/values.js';
import { newChange } from './change.js';
import { attributeDrift, unknownDrift } from './drift.js';
import { type EntryWarning, type KindMatch, type Matched, oldestLiveFirst, type Values } from './match.js';
import { unmarkedData } from './metadata.js';
import type { References } from './references.js';
import { comparedFields, fingerprintFields, shownMarker } from './requests.js';
import type { Destroyed } from './safety.js';
import { type SlotMove, slotMove } from './slot-moves.js';
import { type HolderContext, slotHolderProblems, slotOfLive } from './slots.js';
import { entryAt } from './sources.js';
import type { Action, PlanChange, PlanProblem, Reason } from './types.js';

// Where planner.ts finds an edge module's planning, beside its entries'.

export interface KindContext {
  descriptor: ManagedDescriptor;
  owner: string;
  now: Date;
  changes: PlanChange[];
  /** Live objects this plan destroys, with whether they carry this owner's protect flag. */
  destroyed: Destroyed[];
  warnings: EntryWarning[];
  errors: PlanProblem[];
  /** Who holds each slot of the kind, with the markers matching decoded. */
  holders: HolderContext;
  /** Keys that unmanaged objects still name in a marker accord cannot read, with their IDs. */
  brokenMarkers: ReadonlyMap<string, string>;
  /** Entries of the kinds planned before this one, for references by key. */
  references: References;
  /** PlanOptions.reportHeldSlots: a slot held by no entry's object is a reason, not an error. */
  reportHeldSlots?: boolean;
  /** The kind's PATCHes into another slot (src/plan/slot-moves.ts). */
  slotMoves: SlotMove[];
}

/** What comparing an entry with its live object found; `before` is null when nothing is live. */
interface Comparison {
  before: Record<string, unknown> | null;
  after: Record<string, unknown>;
  /** Fields that differ (for a create: every field the entry sets). */
  changed: string[];
  immutable: FieldSpec[];
  drift: PlanChange['drift'];
  /** Fields changed outside accord to the file's value: the marker must learn them. */
  agreed: string[];
  /** Changes whose answers give IDs the entry's values name. */
  dependsOn: string[];
}

/**
 * A kind's values with the fields every kind shares, as a plan shows them. Copied key by key: a spread
 * (`{...values, description}`) here sees every kind's shape, and V8's copy of an object of a shape it
 * has not settled on costs several times as much, in time and in memory, as this loop.
 */
function withShared(
  values: Readonly<Record<string, unknown>>,
  description: string,
  metadata: unknown,
  protect: boolean,
  marker: string | null,
): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  for (const name in values) shown[name] = values[name];
  shown['description'] = description;
  shown['metadata'] = metadata;
  shown['protect'] = protect;
  shown['marker'] = marker;
  return shown;
}

/** The entry's shown values against its live object's, field by field, with drift attributed. */
function compareEntry(ctx: KindContext, m: Matched): Comparison {
  const { descriptor, owner } = ctx;
  const d = m.desired;
  // Built whole here: resolve below only rewrites fields the values already hold.
  const after = withShared(m.values, d.description, d.data, d.protect, shownMarker(owner, d.key));
  const where = () => entryAt(entryAddress(descriptor, d.key), d.loc);
  const { dependsOn, problems } = ctx.references.resolve(descriptor.fields, after, where);
  ctx.errors.push(...problems);
  const live = m.live;
  if (!live) {
    const changed = Object.keys(after).filter((k) => after[k] !== undefined);
    // Missing from the account: a new entry, or an object deleted outside accord; nothing tells which.
    return {
      before: null,
      after,
      changed,
      immutable: [],
      drift: unknownDrift(changed),
      agreed: [],
      dependsOn,
    };
  }
  const { marker } = live;
  const before = withShared(
    live.values,
    live.description,
    marker ? marker.data : unmarkedData(live.object['metadata']),
    marker?.protect ?? false,
    marker ? shownMarker(marker.owner, marker.key) : null,
  );
  const differing: FieldSpec[] = [];
  for (const f of comparedFields(descriptor)) {
    const want = after[f.name];
    if (f.optional && want === undefined) continue;
    const have = before[f.name];
    if (!fieldEquals(f, have, want)) differing.push(f);
  }
  const changed = differing.map((f) => f.name);
  const { drift, agreed } = attributeDrift({
    fields: fingerprintFields(descriptor),
    before,
    after,
    changed,
    applied: marker?.owner === owner ? marker.applied : undefined,
    markers: { live: marker, desired: { owner, key: d.key } },
  });
  return {
    before,
    after,
    changed,
    immutable: differing.filter((f) => cannotChangeInPlace(f, before[f.name], after[f.name])),
    drift,
    agreed,
    dependsOn,
  };
}

/** Whether a field's difference needs a replace: it is immutable, or the immutable part of it differs. */
function cannotChangeInPlace(f: FieldSpec, have: unknown, want: unknown): boolean {
  const part = f.immutablePart;
  return f.immutable || (part !== undefined && !fieldEquals({}, part.of(have), part.of(want)));
}

/** The action a comparison calls for, and why. */
function decideAction(
  m: Matched,
  comparison: Comparison,
  renewal: { replace?: Extract<Reason, { code: 'renewal' }> },
): { action: Action; reasons: Reason[] } {
  const { changed, immutable, agreed } = comparison;
  if (!m.live) return { action: 'create', reasons: [{ code: 'missing' }] };
  let action: Action = 'no-op';
  const reasons: Reason[] = [];
  if (m.adoptReason) reasons.push(m.adoptReason);
  if (m.renamedFrom !== undefined) reasons.push({ code: 'renamed', from: m.renamedFrom });
  if (immutable.length > 0 || renewal.replace) {
    action = 'replace';
    reasons.push(
      ...immutable.map(
        (f): Reason => ({
          code: 'immutable',
          field: f.name,
          ...(!f.immutable && f.immutablePart ? { part: f.immutablePart.name } : {}),
        }),
      ),
    );
    if (renewal.replace) reasons.push(renewal.replace);
  } else if (m.adoptReason) action = 'adopt';
  else if (changed.length > 0 || agreed.length > 0) action = 'patch';
  if (action === 'patch' || action === 'adopt') {
    // A rename says so once; its marker line is the rename.
    const shown = m.renamedFrom === undefined ? changed : changed.filter((name) => name !== 'marker');
    reasons.push(...shown.map((field): Reason => ({ code: 'changed', field })));
  }
  // The marker must learn what the file and the account now agree on, or a later edit of the file
  // back to the old value would read as a change made outside accord.
  if (action !== 'no-op') reasons.push(...agreed.map((field): Reason => ({ code: 'agreed', field })));
  return { action, reasons };
}

export function planEntry(ctx: KindContext, m: Matched): PlanChange {
  const { descriptor, owner } = ctx;
  const d = m.desired;
  const live = m.live;
  const comparison = compareEntry(ctx, m);
  const renewal = live ? (descriptor.renewal?.(d, live.object, ctx.now) ?? {}) : {};
  if (renewal.warning) ctx.warnings.push(renewal.warning);
  const { action, reasons } = decideAction(m, comparison, renewal);
  const { before, after } = comparison;
  const address = entryAddress(descriptor, d.key);
  const change = newChange(descriptor.kind, address, d.key, live ? live.id : null, action, before, after);
  change.reason_codes = reasons;
  const broken = action === 'create' ? ctx.brokenMarkers.get(d.key) : undefined;
  if (broken !== undefined) change.reason_codes.push({ code: 'marker_broken', id: broken });
  change.changed_fields = comparison.changed;
  change.drift = comparison.drift;
  change.depends_on = comparison.dependsOn;
  if (action === 'replace') {
    // The new object first: the old one stays until its successor exists (DESIGN §4).
    change.replace_order = 'create_before_delete';
    ctx.destroyed.push({ change, protect: live?.marker?.owner === owner && live.marker.protect });
  } else if (action === 'patch' || action === 'adopt') {
    // A PATCH keeps the fields a newer version wrote into this owner's marker (DESIGN §2); the plan
    // shows them, and src/plan/requests.ts restates them.
    const kept = live?.marker?.owner === owner ? live.marker.unknown : undefined;
    if (kept) after['marker_unknown'] = kept;
  }
  ctx.changes.push(change);
  if ((action === 'create' || action === 'replace') && !descriptor.slotLeft) {
    for (const p of slotHolderProblems(ctx.holders, d, live, after)) {
      if (p.unclaimed && ctx.reportHeldSlots)
        change.reason_codes.push({ code: 'slot_held', problem: p.problem });
      else ctx.errors.push(p.problem);
    }
  } else if (descriptor.slot) {
    // A POST or a PATCH into a slot objects can leave: ordered, or refused, once the kind's changes
    // are all known.
    const move = slotMove(ctx.holders, d, live, change);
    if (move) ctx.slotMoves.push(move);
  }
  if (live) planDuplicates(ctx, m, live);
  return change;
}

/** Deletes of the other objects under the entry's key (DESIGN §2 duplicates). */
function planDuplicates(ctx: KindContext, m: Matched, live: LiveResource): void {
  const { descriptor } = ctx;
  const key = m.desired.key;
  const { id } = live;
  const slot = slotOfLive(live);
  for (const dup of m.duplicates) {
    // A half-done move can leave this key on an object of a slot no entry wants (DESIGN §2 "Slots"):
    // that is not cleanup (counted, protected); only a same-slot duplicate is.
    const dupSlot = slotOfLive(dup);
    const why: Reason =
      dupSlot !== slot
        ? { code: 'slot_left', slot: String(dupSlot), key, kept: id }
        : { code: 'duplicate', kept: id, key, oldest: oldestLiveFirst(live, dup) < 0 };
    const protect = dup.marker?.protect ?? false;
    const gone = planDelete(ctx, `${entryAddress(descriptor, key)}#${dup.id}`, key, dup, [why], protect);
    gone.step = 'duplicate';
    gone.step_of = entryAddress(descriptor, key);
    // A second object under one key was made outside accord with a copy of the marker, or left by a
    // create whose answer was lost: nothing tells which, and either is the account's, not the file's.
    if (dupSlot === slot) markedOutside(descriptor, gone);
  }
}

export function planOrphans(ctx: KindContext, match: KindMatch): void {
  const seen = new Set<string>();
  for (const { live, marker } of match.orphans) {
    const base = entryAddress(ctx.descriptor, marker.key);
    const first = !seen.has(marker.key);
    seen.add(marker.key);
    const address = first ? base : `${base}#${live.id}`;
    const reasons: Reason[] = [{ code: first ? 'not_in_file' : 'duplicate_key' }];
    const change = planDelete(ctx, address, marker.key, live, reasons, marker.protect);
    if (first) continue;
    change.step = 'duplicate';
    change.step_of = base;
  }
}

function planDelete(
  ctx: KindContext,
  address: string,
  key: string,
  live: LiveResource,
  reasons: Reason[],
  protect = false,
): PlanChange {
  const { descriptor } = ctx;
  const before = { ...live.values, description: live.description };
  const change = newChange(descriptor.kind, address, key, live.id, 'delete', before, null);
  change.reason_codes = reasons;
  ctx.changes.push(change);
  ctx.destroyed.push({ change, protect });
  return change;
}

/**
 * A nested kind (a policy's rules) within the live objects its parents matched (DESIGN §2 "IP policies
 * and their rules"): a matched parent owns its whole set, so each live object under it is the entry
 * with its identity (patched or adopted as needed), or deleted as `not in the file`. An identity whose
 * immutable values changed (a rule's action) is deleted first, then created: the service holds one
 * object per identity. Objects under parents this owner does not manage are left as they are. Returns
 * the number of live objects under managed parents.
 */
export function planNested(
  ctx: KindContext,
  within: Nested<DesiredManaged>,
  parents: KindMatch,
  live: readonly LiveResource[],
): number {
  const { descriptor } = ctx;
  const byParent = new Map<string, LiveResource[]>();
  for (const obj of live) {
    const id = within.parentId(obj.values);
    const list = byParent.get(id);
    if (list) list.push(obj);
    else byParent.set(id, [obj]);
  }
  let owned = 0;
  for (const parent of parents.matched) {
    const present = new Map<string, LiveResource>();
    for (const obj of (parent.live && byParent.get(parent.live.id)) || []) {
      present.set(within.identity(obj.values), obj);
    }
    owned += present.size;
    for (const d of within.entries(parent.desired)) {
      const values = descriptor.normalizeDesired(d);
      const identity = within.identity(values);
      const obj = present.get(identity);
      present.delete(identity);
      planNestedEntry(ctx, { desired: d, values }, obj, `${within.section}.${parent.desired.key}`);
    }
    for (const [identity, obj] of present) planNestedLeftOver(ctx, within, identity, obj, parent);
  }
  return owned;
}

/** An entry of a nested kind against the live object of its identity, if any. */
function planNestedEntry(
  ctx: KindContext,
  wanted: { desired: DesiredManaged; values: Values },
  obj: LiveResource | undefined,
  parent: string,
): void {
  const { descriptor } = ctx;
  const d = wanted.desired;
  if (!obj) {
    planEntry(ctx, { ...wanted, duplicates: [] });
    return;
  }
  const immutable = changedImmutables(descriptor, wanted.values, obj);
  if (immutable.length > 0) {
    const address = entryAddress(descriptor, d.key);
    const gone = planDelete(ctx, `${address}#${obj.id}`, d.key, obj, [
      { code: 'flip_delete', fields: immutable, address },
    ]);
    const made = planEntry(ctx, { ...wanted, duplicates: [] });
    made.reason_codes = [{ code: 'flip_create', fields: immutable, id: obj.id }];
    made.depends_on.push(gone.address);
    gone.step = 'flip';
    gone.step_of = address;
    made.step = 'flip';
    return;
  }
  const { marker } = obj;
  const ours = marker?.owner === ctx.owner;
  planEntry(ctx, {
    ...wanted,
    live: obj,
    adoptReason: ours ? undefined : { code: 'adopt_nested', id: obj.id, parent },
    renamedFrom: ours && marker.key !== d.key ? marker.key : undefined,
    duplicates: [],
  });
}

/** A live object of a nested kind whose identity no entry of its parent has: deleted. */
function planNestedLeftOver(
  ctx: KindContext,
  within: Nested<DesiredManaged>,
  identity: string,
  obj: LiveResource,
  parent: Matched,
): void {
  const { descriptor } = ctx;
  const key = within.key(parent.desired.key, identity);
  const { marker } = obj;
  const parentMarker = parent.live?.marker;
  // This owner's marker names the object's own identity, under its parent's key now or as
  // accord last wrote it; one naming another (a copy of a sibling's metadata) was not accord's.
  const written = [key, within.key(parentMarker?.key ?? parent.desired.key, identity)];
  const ours = marker?.owner === ctx.owner && written.includes(marker.key);
  if (parentMarker?.owner !== ctx.owner || ours) {
    planDelete(ctx, entryAddress(descriptor, key), key, obj, [{ code: 'not_in_file' }]);
    return;
  }
  // Under a policy accord already manages, an object without this owner's marker for it was never
  // made by accord: it was added outside accord. That is drift: every field it shows is the account's.
  const copied = marker?.owner === ctx.owner ? { copy_of: marker.key } : {};
  const gone = planDelete(ctx, entryAddress(descriptor, key), key, obj, [
    { code: 'added_outside', ...copied },
  ]);
  markedOutside(descriptor, gone);
}

/** Every value a delete shows, references aside, as the account's doing: drift `outside`. */
function markedOutside(descriptor: ManagedDescriptor, gone: PlanChange): void {
  const shown = Object.keys(gone.before ?? {}).filter((f) => isShownValue(gone.before?.[f]));
  gone.drift = Object.fromEntries(
    shown
      .filter((f) => !descriptor.fields.find((x) => x.name === f)?.references)
      .map((f) => [f, 'outside' as const]),
  );
}

/** The immutable fields, references aside, whose live value is not the entry's. */
function changedImmutables(descriptor: ManagedDescriptor, want: Values, obj: LiveResource): string[] {
  const have = obj.values;
  return descriptor.fields
    .filter((f) => f.immutable && !f.references && !fieldEquals(f, have[f.name], want[f.name]))
    .map((f) => f.name);
}

/** A value a deleted object shows: not unset, not an empty description. */
function isShownValue(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}
