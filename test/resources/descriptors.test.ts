import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { descriptorFor, managedDescriptors, moduleDescriptors } from '../../src/resources/index.js';
import {
  canonicalJson,
  canonicalPublicKey,
  instant,
  jsonEqual,
  refIds,
  samePublicKey,
  stringSet,
} from '../../src/resources/values.js';

describe('descriptors', () => {
  it('has one descriptor per kind', () => {
    const kinds = [...managedDescriptors, ...moduleDescriptors].map((d) => d.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    for (const k of kinds) expect(descriptorFor(k).kind).toBe(k);
  });

  it("has each managed kind's section in schemas/accord.schema.json", () => {
    const schema = JSON.parse(
      readFileSync(new URL('../../schemas/accord.schema.json', import.meta.url), 'utf8'),
    ) as { properties: Record<string, unknown> };
    // A nested kind (a policy's rules) is written inside its parent's section.
    for (const d of managedDescriptors)
      expect(Object.keys(schema.properties)).toContain(d.within?.section ?? d.section);
  });

  it('normalizes live IP restrictions as sets', () => {
    const d = descriptorFor('ip_restriction');
    const live = d.normalizeLive({
      type: 'api',
      enforced: true,
      ip_policies: [{ id: 'ipp_b', uri: 'x' }, { id: 'ipp_a' }, { id: 'ipp_b' }],
    });
    expect(live).toEqual({ type: 'api', enforced: true, ip_policies: ['ipp_a', 'ipp_b'] });
  });

  it('compares timestamps as instants and public keys without comment', () => {
    expect(instant('2027-06-01T02:00:00+02:00')).toBe('2027-06-01T00:00:00.000Z');
    expect(canonicalPublicKey('ssh-ed25519 AAAAC3 host@x\n')).toBe('ssh-ed25519 AAAAC3');
    expect(refIds(undefined)).toEqual([]);
  });

  it('stringSet is the sorted set of a list’s items as strings (property)', () => {
    const item = fc.oneof(
      fc.constantFrom('a', 'b', 'B', 'é', ''),
      fc.string({ maxLength: 3 }),
      fc.integer(),
      fc.boolean(),
    );
    fc.assert(
      fc.property(fc.array(item, { maxLength: 8 }), (items) => {
        expect(stringSet(items)).toEqual([...new Set(items.map(String))].sort());
      }),
      { numRuns: 2000 },
    );
    expect(stringSet('a')).toEqual([]);
  });

  it('samePublicKey is equality of canonicalPublicKey, its prefix shortcut included (property)', () => {
    const word = fc.string({
      unit: fc.constantFrom('a', 'b', 'A', '+', '=', '-'),
      minLength: 0,
      maxLength: 4,
    });
    const gap = fc.string({ unit: fc.constantFrom(' ', '\t', '\n'), minLength: 0, maxLength: 2 });
    const line = fc
      .array(fc.tuple(gap, word), { maxLength: 4 })
      .chain((parts) => gap.map((end) => parts.map(([g, w]) => g + w).join('') + end));
    const pair = fc.oneof(
      fc.tuple(line, line),
      // A key and the same key with more after it: the shortcut's case, and its near misses.
      fc.tuple(line, line).map(([a, rest]) => [canonicalPublicKey(a), canonicalPublicKey(a) + rest] as const),
    );
    fc.assert(
      fc.property(pair, ([live, desired]) => {
        expect(samePublicKey(live, desired)).toBe(canonicalPublicKey(live) === canonicalPublicKey(desired));
      }),
      { numRuns: 3000 },
    );
    expect(samePublicKey('ssh-ed25519 AAAA', 'ssh-ed25519 AAAA host@x')).toBe(true);
    expect(samePublicKey('ssh-ed25519 AAAA', 'ssh-ed25519 AAAAB host@x')).toBe(false);
  });

  it('module enabled defaults to true', () => {
    expect(descriptorFor('websocket_tcp_converter').normalizeLive({})).toEqual({ enabled: true });
    expect(descriptorFor('tcp_edge_ip_restriction').normalizeLive({ ip_policies: [] })).toEqual({
      enabled: true,
      ip_policies: [],
    });
  });
});

describe('jsonEqual', () => {
  it('ignores key order; canonical JSON ignores undefined members too', () => {
    expect(jsonEqual({ b: 1, a: [{ d: 2, c: 3 }] }, { a: [{ c: 3, d: 2 }], b: 1 })).toBe(true);
    expect(canonicalJson({ a: [1], b: undefined })).toBe(canonicalJson({ a: [1] }));
  });
});
