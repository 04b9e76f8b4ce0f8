// The ownership marker accord writes into a managed resource's `metadata` (DESIGN §2):
// {"accord":{"owner":"platform","key":"office-dashboard","protect":true},"data":{...}}

export interface Marker {
  owner: string;
  key: string;
  /** lifecycle.prevent_destroy; written only when true. */
  protect: boolean;
  /** The entry's own metadata; omitted when unset. */
  data?: unknown;
}

/** Compact JSON, `protect` only when true and `data` only when set. */
export function encodeMarker(marker: Marker): string {
  const accord: Record<string, unknown> = { owner: marker.owner, key: marker.key };
  if (marker.protect) accord['protect'] = true;
  const out: Record<string, unknown> = { accord };
  if (marker.data !== undefined) out['data'] = marker.data;
  return JSON.stringify(out);
}

/** The marker in a live `metadata` string, or undefined when it holds none (an unmanaged resource). */
export function decodeMarker(metadata: unknown): Marker | undefined {
  if (typeof metadata !== 'string' || !metadata.startsWith('{')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(metadata);
  } catch {
    return undefined;
  }
  if (!isObject(parsed) || !isObject(parsed['accord'])) return undefined;
  const { owner, key, protect } = parsed['accord'];
  if (typeof owner !== 'string' || typeof key !== 'string') return undefined;
  if (protect !== undefined && typeof protect !== 'boolean') return undefined;
  const marker: Marker = { owner, key, protect: protect === true };
  if ('data' in parsed) marker.data = parsed['data'];
  return marker;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
