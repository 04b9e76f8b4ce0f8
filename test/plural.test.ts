// One helper puts every counted noun of every message in the right number; no message builds its own.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { count } from '../src/plural.js';

describe('count', () => {
  it.each([
    [0, 'change', undefined, '0 changes'],
    [1, 'change', undefined, '1 change'],
    [2, 'change', undefined, '2 changes'],
    [1, 'SSH host certificate', undefined, '1 SSH host certificate'],
    [3, 'entry', 'entries', '3 entries'],
    [1, 'entry', 'entries', '1 entry'],
  ])('count(%i, %s, %s) is "%s"', (n, one, many, text) => {
    expect(count(n, one, many)).toBe(text);
  });

  it('is singular exactly for one', () => {
    fc.assert(
      fc.property(fc.nat(), (n) => {
        expect(count(n, 'resource') === `${n} resource`).toBe(n === 1);
      }),
    );
  });
});

describe('messages', () => {
  it('no file in src/ picks singular or plural by itself (`n === 1 ? ...`) for a counted noun', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
      );
    const offenders = files('src')
      .filter((f) => f !== join('src', 'plural.ts'))
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .map((line, i) => ({ where: `${f}:${i + 1}`, line }))
          // A number put before a noun chosen by the number, as `${n} ${n === 1 ? 'x' : 'xs'}`.
          .filter(({ line }) => /\$\{\w+\} \$\{\w+ === 1 \?|\$\{\w+\}\$\{\w+ === 1 \? '' : 's'\}/.test(line)),
      );
    expect(offenders).toEqual([]);
  });
});
