// live_digest: the fingerprint of a live object that lets `apply FILE` refuse a stale plan (DESIGN §4).
import { createHash } from 'node:crypto';
import { descriptorFor, isManaged } from '../resources/index.js';
import type { PlanChange } from './types.js';

/** JSON with object keys sorted at every level, so equal objects give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** sha256 hex of the canonical JSON of a live object as the API returned it. */
export function liveDigest(live: unknown): string {
  return createHash('sha256').update(canonicalJson(live)).digest('hex');
}

/**
 * Where the applier GETs the live object a change acts on, to compare it with `live_digest` before
 * acting (a plan is stale when they differ). Undefined for a create, which has no live object.
 */
export function livePath(change: Pick<PlanChange, 'kind' | 'id' | 'address'>): string | undefined {
  const descriptor = descriptorFor(change.kind);
  if (isManaged(descriptor)) return change.id === null ? undefined : descriptor.itemPath(change.id);
  // A module lives at the path of the edge (and route) its address names.
  const identity = descriptor.identify(change.address);
  return identity ? descriptor.path(identity) : undefined;
}
