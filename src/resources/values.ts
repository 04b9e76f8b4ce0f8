// Helpers that turn API JSON (unknown until checked) and desired values into comparable values (DESIGN §3).
import { createRequire } from 'node:module';
import { configure } from 'safe-stable-stringify';

// CommonJS, `module.exports = equal`, typed with `export =`: under NodeNext without esModuleInterop only
// require() gives it its type.
const equal = createRequire(import.meta.url)('fast-deep-equal') as (a: unknown, b: unknown) => boolean;

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
  const sorted = values.map((v) => (typeof v === 'string' ? v : String(v))).sort();
  // Repeats are neighbours once sorted: kept once, in place (most lists hold one or two items, for
  // which a Set would cost more than the rest).
  let kept = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (kept === 0 || sorted[i] !== sorted[kept - 1]) sorted[kept++] = sorted[i]!;
  }
  sorted.length = kept;
  return sorted;
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

/** Each item of a list as a string; anything but a list: none. */
export function asStrings(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}

/** The strings of a list as a set (sorted, unique); other items and anything but a list are left out. */
export function stringsAsSet(v: unknown): string[] {
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
  return wholeSecondInstant(v) ?? parseInstant(v) ?? v;
}

const ISO_WHOLE_SECOND_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number the `length` ASCII digits of `text` at `at` write. */
function digitsAt(text: string, at: number, length: number): number {
  let n = 0;
  for (let i = at; i < at + length; i++) n = n * 10 + text.charCodeAt(i) - 48;
  return n;
}

/**
 * The service's own form (`2026-11-27T15:39:18Z`) as toISOString writes it, without parsing a Date: two
 * per certificate make the parse a visible part of a plan of thousands, and the digits are read in place
 * rather than through a match's captures for the same reason. Only a real calendar instant takes this
 * path; anything Date.parse would roll over (April 31, 24:00) or refuse goes through parseInstant.
 */
function wholeSecondInstant(v: string): string | undefined {
  if (!ISO_WHOLE_SECOND_UTC.test(v)) return undefined;
  const year = digitsAt(v, 0, 4);
  const month = digitsAt(v, 5, 2);
  const day = digitsAt(v, 8, 2);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  if (days === undefined || day < 1 || day > days) return undefined;
  if (digitsAt(v, 11, 2) > 23 || digitsAt(v, 14, 2) > 59 || digitsAt(v, 17, 2) > 59) return undefined;
  return `${v.slice(0, 19)}.000Z`;
}

const ISO_WHOLE_SECOND = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.000Z$/;

/** An instant as the file and the service write it, without toISOString's `.000`; other text as it is. */
export function instantText(text: string): string {
  const m = ISO_WHOLE_SECOND.exec(text);
  return m ? `${m[1]}Z` : text;
}

/** `algorithm base64`: an OpenSSH public key without its comment. */
export function canonicalPublicKey(v: unknown): string {
  const text = str(v);
  // Already canonical, as every live key and each comparison's live side is: nothing to split.
  if (CANONICAL_PUBLIC_KEY.test(text)) return text;
  const [algorithm = '', blob = ''] = text.trim().split(/\s+/);
  return `${algorithm} ${blob}`;
}

const CANONICAL_PUBLIC_KEY = /^\S+ \S+$/;

/**
 * Whether two OpenSSH public key lines hold the same key (canonicalPublicKey of each). A live key is
 * canonical and a file's line is it and a comment, so the usual case is a prefix test, with no split.
 */
export function samePublicKey(live: unknown, desired: unknown): boolean {
  const a = str(live);
  const b = str(desired);
  if (
    b.startsWith(a) &&
    (b.length === a.length || WHITESPACE.test(b[a.length]!)) &&
    CANONICAL_PUBLIC_KEY.test(a)
  )
    return true;
  return canonicalPublicKey(a) === canonicalPublicKey(b);
}

const WHITESPACE = /\s/;

/**
 * Equality of normalized field values (strings, booleans, sets, instants): fast-deep-equal. No user key
 * reaches it as an object property: fast-deep-equal calls an object's own `valueOf` or `toString`, so
 * user metadata such as `{valueOf: 1}` would make it throw; metadata is compared as its canonical JSON
 * text instead (jsonTextEqual).
 */
export const jsonEqual: (a: unknown, b: unknown) => boolean = equal;

/** Whether a field's live and desired normalized values are equal: by its own `equals`, else jsonEqual. */
export function fieldEquals(
  f: { equals?: (live: unknown, desired: unknown) => boolean },
  live: unknown,
  desired: unknown,
): boolean {
  return f.equals ? f.equals(live, desired) : jsonEqual(live, desired);
}

const stableStringify = configure({ deterministic: true, circularValue: Error });

/**
 * JSON with object keys sorted at every level and undefined members left out (an undefined array item
 * is null, as JSON.stringify writes it): equal values, equal text. `undefined` itself is `null`.
 */
export function canonicalJson(value: unknown): string {
  return stableStringify(value) ?? 'null';
}

/**
 * Equality of JSON data as it is written: its canonical JSON text (key order and undefined members do
 * not matter, and any key is data). User metadata and whole plan values compare with this.
 */
export function jsonTextEqual(a: unknown, b: unknown): boolean {
  return a === b || (a !== undefined && b !== undefined && canonicalJson(a) === canonicalJson(b));
}
