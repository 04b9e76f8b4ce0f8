import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, jsonEqual, jsonTextEqual } from '../../src/resources/values.js';

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
