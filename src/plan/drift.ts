// Telling "the file changed" from "someone changed the account" without a state file (DESIGN §4
// "Drift"). The marker's `applied` holds, per compared field, a short hash of the value accord last
// wrote; a field that differs is then attributed by which side still hashes to it.
//
// `applied` = "3" + 2 characters of the marker it was written with (its owner and key, as fields: a
// key rewritten outside accord is a rename nobody filed) + one 6-character component per fingerprinted
// field, in the kind's compared-field order (its own fields, then description, metadata, protect). A
// component is the first 36 bits of the SHA-256 of the field's normalized value as canonical JSON, in
// base64url; "......" marks an optional field the entry did not set (the service chose it; nothing was
// written). A value naming an ID known only after apply is fingerprinted when it is sent, the ID filled
// in (src/plan/requests.ts `withFingerprintAsSent`); versions before that wrote "......" for it, which
// is read as "not recorded" for a field every entry sets. The marker takes 12 bits, not 36, to keep the
// longest fingerprint within the marker's 64 bytes (DESIGN §2). Formats written by earlier versions are
// still read: "2" (the marker part hashes the text `owner/key`, as plans showed the marker then) and
// "1" (no marker part: it attributes fields, and a key change to the file).
import { createHash } from 'node:crypto';
import type { LiveResource } from '../account/model.js';
import type { FieldSpec } from '../resources/types.js';
import { canonicalJson, type LiveObject } from '../resources/values.js';
import { holdsKnownAfterApply } from './references.js';
import type { DriftSource } from './types.js';

export type { DriftSource } from './types.js';

const FORMAT = '3';
/** Fingerprints whose marker part hashes the marker's text `owner/key`: read, never written. */
const FORMAT_MARKER_TEXT = '2';
/** Fingerprints written before the marker was part of them: read, never written. */
const FORMAT_WITHOUT_MARKER = '1';
const CHARS = 6;
const MARKER_CHARS = 2;
const NOT_WRITTEN = '.'.repeat(CHARS);
/** Fields the marker carries as itself rather than as a value to fingerprint. */
const NOT_FINGERPRINTED = new Set(['marker']);

/** The fields a fingerprint covers, in its fixed order. */
export function fingerprintedFields(compared: readonly FieldSpec[]): FieldSpec[] {
  return compared.filter((f) => !NOT_FINGERPRINTED.has(f.name));
}

/** What of a marker its fingerprint covers: the fields that name the entry. */
export interface MarkerName {
  readonly owner: string;
  readonly key: string;
}

/**
 * The `applied` fingerprint of the values a write leaves in the object (a plan change's `after`) and
 * of the marker it writes.
 */
export function fingerprint(
  fields: readonly FieldSpec[],
  values: Record<string, unknown>,
  marker: MarkerName,
): string {
  return FORMAT + markerComponent(FORMAT, marker) + fields.map((f) => component(f, values[f.name])).join('');
}

/** The longest fingerprint of a kind with `count` fingerprinted fields. */
export function fingerprintLength(count: number): number {
  return FORMAT.length + MARKER_CHARS + CHARS * count;
}

/**
 * The marker part of a fingerprint of `format`: of the marker's fields as canonical JSON, or, in format
 * "2", of the text `owner/key` (how plans showed a marker when that format was written: kept here as
 * it was, whatever plans show now).
 */
function markerComponent(format: string, marker: MarkerName | undefined): string {
  if (marker === undefined) return '';
  const { owner, key } = marker;
  const text = format === FORMAT_MARKER_TEXT ? `${owner}/${key}` : canonicalJson({ owner, key });
  return createHash('sha256').update(text).digest('base64url').slice(0, MARKER_CHARS);
}

function component(f: FieldSpec, value: unknown): string {
  if (value === undefined && f.optional) return NOT_WRITTEN;
  // An ID known only after apply: the plan's request holds no value to hash yet. The applier takes
  // the fingerprint again once the ID is known (withFingerprintAsSent), so this is never written.
  if (holdsKnownAfterApply(value)) return NOT_WRITTEN;
  const v = f.identity ? f.identity(value) : value;
  // "" is no JSON text, so an unset value never hashes like a set one.
  const text = v === undefined ? '' : canonicalJson(v);
  return createHash('sha256').update(text).digest('base64url').slice(0, CHARS);
}

/** Where the field components start in a fingerprint of each format this version reads. */
const FIELDS_START: Readonly<Record<string, number>> = {
  [FORMAT]: FORMAT.length + MARKER_CHARS,
  [FORMAT_MARKER_TEXT]: FORMAT_MARKER_TEXT.length + MARKER_CHARS,
  [FORMAT_WITHOUT_MARKER]: FORMAT_WITHOUT_MARKER.length,
};

/**
 * The components of a fingerprint this version can read for these fields, its format and its marker
 * part (none in format "1"); undefined otherwise.
 */
function components(
  fields: readonly FieldSpec[],
  applied: string | undefined,
): { format: string; marker: string | undefined; values: string[] } | undefined {
  if (applied === undefined) return undefined;
  const format = applied.slice(0, 1);
  const start = Object.hasOwn(FIELDS_START, format) ? FIELDS_START[format]! : undefined;
  if (start === undefined || applied.length !== start + CHARS * fields.length) return undefined;
  const values: string[] = [];
  for (let i = start; i < applied.length; i += CHARS) values.push(applied.slice(i, i + CHARS));
  return { format, marker: start > 1 ? applied.slice(1, start) : undefined, values };
}

export interface DriftInput {
  /** The kind's fingerprinted fields (`fingerprintedFields`). */
  fields: readonly FieldSpec[];
  /** Normalized live values and desired values, as in the plan change. */
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  /** Names of the fields that differ. */
  changed: readonly string[];
  /** The live marker's fingerprint, only when the marker is this owner's; undefined when there is none. */
  applied: string | undefined;
  /** The live object's marker (undefined when it has none) and the one the entry writes. */
  markers: { live: MarkerName | undefined; desired: MarkerName };
}

export interface Attribution {
  /** Every differing field, and every field changed outside accord to what the file now says. */
  drift: Record<string, DriftSource>;
  /**
   * Fields equal in the file and the account that both differ from what accord wrote: changed outside
   * accord, and the file changed to match. Nothing to send for them but a fresh fingerprint.
   */
  agreed: string[];
}

/**
 * Attributes each differing field: `file` when the live value is what accord wrote, `outside` when the
 * desired value is (the file did not change, the account did), `both` when neither is, `unknown` when
 * no fingerprint tells (none, another version's, or a field it does not cover).
 */
export function attributeDrift(input: DriftInput): Attribution {
  const { fields, before, after, changed, applied, markers } = input;
  const drift: Record<string, DriftSource> = {};
  const agreed: string[] = [];
  const read = components(fields, applied);
  const recorded = read?.values;
  for (const name of changed) {
    const i = indexOfField(fields, name);
    const was = i === undefined ? undefined : recorded?.[i];
    if (NOT_FINGERPRINTED.has(name) && read) {
      // This owner's marker under another key: the file's rename (or swap of slots) when the account
      // holds the marker accord wrote, a key rewritten outside accord when the file's is the one.
      // A fingerprint of format "1" holds no marker: only the file was taken to move a key.
      const wrote = read.marker;
      drift[name] =
        wrote === undefined || markerComponent(read.format, markers.live) === wrote
          ? 'file'
          : markerComponent(read.format, markers.desired) === wrote
            ? 'outside'
            : 'both';
      continue;
    }
    if (i === undefined || was === undefined) {
      drift[name] = 'unknown';
      continue;
    }
    const f = fields[i]!;
    if (was === NOT_WRITTEN) {
      // An optional field: accord wrote nothing there (the entry left it to the service), and the
      // entry now sets it. A field every entry sets: an ID known only after apply, as versions that
      // fingerprinted at plan time recorded it; what was written is not recorded, so nothing tells.
      drift[name] = f.optional ? 'file' : 'unknown';
      continue;
    }
    if (component(f, before[name]) === was) drift[name] = 'file';
    else drift[name] = component(f, after[name]) === was ? 'outside' : 'both';
  }
  if (recorded) {
    const differing = new Set(changed);
    fields.forEach((f, i) => {
      if (differing.has(f.name) || (f.optional && after[f.name] === undefined)) return;
      const was = recorded[i]!;
      if (was !== NOT_WRITTEN && component(f, before[f.name]) !== was) {
        drift[f.name] = 'both';
        agreed.push(f.name);
      }
    });
  }
  return { drift, agreed };
}

function indexOfField(fields: readonly FieldSpec[], name: string): number | undefined {
  const i = fields.findIndex((f) => f.name === name);
  return i < 0 ? undefined : i;
}

/** Each differing field `unknown`: creates, edge modules, and objects without a usable fingerprint. */
export function unknownDrift(changed: readonly string[]): Record<string, DriftSource> {
  return Object.fromEntries(changed.map((name) => [name, 'unknown' as const]));
}

/** Fields of a change changed outside accord (alone, or as well as in the file). */
export function outsideFields(drift: Readonly<Record<string, DriftSource>>): string[] {
  return Object.keys(drift).filter((k) => drift[k] === 'outside' || drift[k] === 'both');
}

/**
 * Objects whose metadata looks like a marker of this owner that no longer reads as one (not JSON any
 * more, or not a marker's shape): the key each still names, with its ID. Only objects that carry no
 * readable marker are looked at; the owner, when it can still be read, must be this one.
 */
export function brokenMarkerKeys(objects: Iterable<LiveResource>, owner: string): Map<string, string> {
  const keys = new Map<string, string>();
  for (const obj of objects) {
    if (obj.marker) continue;
    const named = brokenMarkerKey(obj.object, owner);
    if (named !== undefined && !keys.has(named)) keys.set(named, obj.id);
  }
  return keys;
}

/**
 * The key an object without a readable marker still names in metadata that looks like this owner's
 * marker (an `accord` member; the owner, when it can still be read, this one); undefined otherwise.
 */
export function brokenMarkerKey(obj: LiveObject, owner: string): string | undefined {
  const metadata = obj['metadata'];
  if (typeof metadata !== 'string' || !metadata.includes('"accord"')) return undefined;
  const by = looseString(metadata, 'owner');
  return by === undefined || by === owner ? looseString(metadata, 'key') : undefined;
}

/** The first `"name": "value"` of JSON-like text, unescaped; undefined when there is none. */
function looseString(text: string, name: string): string | undefined {
  const m = new RegExp(`"${name}"\\s*:\\s*"((?:[^"\\\\]|\\\\.)*)"`).exec(text);
  if (!m) return undefined;
  try {
    return JSON.parse(`"${m[1]}"`) as string;
  } catch {
    return undefined;
  }
}
