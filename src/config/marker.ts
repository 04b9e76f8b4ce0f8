// The ownership marker accord writes into a managed resource's `metadata` (DESIGN §2):
// {"accord":{"owner":"platform","key":"office-dashboard","protect":true},"data":{"team":"platform"}}

/** The service's limit on `metadata`, in UTF-8 bytes (SPEC: Limits). */
export const METADATA_MAX_BYTES = 4096;

export interface Marker {
  owner: string;
  key: string;
  protect: boolean;
  /** The entry's own metadata; undefined when `hasData` is false. */
  data: unknown;
  hasData: boolean;
}

/** Compact JSON; `protect` only when true, `data` only when defined. */
export function encodeMarker(owner: string, key: string, protect: boolean, data?: unknown): string {
  const accord: { owner: string; key: string; protect?: true } = { owner, key };
  if (protect) accord.protect = true;
  return JSON.stringify(data === undefined ? { accord } : { accord, data });
}

/** Bytes left under the service's metadata limit once `marker` is written; negative when it does not fit. */
export function markerBudgetLeft(marker: string): number {
  return METADATA_MAX_BYTES - Buffer.byteLength(marker, 'utf8');
}

/**
 * Reads a live resource's metadata. Anything that is not exactly a marker (not JSON, other top-level
 * fields, wrong types) gives undefined: the resource is unmanaged.
 */
export function decodeMarker(metadata: string | undefined): Marker | undefined {
  if (metadata === undefined || metadata === '' || metadata[0] !== '{') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(metadata);
  } catch {
    return undefined;
  }
  if (!isPlainObject(parsed)) return undefined;
  if (Object.keys(parsed).some((k) => k !== 'accord' && k !== 'data')) return undefined;
  const accord = parsed['accord'];
  if (!isPlainObject(accord)) return undefined;
  if (Object.keys(accord).some((k) => k !== 'owner' && k !== 'key' && k !== 'protect')) return undefined;
  const { owner, key, protect } = accord;
  if (typeof owner !== 'string' || owner === '' || typeof key !== 'string' || key === '') return undefined;
  if (protect !== undefined && typeof protect !== 'boolean') return undefined;
  const hasData = Object.hasOwn(parsed, 'data');
  return { owner, key, protect: protect === true, data: hasData ? parsed['data'] : undefined, hasData };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
