// A change's requests as a pure function of what the plan shows: the planner builds every request
// here, from the change's kind, action, id, address, `after` and changed fields, with the plan's owner
// and `now`.

import {
  descriptorFor,
  isManaged,
  type ManagedDescriptor,
  type ModuleDescriptor,
} from '../resources/index.js';
import { encodeMarker, type UnknownMarkerFields } from '../resources/marker.js';
import type { FieldSpec, PlanValues } from '../resources/types.js';
import { isRecord, jsonTextEqual } from '../resources/values.js';
import { fingerprint, fingerprintedFields } from './drift.js';
import { fillKnownAfterApply, holdsKnownAfterApply } from './references.js';
import type { PlanChange, PlannedRequest } from './types.js';

/** What a change's requests depend on: the change as shown, and its plan's owner and `created_at`. */
export type ShownChange = Pick<
  PlanChange,
  | 'address'
  | 'kind'
  | 'key'
  | 'id'
  | 'action'
  | 'after'
  | 'changed_fields'
  | 'replace_order'
  | 'step'
  | 'step_of'
>;

export interface PlanContext {
  owner: string;
  /** The plan's `now`: a body that depends on time (`valid_for`) is computed from it. */
  createdAt: Date;
}

/** A change from which no requests follow: the planner never makes one. */
class UnderivableChangeError extends Error {
  override name = 'UnderivableChangeError';
}

/** Shared fields of every managed kind, after the kind's own. */
const SHARED_FIELDS: readonly FieldSpec[] = [
  { name: 'description', immutable: false, request: (v) => ['description', v] },
  { name: 'metadata', immutable: false, equals: jsonTextEqual },
  { name: 'protect', immutable: false },
  { name: 'marker', immutable: false },
];
/** Fields written through the marker: a PATCH restates it whole. */
const MARKER_FIELDS = new Set(['metadata', 'protect', 'marker']);
const COMPARED = new Map<ManagedDescriptor, readonly FieldSpec[]>();
const FINGERPRINTED = new Map<ManagedDescriptor, readonly FieldSpec[]>();

/** The kind's own fields, then the shared ones: what the planner compares and a PATCH may carry. */
export function comparedFields(descriptor: ManagedDescriptor): readonly FieldSpec[] {
  let fields = COMPARED.get(descriptor);
  if (!fields) {
    fields = [...descriptor.fields, ...SHARED_FIELDS];
    COMPARED.set(descriptor, fields);
  }
  return fields;
}

/** The fields the marker's `applied` fingerprint covers, in its order (src/plan/drift.ts). */
export function fingerprintFields(descriptor: ManagedDescriptor): readonly FieldSpec[] {
  let fields = FINGERPRINTED.get(descriptor);
  if (!fields) {
    fields = fingerprintedFields(comparedFields(descriptor));
    FINGERPRINTED.set(descriptor, fields);
  }
  return fields;
}

/** The `marker` value a plan shows in `after`: `owner/key`. */
export function shownMarker(owner: string, key: string): string {
  return `${owner}/${key}`;
}

/** The requests of a change, in the order the applier sends them (a replace's in `replace_order`). */
export function changeRequests(change: ShownChange, plan: PlanContext): PlannedRequest[] {
  if (change.action === 'no-op') return [];
  const descriptor = descriptorFor(change.kind);
  return isManaged(descriptor)
    ? managedRequests(descriptor, change, plan)
    : moduleRequests(descriptor, change);
}

function managedRequests(
  descriptor: ManagedDescriptor,
  change: ShownChange,
  plan: PlanContext,
): PlannedRequest[] {
  const itemPath = () => descriptor.itemPath(needId(change));
  const del = (): PlannedRequest => ({ method: 'DELETE', path: itemPath() });
  switch (change.action) {
    case 'delete':
      return [del()];
    case 'create':
      if (change.id !== null) throw new UnderivableChangeError('a create has no id');
      return [post(descriptor, change, needAfter(change), plan)];
    case 'replace': {
      const post_ = post(descriptor, change, needAfter(change), plan);
      // The old object stays until its successor exists: never a window (DESIGN §2 "Slots").
      if (change.replace_order === 'create_before_delete') return [post_, del()];
      throw new UnderivableChangeError('a replace is create_before_delete');
    }
    case 'patch':
    case 'adopt': {
      const after = needAfter(change);
      const changed = new Set(change.changed_fields);
      const body: Record<string, unknown> = {};
      for (const f of comparedFields(descriptor)) {
        if (!changed.has(f.name) || MARKER_FIELDS.has(f.name) || !f.request) continue;
        const [field, value] = f.request(after[f.name]);
        body[field] = value;
      }
      // Always restate the marker: cheap, and keeps ownership explicit.
      body['metadata'] = marker(descriptor, change, after, plan, keptFields(after['marker_unknown']));
      return [{ method: 'PATCH', path: itemPath(), body }];
    }
    default:
      throw new UnderivableChangeError(`${change.action} is not an action on ${descriptor.section}`);
  }
}

function post(
  descriptor: ManagedDescriptor,
  change: ShownChange,
  after: PlanValues,
  plan: PlanContext,
): PlannedRequest {
  const description = after['description'];
  return {
    method: 'POST',
    path: descriptor.collectionPath,
    body: {
      ...descriptor.createBody(after, plan.createdAt),
      ...(description !== '' && description !== undefined ? { description } : {}),
      metadata: marker(descriptor, change, after, plan),
    },
  };
}

/**
 * A POST makes a new object, whose marker has no fields from a newer version to keep. Every write
 * records the fingerprint of the values it leaves in the object (DESIGN §4 "Drift").
 */
function marker(
  descriptor: ManagedDescriptor,
  change: ShownChange,
  after: PlanValues,
  plan: PlanContext,
  kept?: UnknownMarkerFields,
): string {
  const applied = fingerprint(fingerprintFields(descriptor), after, { owner: plan.owner, key: change.key });
  return encodeMarker(plan.owner, change.key, after['protect'] === true, after['metadata'], {
    applied,
    unknown: kept,
  });
}

/**
 * `request` (a change's planned request, its IDs known after apply already filled in by
 * `idOf`) with its marker's fingerprint taken of the values it writes, those IDs included. The plan
 * made the fingerprint before the IDs were known, and an unknown ID is no value to attribute by: a
 * restriction made with its policy in one apply would otherwise never show its policies changed
 * outside accord (DESIGN §4 "Drift").
 */
export function withFingerprintAsSent(
  request: PlannedRequest,
  change: ShownChange,
  owner: string,
  idOf: (address: string) => string | undefined,
): PlannedRequest {
  const descriptor = descriptorFor(change.kind);
  const metadata = request.body?.['metadata'];
  const after = change.after;
  if (!isManaged(descriptor) || typeof metadata !== 'string' || !isRecord(after)) return request;
  const fields = fingerprintFields(descriptor);
  if (!fields.some((f) => holdsKnownAfterApply(after[f.name]))) return request;
  const marker = { owner, key: change.key };
  const planned = `"applied":${JSON.stringify(fingerprint(fields, after, marker))}`;
  // The marker is this version's compact JSON, `applied` right after owner, key and protect: its first
  // `"applied":"..."` is the fingerprint (a quote inside a string value is escaped).
  if (!metadata.includes(planned)) return request;
  const written = fingerprint(fields, asWritten(fields, after, idOf), marker);
  const body = {
    ...request.body,
    metadata: metadata.replace(planned, `"applied":${JSON.stringify(written)}`),
  };
  return { ...request, body };
}

/**
 * `after` with its IDs known after apply filled in, each list of references a sorted set again (as the
 * planner resolves one, and as the account's is read): the values as the planner will compare them.
 */
function asWritten(
  fields: readonly FieldSpec[],
  after: PlanValues,
  idOf: (address: string) => string | undefined,
): PlanValues {
  const filled = fillKnownAfterApply(after, idOf) as Record<string, unknown>;
  for (const f of fields) {
    const value = filled[f.name];
    if (f.references && Array.isArray(value)) filled[f.name] = [...new Set(value.map(String))].sort();
    if (f.referencesWithin) filled[f.name] = f.referencesWithin.map(value, (ref) => ref);
  }
  return filled as PlanValues;
}

/** `after.marker_unknown`: what a newer version wrote into this owner's marker, kept on PATCH. */
function keptFields(shown: unknown): UnknownMarkerFields | undefined {
  if (shown === undefined) return undefined;
  if (!isRecord(shown) || !isRecord(shown['accord']) || !isRecord(shown['top'])) {
    throw new UnderivableChangeError('after.marker_unknown is not {accord, top}');
  }
  return { accord: shown['accord'], top: shown['top'] };
}

function moduleRequests(descriptor: ModuleDescriptor, change: ShownChange): PlannedRequest[] {
  // The path comes from the address the plan shows, never from a path in the file.
  const identity = descriptor.identify(moduleAddress(change));
  if (!identity) throw new UnderivableChangeError(`the address does not name a ${change.kind} module`);
  const path = descriptor.path(identity);
  switch (change.action) {
    case 'put':
      return [{ method: 'PUT', path, body: descriptor.putBody(needAfter(change)) }];
    case 'delete':
      return [{ method: 'DELETE', path }];
    default:
      throw new UnderivableChangeError(`${change.action} is not an action on an edge module`);
  }
}

/** The module's own address: a union step's is the change's it is a step of (src/traffic/order.ts). */
function moduleAddress(change: ShownChange): string {
  return change.step_of ?? change.address;
}

function needId(change: ShownChange): string {
  if (change.id === null) throw new UnderivableChangeError(`a ${change.action} needs an id`);
  return change.id;
}

function needAfter(change: ShownChange): PlanValues {
  if (!isRecord(change.after)) throw new UnderivableChangeError(`a ${change.action} needs after values`);
  return change.after;
}
