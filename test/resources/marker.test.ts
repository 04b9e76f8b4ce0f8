import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeMarker, encodeMarker, markerBudgetLeft } from '../../src/resources/marker.js';

describe('ownership marker', () => {
  it('encodes compact JSON with protect and data only when set', () => {
    expect(encodeMarker('platform', 'office', true, { team: 'platform' })).toBe(
      '{"accord":{"owner":"platform","key":"office","protect":true},"data":{"team":"platform"}}',
    );
    expect(encodeMarker('platform', 'office', false)).toBe('{"accord":{"owner":"platform","key":"office"}}');
    expect(markerBudgetLeft('x'.repeat(4096))).toBe(0);
    expect(markerBudgetLeft('é'.repeat(2049))).toBe(-2);
  });

  it('decodes what it encodes', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        fc.boolean(),
        fc.option(fc.jsonValue(), { nil: undefined }),
        (owner, key, protect, data) => {
          const m = decodeMarker(encodeMarker(owner, key, protect, data));
          expect(m).toBeDefined();
          expect(m).toMatchObject({ owner, key, protect, hasData: data !== undefined });
          expect(m!.data).toEqual(data === undefined ? undefined : JSON.parse(JSON.stringify(data)));
        },
      ),
    );
  });

  it('reads field order and whitespace as JSON, not text', () => {
    expect(decodeMarker('{ "data": null, "accord": {"key": "k", "owner": "o", "protect": false} }')).toEqual({
      owner: 'o',
      key: 'k',
      protect: false,
      data: null,
      hasData: true,
    });
  });

  it('reads a marker with JSON whitespace around it as the marker it is', () => {
    const marker = '{"accord":{"owner":"o","key":"k"}}';
    for (const pad of [' ', '\n', '\t', '\r\n', '  \n ']) {
      expect(decodeMarker(`${pad}${marker}`), JSON.stringify(pad)).toEqual(decodeMarker(marker));
      expect(decodeMarker(`${pad}${marker}${pad}`), JSON.stringify(pad)).toEqual(decodeMarker(marker));
    }
    // Not JSON whitespace: JSON.parse refuses it, so it is no marker.
    expect(decodeMarker(`\u00a0${marker}`)).toBeUndefined();
    expect(decodeMarker('   ')).toBeUndefined();
  });

  it("reads a marker from a newer version as this owner's, keeping the fields it does not know", () => {
    const future =
      '{"accord":{"owner":"o","key":"k","protect":true,"applied":"1abc","since":{"v":2}},"data":[1],"note":"n"}';
    const m = decodeMarker(future);
    expect(m).toEqual({
      owner: 'o',
      key: 'k',
      protect: true,
      applied: '1abc',
      data: [1],
      hasData: true,
      unknown: { accord: { since: { v: 2 } }, top: { note: 'n' } },
    });
    expect(
      JSON.parse(encodeMarker('o', 'k', true, [1], { applied: m!.applied, unknown: m!.unknown })),
    ).toEqual(JSON.parse(future));
    expect(decodeMarker('{"accord":{"owner":"o","key":"k"}}')!.unknown).toBeUndefined();
  });

  it('reads an applied fingerprint of another shape as none', () => {
    const m = decodeMarker('{"accord":{"owner":"o","key":"k","applied":{"v":2}}}')!;
    expect(m.applied).toBeUndefined();
    expect(m.unknown).toBeUndefined();
    expect(encodeMarker('o', 'k', false, undefined, { applied: '1abc' })).toBe(
      '{"accord":{"owner":"o","key":"k","applied":"1abc"}}',
    );
  });

  it('keeps a "__proto__" field as data, never as a prototype', () => {
    const m = decodeMarker('{"accord":{"owner":"o","key":"k","__proto__":{"polluted":1}}}')!;
    expect(Object.keys(m.unknown!.accord)).toEqual(['__proto__']);
    const again = encodeMarker('o', 'k', false, undefined, { unknown: m.unknown });
    expect(again).toBe('{"accord":{"owner":"o","key":"k","__proto__":{"polluted":1}}}');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('the known fields win over unknown ones of the same name when encoding', () => {
    const text = encodeMarker('o', 'k', false, 'd', {
      unknown: { accord: { owner: 'x', protect: true }, top: { data: 1, z: 2 } },
    });
    expect(text).toBe('{"accord":{"owner":"o","key":"k"},"data":"d","z":2}');
  });

  it('decodes what it encodes, unknown fields included', () => {
    const name = fc.string({ minLength: 1 });
    fc.assert(
      fc.property(
        fc.dictionary(name, fc.jsonValue()),
        fc.dictionary(name, fc.jsonValue()),
        fc.option(fc.jsonValue(), { nil: undefined }),
        (accord, top, data) => {
          const text = encodeMarker('o', 'k', false, data, { unknown: { accord, top } });
          const m = decodeMarker(text)!;
          expect(m).toMatchObject({ owner: 'o', key: 'k' });
          expect(encodeMarker(m.owner, m.key, m.protect, m.data, { unknown: m.unknown })).toBe(text);
        },
      ),
    );
  });

  it.each([
    undefined,
    '',
    'team=platform',
    '{"team":"platform"}',
    '[1]',
    '{"accord":null}',
    '{"accord":{"owner":"o"}}',
    '{"accord":{"owner":"","key":"k"}}',
    '{"accord":{"owner":"o","key":1}}',
    '{"accord":{"owner":"o","key":"k","protect":"yes"}}',
    '{"accord":{"owner":"o","key":"k"}',
  ])('treats %j as unmanaged', (metadata) => {
    expect(decodeMarker(metadata)).toBeUndefined();
  });
});
