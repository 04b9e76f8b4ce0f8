// Helpers that turn API JSON (unknown until checked) and desired values into comparable values (DESIGN §3).

export type LiveObject = Record<string, unknown>;

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/**
 * A list as a set: sorted, unique strings (the order and repeats of a list in the file or from the API do
 * not matter). Anything but a list is the empty set; a file that failed its schema may give one.
 */
export function stringSet(values: unknown): string[] {
  if (!Array.isArray(values)) return [];
  const set = new Set<string>();
  for (const v of values) set.add(typeof v === 'string' ? v : String(v));
  return [...set].sort();
}

/** IDs of a list of Refs (`[{id, uri}]`) as a set. */
export function refIds(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  return stringSet(v.map((r) => (isRecord(r) ? str(r['id']) : '')).filter((id) => id !== ''));
}

/** A copy of an array value; other values as they are (a body then carries what the plan shows). */
export function list(v: unknown): unknown {
  return Array.isArray(v) ? [...v] : v;
}

export function stringList(v: unknown): string[] {
  return Array.isArray(v) ? stringSet(v.filter((x): x is string => typeof x === 'string')) : [];
}

export const DAY_MS = 86_400_000;

/** A timestamp as an ISO instant (what toISOString gives), or undefined when it names no point in time. */
export function parseInstant(text: string): string | undefined {
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A live timestamp as an ISO instant, or the raw text when it does not parse (so it still compares). */
export function instant(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  if (ISO_INSTANT.test(v)) return v; // already what toISOString gives: skip the parse
  return parseInstant(v) ?? v;
}

/** `algorithm base64`: an OpenSSH public key without its comment. */
export function canonicalPublicKey(v: unknown): string {
  const [algorithm = '', blob = ''] = str(v).trim().split(/\s+/);
  return `${algorithm} ${blob}`;
}

/**
 * Structural equality of JSON values; object key order and members set to undefined do not matter.
 * Written out rather than taken from fast-deep-equal, which calls an object's own `toString` or `valueOf`
 * member: user metadata such as `{toString: 1}` would make it throw (test/resources/values.test.ts).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => jsonEqual(a[k], b[k]));
  }
  return false;
}
