// The README's promises that can drift: exactly two quick-start commands, the benchmark table quoted
// from bench/results.md, and links to files that exist.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/server.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

describe('README.md', () => {
  it('starts with two commands: one runs the demo, one runs the tests', () => {
    const quick = /^## Quick start\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
    const commands = /```sh\n([\s\S]*?)```/.exec(quick)?.[1]?.trim().split('\n');
    expect(commands).toEqual(['npm install && npm run demo', 'npm test']);
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;
    expect(scripts.demo).toBe('node scripts/demo.mjs');
    expect(scripts.prepare).toBe('npm run build');
  });

  it('quotes the benchmark table of bench/results.md as it is', () => {
    const quoted = /<!-- bench:start -->\n([\s\S]*?)<!-- bench:end -->/.exec(readme)?.[1] ?? '';
    const results = readFileSync(join(ROOT, 'bench', 'results.md'), 'utf8');
    // Rows of cells, whatever the padding a formatter gave the README's copy.
    const table = (text: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith('|') && !/^\|[\s|:-]+\|$/.test(l))
        .map((l) => l.split(/(?<!\\)\|/).map((cell) => cell.trim()))
        .map((cells) => cells.join(' | '))
        .join('\n');
    expect(table(quoted)).not.toBe('');
    expect(table(quoted)).toBe(table(results));
  });

  it('links only to files that exist', () => {
    const links = [...readme.matchAll(/\]\(((?!https?:|#)[^)#]+)(#[^)]*)?\)/g)].map((m) => m[1] ?? '');
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) expect(existsSync(join(ROOT, link)), link).toBe(true);
  });
});
