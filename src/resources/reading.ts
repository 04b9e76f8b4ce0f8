// What the descriptors' `read` share: entries of a section, sets, timestamps and durations as the file
// writes them. The file may have failed its schema: anything of the wrong shape is skipped, the schema
// has reported it.
import type { EntryReader, PathSegment, SourceLocation } from './types.js';
import { isRecord, parseInstant, stringSet } from './values.js';

/** A section's entries whose value is a mapping, in file order. */
export function mappingEntries<T>(section: Readonly<Record<string, T>> | undefined): Array<[string, T]> {
  if (!isRecord(section)) return [];
  return Object.entries(section).filter(([, v]) => isRecord(v));
}

/**
 * Reports each entry of `section` whose `field` an earlier entry already has (the service holds one
 * object per value: an IP restriction per type, a cloud endpoint per URL), at that field of the later
 * one: `"KEY" already has FIELD VALUE (at FILE:LINE:COL); ` and what to do (`fix`).
 */
export function reportRepeated<D extends { key: string; loc: SourceLocation }>(
  entries: readonly D[],
  reader: EntryReader,
  section: string,
  field: keyof D & string,
  fix: string,
): void {
  const byValue = new Map<string, D>();
  for (const e of entries) {
    const value = e[field];
    if (typeof value !== 'string') continue;
    const first = byValue.get(value);
    if (first === undefined) byValue.set(value, e);
    else {
      const { file, line, col } = first.loc;
      reader.report(
        [section, e.key, field],
        `"${first.key}" already has ${field} ${value} (at ${file}:${line}:${col}); ${fix}`,
      );
    }
  }
}

/**
 * An RFC 3339 timestamp (its form checked by the schema) as an ISO instant; reported when not real, or
 * when it has a fraction of a second: the service keeps whole seconds, so a fraction would never
 * compare equal to what it stores (a replace on every plan).
 */
export function readInstant(
  reader: EntryReader,
  at: readonly PathSegment[],
  value: string | undefined,
): string | undefined {
  if (typeof value !== 'string') return undefined;
  const iso = parseInstant(value);
  if (iso === undefined) {
    reader.report(at, `${JSON.stringify(value)} is not a real point in time`);
    return undefined;
  }
  const whole = wholeSeconds(value);
  if (whole !== value) {
    reader.report(
      at,
      `${JSON.stringify(value)} has a fraction of a second, which the service does not keep; write ${whole} (whole seconds)`,
    );
    return undefined;
  }
  return iso;
}

/** The timestamp without a fraction of a second, as written otherwise; itself when it has none (or zeros). */
export function wholeSeconds(text: string): string {
  const m = /^(.*[Tt ]\d{2}:\d{2}:\d{2})\.(\d+)(.*)$/.exec(text);
  return m && /[1-9]/.test(m[2]!) ? `${m[1]}${m[3]}` : text;
}

const SECONDS: Record<string, number> = { d: 86_400, h: 3_600, m: 60 };

/** Seconds as the file writes a duration: in the largest of d, h, m that divides them. */
export function durationText(seconds: number): string {
  for (const [unit, size] of Object.entries(SECONDS)) {
    if (seconds > 0 && seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}

/** `90d` -> seconds; the schema has already checked the form. */
export function parseDuration(text: string): number | undefined {
  const m = /^([1-9][0-9]{0,5})([dhm])$/.exec(text);
  return m ? Number(m[1]) * SECONDS[m[2]!]! : undefined;
}

/** A list of references to `section` (keys or live IDs) as a set; each is checked once all is read. */
export function readReferences(
  reader: EntryReader,
  at: readonly PathSegment[],
  section: string,
  values: unknown,
): string[] {
  if (Array.isArray(values)) {
    values.forEach((v, i) => {
      if (typeof v === 'string') reader.reference([...at, i], section, v);
    });
  }
  return stringSet(values);
}
