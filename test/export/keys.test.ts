import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignKeys, idTail, KEY_PATTERN, type KeyRequest, slugify } from '../../src/export/keys.js';

const req = (id: string, base: string, created_at = '2026-01-01T00:00:00Z'): KeyRequest => ({
  id,
  base,
  created_at,
});

describe('slugify', () => {
  it.each([
    ['Web frontend', 'web-frontend'],
    ['WEB -- Frontend!', 'web-frontend'],
    ['  Café Root  ', 'cafe-root'],
    ['db.primary_01', 'db.primary_01'],
    ['--._x', 'x'],
    ['trailing...', 'trailing'],
    ['日本のサーバー', ''],
    ['   ', ''],
    ['Line one\nline two', 'line-one-line-two'],
  ])('%j -> %j', (text, slug) => {
    expect(slugify(text)).toBe(slug);
  });

  it('keeps any text within the key pattern (or empty)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const slug = slugify(text);
        expect(slug === '' || KEY_PATTERN.test(slug)).toBe(true);
      }),
    );
  });
});

describe('assignKeys', () => {
  it('gives the oldest the plain slug and the others the slug with their ID tail', () => {
    const keys = assignKeys(
      [
        req('ca_2bbbbbbbbbbbbbbbbbbbbNEWER01', 'web', '2026-02-01T00:00:00Z'),
        req('ca_2aaaaaaaaaaaaaaaaaaaaOLDER01', 'web', '2026-01-01T00:00:00Z'),
        req('ca_2cccccccccccccccccccccEmpty1', ''),
      ],
      'certificate-authority',
    );
    expect(keys.get('ca_2aaaaaaaaaaaaaaaaaaaaOLDER01')).toBe('web');
    expect(keys.get('ca_2bbbbbbbbbbbbbbbbbbbbNEWER01')).toBe('web-bnewer01');
    expect(keys.get('ca_2cccccccccccccccccccccEmpty1')).toBe('certificate-authority-ccempty1');
  });

  it('keeps older keys when newer resources arrive, and steers clear of taken keys', () => {
    const old = [req('ca_1aaaaaaaaaaaaaaaaaaaaaaaaa', 'web', '2026-01-01T00:00:00Z')];
    const before = assignKeys(old, 'x', new Set(['api']));
    const after = assignKeys(
      [...old, req('ca_1bbbbbbbbbbbbbbbbbbbbbbbbb', 'web', '2026-03-01T00:00:00Z'), req('ca_1c', 'api')],
      'x',
      new Set(['api']),
    );
    expect(after.get('ca_1aaaaaaaaaaaaaaaaaaaaaaaaa')).toBe(before.get('ca_1aaaaaaaaaaaaaaaaaaaaaaaaa'));
    expect(after.get('ca_1c')).toBe('api-1c');
  });

  it('lengthens the tail when IDs differ only in case, and cuts long bases to fit', () => {
    const keys = assignKeys(
      [
        req('ca_1xxxxxxxxxxxxxxxxxxxAbcdefgh', 'a'.repeat(63)),
        req('ca_1yyyyyyyyyyyyyyyyyyyaBCDEFGH', 'a'.repeat(63)),
      ],
      'x',
      new Set(['a'.repeat(63)]),
    );
    const values = [...keys.values()];
    expect(new Set(values).size).toBe(2);
    for (const k of values) expect(k).toMatch(KEY_PATTERN);
    expect(values[0]).toBe(`${'a'.repeat(54)}-abcdefgh`);
    expect(values[1]).toBe(`${'a'.repeat(53)}-yabcdefgh`);
  });

  it('always gives unique valid keys, whatever the order of the input', () => {
    const request = fc.record({
      id: fc.stringMatching(/^[A-Za-z0-9]{1,27}$/).map((s) => `ipx_${s}`),
      base: fc.constantFrom('', 'web', 'web-abc', 'a'.repeat(63), 'ip-restriction'),
      created_at: fc.constantFrom('2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', 'bad'),
    });
    fc.assert(
      fc.property(fc.uniqueArray(request, { selector: (r) => r.id, maxLength: 40 }), (requests) => {
        const keys = assignKeys(requests, 'ip-restriction', new Set(['web']));
        const values = [...keys.values()];
        expect(new Set(values).size).toBe(requests.length);
        expect(values).not.toContain('web');
        for (const k of values) expect(k).toMatch(KEY_PATTERN);
        expect(assignKeys([...requests].reverse(), 'ip-restriction', new Set(['web']))).toEqual(keys);
      }),
    );
  });

  it('takes the random end of an ID as its tail', () => {
    expect(idTail('shcrt_5ERZlRDo9owp9UaEw4fRDtbAi2r')).toBe('rdtbai2r');
  });
});
