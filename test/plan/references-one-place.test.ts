// A value known only after apply is made and read in one place, src/plan/references.ts
// (`knownAfterApply` and `awaitedAddress`): no other code writes or parses its text, so that what it
// is can change there alone.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { awaitedAddress, knownAfterApply } from '../../src/plan/references.js';

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

describe('values known after apply', () => {
  it('are spelled by src/plan/references.ts alone', () => {
    const found = sourceFiles('src')
      .filter((f) => !f.includes('/generated/') && f !== join('src', 'plan', 'references.ts'))
      .flatMap((f) => spellings(f).map((line) => `${f}: ${line.trim()}`));
    expect(found).toEqual([]);
  });

  it('read back as the address that made them, and nothing else reads as one', () => {
    for (const address of ['ip_policies.office', 'ip_policies.a.b', 'x']) {
      expect(awaitedAddress(knownAfterApply(address))).toBe(address);
    }
    for (const value of [
      'ipp_1',
      'known after apply: x',
      '',
      1,
      null,
      undefined,
      ['(known after apply: x)'],
    ]) {
      expect(awaitedAddress(value)).toBeUndefined();
    }
  });
});
