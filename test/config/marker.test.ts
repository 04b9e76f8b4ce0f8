import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeMarker, encodeMarker, markerBudgetLeft } from '../../src/config/index.js';

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
    '{"accord":{"owner":"o","key":"k","extra":1}}',
    '{"accord":{"owner":"o","key":"k"},"other":1}',
    '{"accord":{"owner":"o","key":"k"}',
  ])('treats %j as unmanaged', (metadata) => {
    expect(decodeMarker(metadata)).toBeUndefined();
  });
});
