// An ID known only after apply is a value of its own (src/resources/known-after-apply.ts), like
// Terraform's unknown values: made and shown there alone, told apart by its type, never by its text.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fillKnownAfterApply, holdsKnownAfterApply, knownAfterApply } from '../../src/plan/references.js';
import {
  awaitedAddress,
  idLabel,
  KnownAfterApply,
  plannedIdSet,
} from '../../src/resources/known-after-apply.js';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The lines of code (comments left out) of a file that spell the value's text. */
function spellings(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*|\/\*\*)/.test(line))
    .filter((line) => /known after apply:|\\\(known/.test(line));
}

describe('IDs known after apply', () => {
  it('are spelled by src/resources/known-after-apply.ts alone', () => {
    const found = sourceFiles('src')
      .filter((f) => !f.includes('/generated/') && f !== join('src', 'resources', 'known-after-apply.ts'))
      .flatMap((f) => spellings(f).map((line) => `${f}: ${line.trim()}`));
    expect(found).toEqual([]);
  });

  it('read back as the address that made them; no text, however it reads, is one', () => {
    for (const address of ['ip_policies.office', 'ip_policies.a.b', 'x']) {
      expect(awaitedAddress(knownAfterApply(address))).toBe(address);
      expect(idLabel(knownAfterApply(address))).toBe(address);
    }
    for (const value of [
      'ipp_1',
      '(known after apply: x)',
      'known after apply: x',
      '',
      1,
      null,
      undefined,
      ['(known after apply: x)'],
      { address: 'x' },
    ]) {
      expect(awaitedAddress(value)).toBeUndefined();
      expect(holdsKnownAfterApply(value)).toBe(false);
    }
  });

  it('is one value per address, shown in JSON as the plan has always shown it', () => {
    const office = knownAfterApply('ip_policies.office');
    expect(knownAfterApply('ip_policies.office')).toBe(office);
    expect(new Set([office, KnownAfterApply.of('ip_policies.office')]).size).toBe(1);
    expect(JSON.stringify({ ip_policies: [office] })).toBe(
      '{"ip_policies":["(known after apply: ip_policies.office)"]}',
    );
    expect(Object.isFrozen(office)).toBe(true);
  });

  it('is filled in where it stands, in lists and documents alike, and nowhere else', () => {
    const office = knownAfterApply('ip_policies.office');
    const value = {
      ip_policies: ['ipp_live', office],
      doc: { on_http_request: [{ actions: [{ config: { ip_policies: [office] } }] }] },
      // Text that reads like one is a value as written: left alone.
      description: '(known after apply: ip_policies.office)',
    };
    expect(holdsKnownAfterApply(value)).toBe(true);
    const filled = fillKnownAfterApply(value, (a) => (a === 'ip_policies.office' ? 'ipp_made' : undefined));
    expect(filled).toEqual({
      ip_policies: ['ipp_live', 'ipp_made'],
      doc: { on_http_request: [{ actions: [{ config: { ip_policies: ['ipp_made'] } }] }] },
      description: '(known after apply: ip_policies.office)',
    });
    expect(() => fillKnownAfterApply([office], () => undefined)).toThrow(/ip_policies\.office/);
  });

  it('sets of IDs keep the order the plan has always shown, each ID once (property)', () => {
    const id = fc.oneof(
      fc.stringMatching(/^ipp_[a-z0-9]{1,4}$/),
      fc.stringMatching(/^[a-z]{1,4}$/).map((k) => knownAfterApply(`ip_policies.${k}`)),
    );
    fc.assert(
      fc.property(fc.array(id, { maxLength: 8 }), (ids) => {
        const set = plannedIdSet(ids);
        const text = [...new Set(ids.map((i) => JSON.stringify(i)))].sort();
        expect(set.map((i) => JSON.stringify(i))).toEqual(text.map((t) => t));
        for (const i of set) expect(ids).toContain(i);
      }),
    );
  });
});
