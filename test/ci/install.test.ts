// The repository installs with `npm ci` on any platform: the committed lock matches package.json and
// lists every platform's optional binary, and the project's own CI installs that way.
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../support/cli.js';
import { ROOT } from '../support/server.js';

interface LockEntry {
  version?: string;
  optionalDependencies?: Record<string, string>;
}

/** Where Node would find `name` from the package at `from` (a lock key), or undefined. */
function resolveInLock(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    if (candidate in packages) return candidate;
    if (!base) return undefined;
    const at = base.lastIndexOf('/node_modules/');
    base = at >= 0 ? base.slice(0, at) : '';
  }
}

describe('installing the repository', () => {
  it('the lock lists every optional dependency of every locked package, for every platform', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, LockEntry>;
    };
    const missing: string[] = [];
    for (const [key, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (resolveInLock(lock.packages, key, name) === undefined) missing.push(`${key || '.'} -> ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('`npm ci` accepts package.json and the lock as committed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'accord-npm-ci-'));
    copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    copyFileSync(join(ROOT, 'package-lock.json'), join(dir, 'package-lock.json'));
    // --dry-run checks the lock against package.json exactly as a real `npm ci` does, without fetching.
    const run = await runProcess(
      'npm',
      ['ci', '--dry-run', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'],
      { cwd: dir, env: process.env },
    );
    expect(run.stderr).not.toMatch(/npm error/);
    expect(run.code).toBe(0);
  });

  it("the project's CI installs with `npm ci`", () => {
    const script = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    const commands = script.split('\n').filter((l) => !l.trim().startsWith('#'));
    // `VAR=value npm ci` counts: the script may set npm's configuration for the one command.
    expect(commands.some((l) => /^\s*(\w+=\S*\s+)*npm ci\b/.test(l))).toBe(true);
    expect(commands.some((l) => /\bnpm (install|i)\b/.test(l))).toBe(false);
  });
});
