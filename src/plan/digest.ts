// live_digest: the fingerprint of a live object that lets `apply FILE` refuse a stale plan (DESIGN §4).
import { createHash } from 'node:crypto';

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
