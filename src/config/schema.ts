// Validation against schemas/accord.schema.json, the single source of truth for the file's shape, with
// ajv's errors turned into messages a person can act on (what is wrong, what would be valid).
import type { ErrorObject, ValidateFunction } from 'ajv';
import { isRecord } from '../resources/values.js';
import { closest } from '../suggest.js';
import {
  validateTrafficPolicy as generatedPolicyValidate,
  validate as generatedValidate,
} from './generated/accord-validator.js';
import { displayPath, type Problem } from './problems.js';
import { locate, type PathSegment, type YamlSource } from './source.js';

/**
 * ajv's validator for schemas/accord.schema.json, generated as code by scripts/gen-types.mjs (compiling
 * the schema at run time costs more than the rest of `accord validate`). It reports every error
 * (allErrors) with the failing data and schema (verbose), which the messages below need.
 */
const validate = generatedValidate as unknown as ValidateFunction;
/** The same schema's `$defs/trafficPolicy`: a `traffic_policy_file`'s document. */
export const validatePolicyDocument = generatedPolicyValidate as unknown as ValidateFunction;

/** Every schema violation in `source`, located; `against` a definition of the schema, the whole file's by default. */
export function schemaProblems(source: YamlSource, against: ValidateFunction = validate): Problem[] {
  if (against(source.data)) return [];
  const { errors, guesses } = pairMisspellings(simplify(against.errors ?? []));
  const problems: Problem[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const { segments, target, message } = describe(e, guesses.get(e));
    const { line, col } = locate(source, segments, target);
    const problem = { file: source.file, line, col, path: displayPath(segments), message };
    const id = `${line}:${col}:${problem.path}:${message}`;
    if (!seen.has(id)) {
      seen.add(id);
      problems.push(problem);
    }
  }
  return problems;
}

function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function segmentsOf(e: ErrorObject): PathSegment[] {
  return pointerSegments(e.instancePath).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/**
 * Folds the noise of `oneOf`: a `"absent" | {...}` union given a mapping reports only the mapping's
 * errors; given anything else, one message naming both forms. "Exactly one of" unions report one
 * message. Property-name errors keep only the specific one.
 */
function simplify(errors: ErrorObject[]): ErrorObject[] {
  // `if`/`then` (a restrict-ips action's config) reports the `then` errors, which say it all.
  let out = errors.filter((e) => e.keyword !== 'propertyNames' && e.keyword !== 'if');
  for (const union of errors.filter((e) => e.keyword === 'oneOf')) {
    const branches = union.schema as Record<string, unknown>[];
    const base = union.schemaPath;
    const inBranch = (e: ErrorObject) => e.schemaPath.startsWith(`${base}/`);
    if (branches.every((b) => Object.keys(b).join() === 'required')) {
      out = out.filter((e) => !inBranch(e));
      continue;
    }
    const objectBranch = branches.findIndex((b) => b['type'] === 'object');
    if (isRecord(union.data) && objectBranch >= 0) {
      out = out.filter(
        (e) => e !== union && !(inBranch(e) && !e.schemaPath.startsWith(`${base}/${objectBranch}/`)),
      );
    } else {
      out = out.filter((e) => e === union || !e.instancePath.startsWith(union.instancePath));
    }
  }
  return out;
}

/**
 * A misspelled required field shows up twice: the key as unknown, and the field as missing from its
 * parent. The two are one mistake, and the place to fix it is the key: pair each unknown key with the
 * missing field it most likely misspells, drop that field's "missing" error (located at the parent's
 * key, far from the typo) and name the field in the unknown key's message instead.
 */
function pairMisspellings(errors: ErrorObject[]): {
  errors: ErrorObject[];
  guesses: Map<ErrorObject, string>;
} {
  const guesses = new Map<ErrorObject, string>();
  const dropped = new Set<ErrorObject>();
  const byObject = new Map<string, ErrorObject[]>();
  for (const e of errors) byObject.set(e.instancePath, [...(byObject.get(e.instancePath) ?? []), e]);
  for (const group of byObject.values()) {
    const unknown = group.filter((e) => e.keyword === 'additionalProperties');
    if (unknown.length === 0) continue;
    // Missing fields: a `required` error each, or an "exactly one of" union none of whose names is set.
    const missing = new Map<string, ErrorObject>();
    for (const e of group) {
      if (e.keyword === 'required')
        missing.set(String((e.params as Record<string, unknown>)['missingProperty']), e);
      if (
        e.keyword === 'oneOf' &&
        !Array.isArray((e.params as { passingSchemas?: unknown }).passingSchemas)
      ) {
        const names = (e.schema as Record<string, unknown>[]).map(
          (b) => (b['required'] as string[] | undefined)?.[0],
        );
        if (names.every((n) => n !== undefined)) for (const n of names) missing.set(n, e);
      }
    }
    for (const e of unknown) {
      const name = String((e.params as Record<string, unknown>)['additionalProperty']);
      const left = [...missing.keys()];
      const guess = closest(name, left) ?? onlyOne(left.filter((m) => isPrefixPair(name, m)));
      if (guess === undefined) continue;
      guesses.set(e, guess);
      const covered = missing.get(guess)!;
      dropped.add(covered);
      for (const [n, err] of [...missing]) if (err === covered) missing.delete(n);
    }
  }
  return { errors: errors.filter((e) => !dropped.has(e)), guesses };
}

/** `websocket` for `websocket_tcp_converter`, `ip_policy` for `ip_policies`: a start written out. */
function isPrefixPair(a: string, b: string): boolean {
  const [short, long] =
    a.length <= b.length ? [a.toLowerCase(), b.toLowerCase()] : [b.toLowerCase(), a.toLowerCase()];
  return short.length >= 3 && long.startsWith(short);
}

function onlyOne<T>(items: readonly T[]): T | undefined {
  return items.length === 1 ? items[0] : undefined;
}

interface Described {
  segments: PathSegment[];
  target: 'key' | 'value';
  message: string;
}

/**
 * Where a schema error is and what it says. `guess`: the missing required field an unknown key most
 * likely misspells (see pairMisspellings).
 */
function describe(e: ErrorObject, guess?: string): Described {
  const segments = segmentsOf(e);
  const params = e.params as Record<string, unknown>;
  const parent = (e.parentSchema ?? {}) as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties': {
      const name = String(params['additionalProperty']);
      const allowed = Object.keys((parent['properties'] as object | undefined) ?? {});
      const hint = guess ? `did you mean "${guess}"? (it is required here)` : hintFor(name, allowed);
      return { segments: [...segments, name], target: 'key', message: `unknown field "${name}"; ${hint}` };
    }
    case 'required': {
      const name = String(params['missingProperty']);
      // The one field whose value is always the same is said with it.
      const add = segments.length === 0 && name === 'version' ? '; add the line version: 1' : '';
      return { segments, target: 'key', message: `missing required field "${name}"${add}` };
    }
    case 'pattern':
      if (e.propertyName === undefined) break;
      return {
        segments: [...segments, e.propertyName],
        target: 'key',
        message: keyMessage(e.propertyName, String(params['pattern'])),
      };
    case 'oneOf':
      return { segments, target: 'key', message: oneOfMessage(e) };
    case 'not': {
      const names = ((e.schema as { required?: string[] }).required ?? []).join(' and ');
      return {
        segments,
        target: 'key',
        message: `${names} cannot both be set; valid_for sets the lifetime at creation, valid_until a fixed end`,
      };
    }
  }
  return { segments, target: 'value', message: valueMessage(e) };
}

/** What is wrong with a value that the schema refuses. */
function valueMessage(e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'type':
      return `must be ${article(String(params['type']))}, not ${kindOf(e.data)}`;
    case 'enum': {
      const allowed = (params['allowedValues'] as unknown[]).map(String);
      const guess = typeof e.data === 'string' ? closest(e.data, allowed) : undefined;
      const hint = guess ? `; did you mean "${guess}"?` : '';
      return `${quote(e.data)} is not allowed; use one of: ${allowed.join(', ')}${hint}`;
    }
    case 'const':
      return `must be ${JSON.stringify(params['allowedValue'])}`;
    case 'pattern':
      return patternMessage(e.data, String(params['pattern']));
    case 'format':
      return `${quote(e.data)} is not an RFC 3339 timestamp; write e.g. 2027-06-01T00:00:00Z (a time zone is required)`;
    case 'minItems':
      return 'must list at least one item';
    case 'maxItems': {
      const most = Number((e.params as { limit?: unknown }).limit);
      const given = Array.isArray(e.data) ? e.data.length : `more than ${most}`;
      return `lists ${given} items; the service accepts at most ${most}: name fewer (move the rules of some of these IP policies into the others)`;
    }
    case 'minLength':
      return 'must not be empty';
    default:
      return e.message ?? `fails ${e.keyword}`;
  }
}

function hintFor(name: string, allowed: readonly string[]): string {
  const guess = closest(name, allowed) ?? onlyOne(allowed.filter((a) => isPrefixPair(name, a)));
  return guess ? `did you mean "${guess}"?` : `allowed: ${allowed.join(', ')}`;
}

function oneOfMessage(e: ErrorObject): string {
  const branches = e.schema as Record<string, unknown>[];
  const required = branches.map((b) => (b['required'] as string[] | undefined)?.[0]);
  if (required.every((r) => r !== undefined)) {
    const both = Array.isArray((e.params as { passingSchemas?: unknown }).passingSchemas);
    return both
      ? `set only one of ${required.join(' or ')}, not both`
      : `set exactly one of ${required.join(' or ')}`;
  }
  const forms = branches.map((b) => {
    if (b['const'] !== undefined) return JSON.stringify(b['const']);
    const props = Object.keys((b['properties'] as object | undefined) ?? {});
    return `a mapping (${props.join(', ')})`;
  });
  return `must be ${forms.join(' or ')}, not ${quote(e.data)}`;
}

function keyMessage(name: string, pattern: string): string {
  if (pattern.includes('tcp_edges\\.')) return scopeKeyMessage(name, pattern);
  const prefix = idPrefix(pattern);
  if (prefix) return `"${name}" is not a valid key here: expected an ID starting with "${prefix}"`;
  return `"${name}" is not a valid entry key: use lower-case letters, digits, ".", "_" and "-", starting with a letter or digit, at most 63 characters`;
}

/** A guard's key that names no scope: the scopes there are, and the one it may mean. */
function scopeKeyMessage(name: string, pattern: string): string {
  const words = pattern
    .replace(/^\^\(|\)\$$/g, '')
    .split('|')
    .filter((w) => /^[a-z]+$/.test(w));
  const guess = name.startsWith('edgtcp_') ? `tcp_edges.${name}` : closest(name, words);
  const hint = guess ? `; did you mean "${guess}"?` : '';
  return `"${name}" is not a scope: guard ${words.join(', ')}, a TCP edge as tcp_edges.<edge ID> (tcp_edges.edgtcp_...), or an endpoint as cloud_endpoints.<key> or by its URL (https://...)${hint}`;
}

function patternMessage(value: unknown, pattern: string): string {
  if (pattern.includes('://'))
    return `${quote(value)} is not a URL: write its scheme and host, e.g. https://app.example.com or tcp://1.tcp.example.com:20001`;
  const prefix = idPrefix(pattern);
  if (prefix)
    return `${quote(value)} is not a valid ID here: expected one starting with "${prefix}" followed by letters and digits`;
  if (pattern.endsWith('[dhm]$'))
    return `${quote(value)} is not a duration: write a whole number and d, h or m, e.g. 90d, 12h, 30m`;
  return `${quote(value)} is not valid here: use lower-case letters, digits, ".", "_" and "-", starting with a letter or digit, at most 63 characters`;
}

function idPrefix(pattern: string): string | undefined {
  return /^\^([a-z]+_)\[/.exec(pattern)?.[1];
}

function kindOf(v: unknown): string {
  if (v === null) return 'empty (null)';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return `the string ${quote(v)}`;
  return `${typeof v === 'number' ? 'the number' : typeof v === 'boolean' ? 'the boolean' : ''} ${String(v)}`.trim();
}

function article(type: string): string {
  const names: Record<string, string> = {
    object: 'a mapping',
    array: 'a list',
    string: 'a string',
    boolean: 'true or false',
    number: 'a number',
    integer: 'a whole number',
  };
  return names[type] ?? type;
}

/** Shows a user-written value, shortened: it comes from the YAML file, never from a referenced file. */
function quote(v: unknown): string {
  const text = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);
}
