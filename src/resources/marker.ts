// The ownership marker accord writes into a managed resource's `metadata` (DESIGN §2):
// {"accord":{"owner":"platform","key":"office-dashboard","protect":true,"applied":"3..."},"data":{"team":"platform"}}
import { isRecord } from './values.js';

/** The service's limit on `metadata`, in UTF-8 bytes (SPEC: Limits). */
export const METADATA_MAX_BYTES = 4096;

/**
 * Marker fields this version does not know, as a newer version wrote them. They are kept on PATCH
 * so that an older accord sharing a pipeline with a newer one never erases what the newer one wrote.
 */
export interface UnknownMarkerFields {
  /** Unknown fields inside `accord`. */
  accord: Record<string, unknown>;
  /** Unknown fields beside `accord` and `data`. */
  top: Record<string, unknown>;
}

/**
 * The longest `applied` fingerprint this version writes (src/plan/drift.ts: a version character, two
 * for the marker and six for each of at most eight compared fields). Budgets reserve it for every
 * entry, so that `,"applied":"..."` takes at most 64 of the 4096 bytes (DESIGN §2: at most 64).
 */
export const APPLIED_MAX_CHARS = 51;

export interface Marker {
  owner: string;
  key: string;
  protect: boolean;
  /** The fingerprint of the values accord last wrote (DESIGN §4 "Drift"); undefined in older markers. */
  applied?: string;
  /** The entry's own metadata; undefined when `hasData` is false. */
  data: unknown;
  hasData: boolean;
  /** Fields a newer version wrote; undefined when there are none. */
  unknown?: UnknownMarkerFields;
}

const KNOWN_TOP = new Set(['accord', 'data']);
const KNOWN_ACCORD = new Set(['owner', 'key', 'protect', 'applied']);

export interface MarkerExtras {
  /** The fingerprint of the values this write leaves in the object. */
  applied?: string;
  /** Fields a newer version wrote, kept from the live marker on PATCH. */
  unknown?: UnknownMarkerFields;
}

/**
 * Compact JSON; `protect` only when true, `applied` and `data` only when defined. Unknown fields
 * follow the known ones; a known name among them is ignored.
 */
export function encodeMarker(
  owner: string,
  key: string,
  protect: boolean,
  data?: unknown,
  { applied, unknown }: MarkerExtras = {},
): string {
  const accord: Record<string, unknown> = { owner, key };
  if (protect) accord['protect'] = true;
  if (applied !== undefined) accord['applied'] = applied;
  const marker: Record<string, unknown> = { accord };
  if (data !== undefined) marker['data'] = data;
  if (unknown) {
    copyUnknown(unknown.accord, accord, KNOWN_ACCORD);
    copyUnknown(unknown.top, marker, KNOWN_TOP);
  }
  return JSON.stringify(marker);
}

/** Bytes left under the service's metadata limit once `marker` is written; negative when it does not fit. */
export function markerBudgetLeft(marker: string): number {
  return METADATA_MAX_BYTES - Buffer.byteLength(marker, 'utf8');
}

/** Bytes an entry's marker leaves free, with room for the longest fingerprint accord writes into it. */
export function entryBudgetLeft(owner: string, key: string, protect: boolean, data?: unknown): number {
  return markerBudgetLeft(
    encodeMarker(owner, key, protect, data, { applied: 'x'.repeat(APPLIED_MAX_CHARS) }),
  );
}

/**
 * Reads a live resource's metadata (as the API gave it: what is not a string is no marker). Anything
 * that is not a marker (not a JSON object, no `accord` object, a known field of the wrong type) gives
 * undefined: the resource is unmanaged. Fields this
 * version does not know do not make it unmanaged (DESIGN §2): they are returned in `unknown`.
 */
export function decodeMarker(metadata: unknown): Marker | undefined {
  // Most unmanaged metadata is not JSON at all: skip the parse unless it can be an object.
  if (typeof metadata !== 'string' || metadata[firstNonSpace(metadata)] !== '{') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(metadata);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  const accord = parsed['accord'];
  if (!isRecord(accord)) return undefined;
  const { owner, key, protect, applied } = accord;
  if (typeof owner !== 'string' || owner === '' || typeof key !== 'string' || key === '') return undefined;
  if (protect !== undefined && typeof protect !== 'boolean') return undefined;
  const hasData = Object.hasOwn(parsed, 'data');
  const marker: Marker = {
    owner,
    key,
    protect: protect === true,
    data: hasData ? parsed['data'] : undefined,
    hasData,
  };
  // A fingerprint of another shape is not one this version can read: the marker holds none for it.
  if (typeof applied === 'string') marker.applied = applied;
  if (hasUnknown(accord, KNOWN_ACCORD) || hasUnknown(parsed, KNOWN_TOP))
    marker.unknown = { accord: pickUnknown(accord, KNOWN_ACCORD), top: pickUnknown(parsed, KNOWN_TOP) };
  return marker;
}

/** Whether `from` (parsed JSON: own keys only) has a key outside `known`. */
function hasUnknown(from: Record<string, unknown>, known: ReadonlySet<string>): boolean {
  for (const k in from) if (!known.has(k)) return true;
  return false;
}

/** Index of the first character that is not JSON whitespace (space, tab, line feed, carriage return). */
function firstNonSpace(text: string): number {
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
}

// Object.fromEntries and defineProperty create own properties, so a "__proto__" field a newer
// version wrote is kept as data and never touches a prototype.
function pickUnknown(from: Record<string, unknown>, known: ReadonlySet<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(from).filter(([k]) => !known.has(k)));
}

function copyUnknown(from: Record<string, unknown>, to: Record<string, unknown>, known: ReadonlySet<string>) {
  for (const [k, v] of Object.entries(from)) {
    if (!known.has(k))
      Object.defineProperty(to, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
}
