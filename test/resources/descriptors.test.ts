import { describe, expect, it } from 'vitest';
import { decodeMarker, encodeMarker } from '../../src/config/marker.js';
import { canonicalJson, liveDigest } from '../../src/plan/digest.js';
import { descriptorFor, managedDescriptors, moduleDescriptors } from '../../src/resources/index.js';
import { canonicalPublicKey, instant, jsonEqual, refIds } from '../../src/resources/values.js';

describe('descriptors', () => {
  it('has one descriptor per kind', () => {
    const kinds = [...managedDescriptors, ...moduleDescriptors].map((d) => d.kind);
    expect(new Set(kinds).size).toBe(5);
    for (const k of kinds) expect(descriptorFor(k).kind).toBe(k);
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

  it('module enabled defaults to true', () => {
    expect(descriptorFor('websocket_tcp_converter').normalizeLive({})).toEqual({ enabled: true });
    expect(descriptorFor('tcp_edge_ip_restriction').normalizeLive({ ip_policies: [] })).toEqual({
      enabled: true,
      ip_policies: [],
    });
  });
});

describe('marker', () => {
  it('round-trips and is compact', () => {
    const text = encodeMarker({ owner: 'platform', key: 'office', protect: true, data: { team: 'p' } });
    expect(text).toBe('{"accord":{"owner":"platform","key":"office","protect":true},"data":{"team":"p"}}');
    expect(decodeMarker(text)).toEqual({
      owner: 'platform',
      key: 'office',
      protect: true,
      data: { team: 'p' },
    });
    expect(encodeMarker({ owner: 'o', key: 'k', protect: false })).toBe('{"accord":{"owner":"o","key":"k"}}');
  });
  it.each([undefined, '', 'hello', '{"a":1}', '{"accord":{"owner":1,"key":"k"}}', '{bad', '[1]'])(
    'treats %j as unmanaged',
    (m) => expect(decodeMarker(m)).toBeUndefined(),
  );
});

describe('digest', () => {
  it('ignores key order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    expect(liveDigest({ a: 1, b: 2 })).toBe(liveDigest({ b: 2, a: 1 }));
    expect(jsonEqual({ a: [1], b: undefined }, { a: [1] })).toBe(true);
  });
});
