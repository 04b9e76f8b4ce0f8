// Planning one kind's entries (DESIGN §2-§4): each matched entry compared with its live object and
// turned into a change, the deletes of duplicates and orphans, nested kinds (a policy's rules) within
// their parent, and edge modules. src/plan/planner.ts runs these over every kind.

import type { DesiredManaged, DesiredModule } from '../config/model.js';
import {
  entryAddress,
  type ManagedDescriptor,
  type ModuleDescriptor,
  type Nested,
} from '../resources/index.js';
import { decodeMarker } from '../resources/marker.js';
import type { FieldSpec } from '../resources/types.js';
import { fieldEquals, type LiveObject, str } from '../resources/values.js';
import { attributeDrift, markerBrokenReason, unknownDrift } from './drift.js';
import { ADOPT_REASONS, type KindMatch, type Matched, oldestFirst } from './match.js';
import { unmarkedData } from './metadata.js';
import { fileName } from './names.js';
import type { References } from './references.js';
import { comparedFields, fingerprintFields, shownMarker } from './requests.js';
import type { Destroyed } from './safety.js';
import { type HolderContext, SLOT_HELD, slotHolderProblems, slotOfLive } from './slots.js';
import type { LiveState } from './state.js';
import type { Action, PlanChange } from './types.js';

export interface KindContext {
  descriptor: ManagedDescriptor;
  owner: string;
  now: Date;
  changes: PlanChange[];
  /** Live objects this plan destroys, with whether they carry this owner's protect flag. */
  destroyed: Destroyed[];
  warnings: string[];
  errors: string[];
  /** Who holds each slot of the kind, with the markers matching decoded. */
  holders: HolderContext;
  /** Keys that unmanaged objects still name in a marker accord cannot read, with their IDs. */
  brokenMarkers: ReadonlyMap<string, string>;
  /** Entries of the kinds planned before this one, for references by key. */
  references: References;
  /** PlanOptions.reportHeldSlots: a slot held by no entry's object is a reason, not an error. */
  reportHeldSlots?: boolean;
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

/** The entry's shown values against its live object's, field by field, with drift attributed. */
function compareEntry(ctx: KindContext, m: Matched): Comparison {
  const { descriptor, owner } = ctx;
  const d = m.desired;
  // Assigned onto the fresh normalized object: spreading 10,000 of them is measurably slower.
  const after: Record<string, unknown> = descriptor.normalizeDesired(d);
  const where = `${entryAddress(descriptor, d.key)} (${d.loc.file}:${d.loc.line}:${d.loc.col})`;
  const { dependsOn, problems } = ctx.references.resolve(descriptor.fields, after, where);
  ctx.errors.push(...problems);
  after['description'] = d.description;
  after['metadata'] = d.data;
  after['protect'] = d.protect;
  after['marker'] = shownMarker(owner, d.key);
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
  const before: Record<string, unknown> = descriptor.normalizeLive(live);
  before['description'] = str(live['description']);
  before['metadata'] = m.marker ? m.marker.data : unmarkedData(live['metadata']);
  before['protect'] = m.marker?.protect ?? false;
  before['marker'] = m.marker ? `${m.marker.owner}/${m.marker.key}` : null;
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
    applied: m.marker?.owner === owner ? m.marker.applied : undefined,
  });
  return {
    before,
    after,
    changed,
    immutable: differing.filter((f) => f.immutable),
    drift,
    agreed,
    dependsOn,
  };
}

/** The action a comparison calls for, and why. */
function decideAction(
  m: Matched,
  comparison: Comparison,
  renewal: { replace?: string },
): { action: Action; reasons: string[] } {
  const { changed, immutable, agreed } = comparison;
  if (!m.live) return { action: 'create', reasons: ['not in the account yet'] };
  let action: Action = 'no-op';
  const reasons: string[] = [];
  if (m.adoptReason) reasons.push(m.adoptReason);
  if (m.renamedFrom !== undefined) reasons.push(ADOPT_REASONS.renamed(m.renamedFrom));
  if (immutable.length > 0 || renewal.replace) {
    action = 'replace';
    reasons.push(...immutable.map((f) => `${fileName(f.name)} cannot be updated`));
    if (renewal.replace) reasons.push(renewal.replace);
  } else if (m.adoptReason) action = 'adopt';
  else if (changed.length > 0 || agreed.length > 0) action = 'patch';
  if (action === 'patch' || action === 'adopt') {
    // A rename says so once; its marker line is the rename.
    const shown = m.renamedFrom === undefined ? changed : changed.filter((name) => name !== 'marker');
    reasons.push(...shown.map((name) => `${fileName(name)} changed`));
  }
  // The marker must learn what the file and the account now agree on, or a later edit of the file
  // back to the old value would read as a change made outside accord.
  if (action !== 'no-op')
    reasons.push(...agreed.map((name) => `${fileName(name)} changed outside accord to the file's value`));
  return { action, reasons };
}

export function planEntry(ctx: KindContext, m: Matched): PlanChange {
  const { descriptor, owner } = ctx;
  const d = m.desired;
  const live = m.live;
  const comparison = compareEntry(ctx, m);
  const renewal = live ? (descriptor.renewal?.(d, live, ctx.now) ?? {}) : {};
  if (renewal.warning) ctx.warnings.push(renewal.warning);
  const { action, reasons } = decideAction(m, comparison, renewal);
  const { before, after } = comparison;
  const address = entryAddress(descriptor, d.key);
  const change = newChange(
    descriptor.kind,
    address,
    d.key,
    live ? str(live['id']) : null,
    action,
    before,
    after,
  );
  change.reasons = reasons;
  const broken = action === 'create' ? ctx.brokenMarkers.get(d.key) : undefined;
  if (broken !== undefined) change.reasons.push(markerBrokenReason(broken));
  change.changed_fields = comparison.changed;
  change.drift = comparison.drift;
  change.depends_on = comparison.dependsOn;
  if (action === 'replace') {
    // The new object first: the old one stays until its successor exists (DESIGN §4).
    change.replace_order = 'create_before_delete';
    ctx.destroyed.push({ change, protect: m.marker?.owner === owner && m.marker.protect });
  } else if (action === 'patch' || action === 'adopt') {
    // A PATCH keeps the fields a newer version wrote into this owner's marker (DESIGN §2); the plan
    // shows them, and src/plan/requests.ts restates them.
    const kept = m.marker?.owner === owner ? m.marker.unknown : undefined;
    if (kept) after['marker_unknown'] = kept;
  }
  ctx.changes.push(change);
  if (action === 'create' || action === 'replace') {
    for (const p of slotHolderProblems(ctx.holders, d, live, after)) {
      if (p.unclaimed && ctx.reportHeldSlots) change.reasons.push(`${SLOT_HELD}: ${p.message}`);
      else ctx.errors.push(p.message);
    }
  }
  if (live) planDuplicates(ctx, m, live);
  return change;
}

/** Deletes of the other objects under the entry's key (DESIGN §2 duplicates). */
function planDuplicates(ctx: KindContext, m: Matched, live: LiveObject): void {
  const { descriptor } = ctx;
  const key = m.desired.key;
  const id = str(live['id']);
  const slot = slotOfLive(descriptor, live);
  for (const dup of m.duplicates) {
    // A half-done move can leave this key on an object of a slot no entry wants (DESIGN §2 "Slots"):
    // that is not cleanup (counted, protected); only a same-slot duplicate is.
    const dupSlot = slotOfLive(descriptor, dup);
    const why =
      dupSlot !== slot
        ? `its ${dupSlot} is no longer in the file (key ${key} is now ${id})`
        : `duplicate of ${id} (key ${key}; ${oldestFirst(live, dup) < 0 ? 'the oldest' : 'the one that agrees with the file'} is kept)`;
    const protect = ctx.holders.markers.get(dup)?.protect ?? false;
    const gone = planDelete(
      ctx,
      `${entryAddress(descriptor, key)}#${str(dup['id'])}`,
      key,
      dup,
      [why],
      protect,
    );
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
    const address = first ? base : `${base}#${str(live['id'])}`;
    const reasons = first ? ['not in the file'] : ['not in the file (duplicate key)'];
    planDelete(ctx, address, marker.key, live, reasons, marker.protect);
  }
}

function planDelete(
  ctx: KindContext,
  address: string,
  key: string,
  live: LiveObject,
  reasons: string[],
  protect = false,
): PlanChange {
  const { descriptor } = ctx;
  const id = str(live['id']);
  const before = { ...descriptor.normalizeLive(live), description: str(live['description']) };
  const change = newChange(descriptor.kind, address, key, id, 'delete', before, null);
  change.reasons = reasons;
  ctx.changes.push(change);
  ctx.destroyed.push({ change, protect });
  return change;
}

export function planModule(
  descriptor: ModuleDescriptor,
  d: DesiredModule,
  liveModules: LiveState['modules'],
  references: References,
  errors: string[],
): PlanChange {
  const address = descriptor.address(d);
  const live = liveModules[address] ?? null;
  const before = live ? descriptor.normalizeLive(live) : null;
  const after = d.state === 'present' ? descriptor.normalizeDesired(d) : null;
  const where = `${address} (${d.loc.file}:${d.loc.line}:${d.loc.col})`;
  const resolved = after ? references.resolve(descriptor.fields, after, where) : undefined;
  errors.push(...(resolved?.problems ?? []));
  const change = newChange(
    descriptor.kind,
    address,
    descriptor.key(d),
    descriptor.id(d),
    'no-op',
    before,
    after,
  );
  change.depends_on = resolved?.dependsOn ?? [];
  if (after === null) {
    if (before !== null) {
      change.action = 'delete';
      change.reasons = ['set to "absent"'];
    }
    return change;
  }
  const changed = before
    ? descriptor.fields.filter((f) => !fieldEquals(f, before[f.name], after[f.name]))
    : [...descriptor.fields];
  if (before === null || changed.length > 0) {
    change.action = 'put';
    change.reasons = before === null ? ['not configured'] : changed.map((f) => `${f.name} changed`);
    change.changed_fields = changed.map((f) => f.name);
    // Edge modules carry no metadata, so no fingerprint: nothing tells who changed them.
    change.drift = unknownDrift(change.changed_fields);
  }
  return change;
}

export function newChange(
  kind: PlanChange['kind'],
  address: string,
  key: string,
  id: string | null,
  action: Action,
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): PlanChange {
  return {
    address,
    kind,
    key,
    id,
    action,
    reasons: [],
    before,
    after,
    changed_fields: [],
    drift: {},
    depends_on: [],
    requests: [],
  };
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
  live: readonly LiveObject[],
): number {
  const { descriptor } = ctx;
  const byParent = new Map<string, LiveObject[]>();
  for (const obj of live) {
    const id = within.parentId(obj);
    const list = byParent.get(id);
    if (list) list.push(obj);
    else byParent.set(id, [obj]);
  }
  let owned = 0;
  for (const parent of parents.matched) {
    const parentId = parent.live ? str(parent.live['id']) : undefined;
    const present = new Map<string, LiveObject>();
    for (const obj of (parentId && byParent.get(parentId)) || []) {
      present.set(within.identity(descriptor.normalizeLive(obj)), obj);
    }
    owned += present.size;
    for (const d of within.entries(parent.desired)) {
      const identity = within.identity(descriptor.normalizeDesired(d));
      const obj = present.get(identity);
      present.delete(identity);
      if (!obj) {
        planEntry(ctx, { desired: d, duplicates: [] });
        continue;
      }
      const id = str(obj['id']);
      const immutable = changedImmutables(descriptor, d, obj);
      if (immutable.length > 0) {
        const address = entryAddress(descriptor, d.key);
        const reason = `${immutable.map(fileName).join(', ')} cannot be updated`;
        const gone = planDelete(ctx, `${address}#${id}`, d.key, obj, [
          `${reason}: deleted, then created again as ${address}`,
        ]);
        const made = planEntry(ctx, { desired: d, duplicates: [] });
        made.reasons = [`${reason}: replaces ${id}, which is deleted first`];
        made.depends_on.push(gone.address);
        continue;
      }
      const marker = decodeMarker(obj['metadata']);
      const ours = marker?.owner === ctx.owner;
      planEntry(ctx, {
        desired: d,
        live: obj,
        marker,
        adoptReason: ours ? undefined : ADOPT_REASONS.nested(id, `${within.section}.${parent.desired.key}`),
        renamedFrom: ours && marker.key !== d.key ? marker.key : undefined,
        duplicates: [],
      });
    }
    for (const [identity, obj] of present) {
      const key = within.key(parent.desired.key, identity);
      const marker = decodeMarker(obj['metadata']);
      // This owner's marker names the object's own identity, under its parent's key now or as
      // accord last wrote it; one naming another (a copy of a sibling's metadata) was not accord's.
      const written = [key, within.key(parent.marker?.key ?? parent.desired.key, identity)];
      const ours = marker?.owner === ctx.owner && written.includes(marker.key);
      if (parent.marker?.owner !== ctx.owner || ours) {
        planDelete(ctx, entryAddress(descriptor, key), key, obj, ['not in the file']);
        continue;
      }
      // Under a policy accord already manages, an object without this owner's marker for it was never
      // made by accord: it was added outside accord. That is drift: every field it shows is the account's.
      const gone = planDelete(ctx, entryAddress(descriptor, key), key, obj, [
        marker?.owner === ctx.owner
          ? `not in the file: added outside accord (its marker is a copy of ${marker.key}'s)`
          : 'not in the file: added outside accord (it carries no marker of this owner)',
      ]);
      markedOutside(descriptor, gone);
    }
  }
  return owned;
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
function changedImmutables(descriptor: ManagedDescriptor, d: DesiredManaged, obj: LiveObject): string[] {
  const want = descriptor.normalizeDesired(d);
  const have = descriptor.normalizeLive(obj);
  return descriptor.fields
    .filter((f) => f.immutable && !f.references && !fieldEquals(f, have[f.name], want[f.name]))
    .map((f) => f.name);
}

/** A value a deleted object shows: not unset, not an empty description. */
function isShownValue(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}
