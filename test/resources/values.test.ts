import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/plan/drift.js';
import { jsonEqual } from '../../src/resources/values.js';

/** `v` with its object keys in another order and members set to undefined added here and there. */
function variant(v: unknown, random: () => number): unknown {
  if (Array.isArray(v)) return v.map((x) => variant(x, random));
  if (typeof v !== 'object' || v === null) return v;
  const entries: [string, unknown][] = Object.entries(v).map(([k, x]) => [k, variant(x, random)]);
  if (random() < 0.5) entries.push([`unset${Math.floor(random() * 3)}`, undefined]);
  entries.sort(() => random() - 0.5);
  return Object.fromEntries(entries);
}

describe('jsonEqual', () => {
  it('is equality of canonical JSON: key order and undefined members do not matter', () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    const pair = fc.oneof(
      fc.tuple(json, json),
      fc.tuple(json, fc.integer()).map(([v, seed]) => {
        const random = seededRandom(seed);
        return [variant(v, random), variant(v, random)] as const;
      }),
    );
    fc.assert(
      fc.property(pair, ([a, b]) => {
        expect(jsonEqual(a, b)).toBe(canonicalJson(a) === canonicalJson(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('tells arrays from objects and looks inside both', () => {
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
    expect(jsonEqual({ a: [1, { b: undefined }] }, { a: [1, {}] })).toBe(true);
    expect(jsonEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 3 }] })).toBe(false);
    expect(jsonEqual(undefined, null)).toBe(false);
  });

  it('compares user data whose keys are the names of Object methods', () => {
    expect(jsonEqual({ toString: 'a', valueOf: 1 }, { valueOf: 1, toString: 'a' })).toBe(true);
    expect(jsonEqual({ toString: 'a', x: 1 }, { toString: 'a', x: 2 })).toBe(false);
    expect(jsonEqual({ constructor: 'a' }, { constructor: 'b' })).toBe(false);
    expect(jsonEqual(JSON.parse('{"__proto__": 1}'), JSON.parse('{"__proto__": 1}'))).toBe(true);
    expect(jsonEqual(JSON.parse('{"__proto__": 1}'), JSON.parse('{"__proto__": 2}'))).toBe(false);
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
