// The pure planner (DESIGN §4): plan(desired, live, now, options) -> Plan. No I/O, no clock of its own.
import type { DesiredModule, DesiredState } from '../config/model.js';
import { AccordError } from '../errors.js';
import {
  desiredOf,
  type ManagedDescriptor,
  type ModuleDescriptor,
  managedDescriptors,
  moduleDescriptors,
} from '../resources/index.js';
import type { FieldSpec } from '../resources/types.js';
import { jsonEqual, type LiveObject, str } from '../resources/values.js';
import { attributeDrift, brokenMarkerKeys, markerBrokenReason, unknownDrift } from './drift.js';
import { ADOPT_REASONS, type KindMatch, type Matched, matchLiveToDesired, oldestFirst } from './match.js';
import { unmarkedData } from './metadata.js';
import { fileName } from './names.js';
import { changeRequests, comparedFields, fingerprintFields, shownMarker } from './requests.js';
import { assessSafety, type Destroyed } from './safety.js';
import { type Selection, selectChanges } from './select.js';
import { type HolderContext, isCleanup, keptKeys, slotHolderProblems, slotOf, slotOfLive } from './slots.js';
import type { LiveState, PlanOptions } from './state.js';
import { type Action, PLAN_FORMAT_VERSION, type Plan, type PlanChange, type PlanSummary } from './types.js';

export class PlanError extends AccordError {
  override name = 'PlanError';
  static override readonly code = 'ACCORD_PLAN';
  constructor(readonly problems: string[]) {
    super(`cannot plan:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

interface KindContext {
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
}

export function plan(desired: DesiredState, live: LiveState, now: Date, options: PlanOptions): Plan {
  const changes: PlanChange[] = [];
  const destroyed: Destroyed[] = [];
  const warnings: string[] = [];
  const errors: string[] = [];
  let unmanaged = 0;
  let otherOwners = 0;
  let managed = 0;

  for (const descriptor of managedDescriptors) {
    const liveObjects = live.managed[descriptor.kind] ?? [];
    const match = matchLiveToDesired(
      descriptor,
      desiredOf(descriptor, desired),
      liveObjects,
      desired.owner,
      options.allowTakeover ?? false,
    );
    errors.push(...match.errors);
    warnings.push(...match.warnings);
    unmanaged += match.unmanaged;
    otherOwners += match.otherOwners;
    managed += match.owned + match.matched.filter((m) => m.live && m.marker?.owner !== desired.owner).length;
    const ctx: KindContext = {
      descriptor,
      owner: desired.owner,
      now,
      changes,
      destroyed,
      warnings,
      errors,
      holders: {
        descriptor,
        slots: match.slots,
        markers: match.markers,
        entryOf: new Map(match.matched.flatMap((m) => (m.live ? [[m.live, m.desired] as const] : []))),
        owner: desired.owner,
      },
      brokenMarkers: brokenMarkerKeys(match.markers, desired.owner),
    };
    for (const m of match.matched) planEntry(ctx, m);
    planOrphans(ctx, match);
    for (const d of desiredOf(descriptor, desired)) warnings.push(...(descriptor.warnings?.(d, now) ?? []));
  }
  noteSwaps(changes);
  for (const descriptor of moduleDescriptors) {
    for (const d of desiredOf(descriptor, desired)) changes.push(planModule(descriptor, d, live.modules));
  }
  if (errors.length > 0) throw new PlanError(errors);

  const context = { owner: desired.owner, createdAt: now };
  for (const c of changes) c.requests = changeRequests(c, context);
  changes.sort(byKindThenAddress);
  const part = options.selection ? selectPart(changes, destroyed, warnings, options.selection) : undefined;
  const kept = part?.changes ?? changes;
  // Duplicates are cleanup, not destruction (DESIGN §2): they count toward no threshold or protect.
  const stays = keptKeys(changes, (c) => slotOf(c.kind, c.after));
  const destroying = (part?.destroyed ?? destroyed).filter(
    (d) => !isCleanup(d.change, stays, slotOf(d.change.kind, d.change.before)),
  );
  const safety = assessSafety(destroying, managed, options);
  const summary = summarizePlan(kept, unmanaged, otherOwners);
  return {
    format_version: PLAN_FORMAT_VERSION,
    tool_version: options.toolVersion,
    api_url: options.apiUrl,
    owner: desired.owner,
    created_at: now.toISOString(),
    files: options.files ?? [desired.file],
    config_digest: desired.digest,
    safe: safety.reasons.length === 0,
    unsafe_reasons: safety.reasons,
    safety: safety.safety,
    summary,
    changes: kept,
    warnings: [...(part?.warnings ?? warnings), ...safety.warnings],
    ...(part ? { selection: part.record } : {}),
  };
}

/**
 * --target/--exclude, after matching and ordering saw the whole account. The safety verdict is taken
 * on what this plan destroys (a protected resource left out does not refuse it), against every managed
 * resource; warnings about a change left out go with it.
 */
function selectPart(
  changes: readonly PlanChange[],
  destroyed: readonly Destroyed[],
  warnings: readonly string[],
  selection: Selection,
) {
  const { kept, leftOut, record } = selectChanges(changes, selection);
  const keptSet = new Set(kept);
  const leftOutAddresses = new Set(leftOut.map((c) => c.address));
  return {
    changes: kept,
    destroyed: destroyed.filter((d) => keptSet.has(d.change)),
    // Warnings about one change start with its address: `ip_restrictions.x: ...`.
    warnings: warnings.filter((w) => !leftOutAddresses.has(w.slice(0, w.indexOf(': ')))),
    record,
  };
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
}

/** The entry's shown values against its live object's, field by field, with drift attributed. */
function compareEntry(descriptor: ManagedDescriptor, owner: string, m: Matched): Comparison {
  const d = m.desired;
  // Assigned onto the fresh normalized object: spreading 10,000 of them is measurably slower.
  const after: Record<string, unknown> = descriptor.normalizeDesired(d);
  after['description'] = d.description;
  after['metadata'] = d.data;
  after['protect'] = d.protect;
  after['marker'] = shownMarker(owner, d.key);
  const live = m.live;
  if (!live) {
    const changed = Object.keys(after).filter((k) => after[k] !== undefined);
    // Missing from the account: a new entry, or an object deleted outside accord; nothing tells which.
    return { before: null, after, changed, immutable: [], drift: unknownDrift(changed), agreed: [] };
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
    if (!(f.equals ? f.equals(have, want) : jsonEqual(have, want))) differing.push(f);
  }
  const changed = differing.map((f) => f.name);
  const { drift, agreed } = attributeDrift({
    fields: fingerprintFields(descriptor),
    before,
    after,
    changed,
    applied: m.marker?.owner === owner ? m.marker.applied : undefined,
  });
  return { before, after, changed, immutable: differing.filter((f) => f.immutable), drift, agreed };
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

function planEntry(ctx: KindContext, m: Matched): void {
  const { descriptor, owner } = ctx;
  const d = m.desired;
  const live = m.live;
  const comparison = compareEntry(descriptor, owner, m);
  const renewal = live ? (descriptor.renewal?.(d, live, ctx.now) ?? {}) : {};
  if (renewal.warning) ctx.warnings.push(renewal.warning);
  const { action, reasons } = decideAction(m, comparison, renewal);
  const { before, after } = comparison;
  const address = `${descriptor.section}.${d.key}`;
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
    ctx.errors.push(...slotHolderProblems(ctx.holders, d, live, after));
  }
  if (live) planDuplicates(ctx, m, live);
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
    planDelete(ctx, `${descriptor.section}.${key}#${str(dup['id'])}`, key, dup, [why], protect);
  }
}

/**
 * Two entries of a kind with a slot that each take the other's object are a swap (DESIGN §2 "Slots"):
 * each change says so, with what they swap (`types swapped with vpn`), beside its rename.
 */
function noteSwaps(changes: PlanChange[]): void {
  const renamedFrom = new Map<string, string>();
  const id = (kind: string, key: string) => `${kind}\u0000${key}`;
  const prefix = ADOPT_REASONS.renamed('');
  for (const c of changes) {
    const r = c.reasons.find((x) => x.startsWith(prefix));
    if (r !== undefined) renamedFrom.set(id(c.kind, c.key), r.slice(prefix.length));
  }
  for (const c of changes) {
    const from = renamedFrom.get(id(c.kind, c.key));
    if (from === undefined || renamedFrom.get(id(c.kind, from)) !== c.key) continue;
    const descriptor = managedDescriptors.find((d) => d.kind === c.kind);
    if (!descriptor?.slot) continue;
    const swapped = descriptor.fields.filter((f) => f.immutable).map((f) => `${fileName(f.name)}s`);
    c.reasons.push(`${swapped.join(' and ')} swapped with ${from}`);
  }
}

function planOrphans(ctx: KindContext, match: KindMatch): void {
  const seen = new Set<string>();
  for (const { live, marker } of match.orphans) {
    const base = `${ctx.descriptor.section}.${marker.key}`;
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
): void {
  const { descriptor } = ctx;
  const id = str(live['id']);
  const before = { ...descriptor.normalizeLive(live), description: str(live['description']) };
  const change = newChange(descriptor.kind, address, key, id, 'delete', before, null);
  change.reasons = reasons;
  ctx.changes.push(change);
  ctx.destroyed.push({ change, protect });
}

function planModule(
  descriptor: ModuleDescriptor,
  d: DesiredModule,
  liveModules: LiveState['modules'],
): PlanChange {
  const address = descriptor.address(d);
  const live = liveModules[address] ?? null;
  const before = live ? descriptor.normalizeLive(live) : null;
  const after = d.state === 'present' ? descriptor.normalizeDesired(d) : null;
  const change = newChange(
    descriptor.kind,
    address,
    descriptor.key(d),
    descriptor.id(d),
    'no-op',
    before,
    after,
  );
  if (after === null) {
    if (before !== null) {
      change.action = 'delete';
      change.reasons = ['set to "absent"'];
    }
    return change;
  }
  const changed = before
    ? descriptor.fields.filter((f) => !(f.equals ?? jsonEqual)(before[f.name], after[f.name]))
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

const KIND_ORDER: readonly string[] = [...managedDescriptors, ...moduleDescriptors].map((d) => d.kind);

/** Reproducible plans: kinds in descriptor order, then addresses. */
function byKindThenAddress(a: PlanChange, b: PlanChange): number {
  const k = KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind);
  if (k !== 0) return k;
  return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
}

function newChange(
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

/** Counts the changes by action, with the numbers of unmanaged and other owners' objects left alone. */
export function summarizePlan(
  changes: readonly PlanChange[],
  unmanaged: number,
  otherOwners: number,
): PlanSummary {
  const s: PlanSummary = {
    create: 0,
    patch: 0,
    put: 0,
    replace: 0,
    delete: 0,
    adopt: 0,
    no_op: 0,
    unmanaged,
    other_owners: otherOwners,
  };
  for (const c of changes) s[c.action === 'no-op' ? 'no_op' : c.action]++;
  return s;
}
