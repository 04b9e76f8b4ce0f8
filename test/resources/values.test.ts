import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, instant, jsonEqual, jsonTextEqual } from '../../src/resources/values.js';

/**
 * `v` with its object keys in another order and, when `withUndefined`, members set to undefined added
 * here and there. Keys are set as own properties (`__proto__` too), as JSON.parse sets them.
 */
function variant(v: unknown, random: () => number, withUndefined: boolean): unknown {
  if (Array.isArray(v)) return v.map((x) => variant(x, random, withUndefined));
  if (typeof v !== 'object' || v === null) return v;
  const entries: [string, unknown][] = Object.entries(v).map(([k, x]) => [
    k,
    variant(x, random, withUndefined),
  ]);
  if (withUndefined && random() < 0.5) entries.push([`unset${Math.floor(random() * 3)}`, undefined]);
  entries.sort(() => random() - 0.5);
  const out: Record<string, unknown> = {};
  for (const [k, x] of entries)
    Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * Structural equality of JSON values, written out as the reference: object key order and members set
 * to undefined do not matter, and every key is data (it never calls an object's own members).
 */
function structurallyEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => structurallyEqual(x, b[i]));
  }
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && structurallyEqual(a[k], b[k]));
  }
  return false;
}

/** Keys that name members of every object: user metadata may use them. */
const HOSTILE = ['valueOf', 'toString', '__proto__', 'constructor', 'hasOwnProperty'];

/** JSON values whose objects often have hostile keys (made as JSON.parse makes them: own properties). */
const hostileJson = fc
  .jsonValue({ maxDepth: 3 })
  .chain((v) =>
    fc
      .array(fc.tuple(fc.constantFrom(...HOSTILE), fc.jsonValue({ maxDepth: 1 })), { maxLength: 3 })
      .map((extra) =>
        extra.length === 0
          ? v
          : JSON.parse(
              `{${[...extra.map(([k, x]) => `${JSON.stringify(k)}:${JSON.stringify(x)}`), `"v":${JSON.stringify(v)}`].join(',')}}`,
            ),
      ),
  );

/** Pairs of values: unrelated ones, and one value in two spellings (key order, undefined members). */
function pairs(json: fc.Arbitrary<unknown>, withUndefined: boolean) {
  return fc.oneof(
    fc.tuple(json, json),
    fc.tuple(json, fc.integer()).map(([v, seed]) => {
      const random = seededRandom(seed);
      return [variant(v, random, withUndefined), variant(v, random, withUndefined)] as const;
    }),
  );
}

describe('jsonTextEqual', () => {
  it('is structural equality, for any user data, hostile keys included, in any spelling', () => {
    fc.assert(
      fc.property(pairs(hostileJson, true), ([a, b]) => {
        expect(jsonTextEqual(a, b)).toBe(structurallyEqual(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it('compares user data whose keys are the names of Object methods, and tells unset from null', () => {
    expect(jsonTextEqual({ toString: 'a', valueOf: 1 }, { valueOf: 1, toString: 'a' })).toBe(true);
    expect(jsonTextEqual({ toString: 'a', x: 1 }, { toString: 'a', x: 2 })).toBe(false);
    expect(jsonTextEqual({ constructor: 'a' }, { constructor: 'b' })).toBe(false);
    expect(jsonTextEqual(JSON.parse('{"__proto__": 1}'), JSON.parse('{"__proto__": 1}'))).toBe(true);
    expect(jsonTextEqual(JSON.parse('{"__proto__": 1}'), JSON.parse('{"__proto__": 2}'))).toBe(false);
    expect(jsonTextEqual(undefined, undefined)).toBe(true);
    expect(jsonTextEqual(undefined, null)).toBe(false);
    // What it spares fast-deep-equal, which calls the object's own valueOf:
    expect(() => jsonEqual({ valueOf: 1 }, { valueOf: 1 })).toThrow(TypeError);
  });
});

/** Whether any object in `v` has a key that names a member of every object. */
function hasHostileKey(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasHostileKey);
  if (typeof v !== 'object' || v === null) return false;
  return Object.keys(v).some(
    (k) => k in Object.prototype || k === '__proto__' || hasHostileKey((v as Record<string, unknown>)[k]),
  );
}

describe('jsonEqual (fast-deep-equal) on field values, which hold no user keys', () => {
  it('is structural equality, whatever the key order', () => {
    const fieldValue = fc.jsonValue({ maxDepth: 3 }).filter((v) => !hasHostileKey(v));
    fc.assert(
      fc.property(pairs(fieldValue, false), ([a, b]) => {
        expect(jsonEqual(a, b)).toBe(structurallyEqual(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it('tells arrays from objects and looks inside both', () => {
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
    expect(jsonEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(jsonEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 3 }] })).toBe(false);
    expect(jsonEqual(['a', 'b'], ['b', 'a'])).toBe(false);
    expect(jsonEqual(undefined, null)).toBe(false);
  });
});

describe('canonicalJson', () => {
  it('gives equal values equal text and different values different text, hostile keys included', () => {
    fc.assert(
      fc.property(pairs(hostileJson, true), ([a, b]) => {
        expect(canonicalJson(a) === canonicalJson(b)).toBe(structurallyEqual(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it('sorts keys at every level and leaves undefined members out', () => {
    expect(canonicalJson({ b: [1, undefined, { d: 1, c: 2 }], a: 'x', z: undefined })).toBe(
      '{"a":"x","b":[1,null,{"c":2,"d":1}]}',
    );
    expect(canonicalJson(undefined)).toBe('null');
  });
});

function seededRandom(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

/** What instant gave before the whole-second path: Date.parse and toISOString, else the text as it is. */
function parsedInstant(text: string): string {
  const t = Date.parse(text);
  return Number.isNaN(t) ? text : new Date(t).toISOString();
}

describe('instant: a live timestamp as toISOString writes it', () => {
  it.each([
    ['2026-11-27T15:39:18Z', '2026-11-27T15:39:18.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['0000-01-01T00:00:00Z', '0000-01-01T00:00:00.000Z'],
    // Date.parse rolls these over; the result must stay what it gives.
    ['2026-02-29T00:00:00Z', '2026-03-01T00:00:00.000Z'],
    ['1900-02-29T12:00:00Z', '1900-03-01T12:00:00.000Z'],
    ['2026-04-31T00:00:00Z', '2026-05-01T00:00:00.000Z'],
    ['2026-01-01T24:00:00Z', '2026-01-02T00:00:00.000Z'],
    // Refused by Date.parse: the text as it is.
    ['2026-00-01T00:00:00Z', '2026-00-01T00:00:00Z'],
    ['2026-01-01T23:59:60Z', '2026-01-01T23:59:60Z'],
    ['2026-11-27T15:39:18.250Z', '2026-11-27T15:39:18.250Z'],
    ['2026-11-27T16:39:18+01:00', '2026-11-27T15:39:18.000Z'],
  ])('%s is %s', (text, shown) => {
    expect(instant(text)).toBe(shown);
  });

  it('gives what Date.parse and toISOString give for every whole-second UTC text', () => {
    const digits = (n: number) =>
      fc.integer({ min: 0, max: 10 ** n - 1 }).map((v) => String(v).padStart(n, '0'));
    const text = fc
      .tuple(digits(4), digits(2), digits(2), digits(2), digits(2), digits(2))
      .map(([y, mo, d, h, mi, s]) => `${y}-${mo}-${d}T${h}:${mi}:${s}Z`);
    const likely = fc
      .record({
        y: fc.integer({ min: 1600, max: 2400 }),
        mo: fc.integer({ min: 0, max: 13 }),
        d: fc.integer({ min: 0, max: 32 }),
        h: fc.integer({ min: 0, max: 24 }),
        mi: fc.integer({ min: 0, max: 60 }),
        s: fc.integer({ min: 0, max: 60 }),
      })
      .map(({ y, mo, d, h, mi, s }) => {
        const two = (v: number) => String(v).padStart(2, '0');
        return `${y}-${two(mo)}-${two(d)}T${two(h)}:${two(mi)}:${two(s)}Z`;
      });
    fc.assert(
      fc.property(fc.oneof(text, likely), (t) => {
        expect(instant(t)).toBe(parsedInstant(t));
      }),
      { numRuns: 5000 },
    );
  });
});
