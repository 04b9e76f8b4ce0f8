// The repository installs with `npm ci` on any platform: the committed lock matches package.json and
// lists every platform's optional binary, and the project's own CI installs that way.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  it("the project's CI runs the tests as root from a clone only its owner can read", () => {
    const script = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    expect(script).toMatch(/^private=\$\(mktemp -d\)$/m);
    expect(script).toMatch(/^git clone -q --no-hardlinks \. "\$private\/accord"$/m);
    expect(script).toMatch(/^\(cd "\$private\/accord" && \$SUDO env "PATH=\$PATH" npm test\)$/m);
  });
});

// better-sqlite3 (a compiled module, minutes to build where no prebuilt one can be fetched) is an
// optional dependency that only `accord serve` loads: an install without it plans and applies. The
// packed tarball is installed into a project: npm ignores --omit for a global install of a tarball
// (npm/cli#8284), which a registry install is not.
describe('a packed install with --omit=optional, against a service started from a full install', () => {
  const KEY = 'test-key-omit-optional-4e1c9a';
  const pkgName = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string }).name;
  const dir = mkdtempSync(join(tmpdir(), 'accord-omit-optional-'));
  const project = join(dir, 'project');
  const installed = join(project, 'node_modules', pkgName);
  const env = {
    PATH: `${join(project, 'node_modules', '.bin')}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    HOME: dir,
    npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? dir, '.npm'),
  };
  let service: { url: string; close(): Promise<void> } | undefined;

  beforeAll(async () => {
    // --ignore-scripts: `prepare` would rebuild dist/ under the tests that are running from it.
    const packed = await runProcess(
      'npm',
      ['pack', '--ignore-scripts', '--json', '--pack-destination', dir],
      {
        cwd: ROOT,
        env: process.env,
      },
    );
    expect(packed.code, packed.stderr).toBe(0);
    const [info] = JSON.parse(packed.stdout) as { filename: string }[];
    if (!info) throw new Error(`npm pack printed no package: ${packed.stdout}`);
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{"name": "project", "private": true}\n');
    const install = await runProcess(
      'npm',
      [
        'install',
        join(dir, info.filename),
        '--omit=optional',
        // No package left needs an install step; accord's own `prepare` is for a checkout.
        '--ignore-scripts',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
      ],
      { cwd: project, env: { ...process.env, ...env } },
    );
    expect(install.code, install.stderr).toBe(0);
    // The full install: this repository, with better-sqlite3 built.
    const { startServer } = await import('../../src/server/index.js');
    service = await startServer({ port: 0, apiKeys: [KEY], seed: join(ROOT, 'examples', 'seed.yaml') });
  }, 180_000);

  afterAll(async () => {
    await service?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const accord = (args: string[]) =>
    runProcess('accord', args, {
      cwd: project,
      env: { ...env, ACCORD_API_URL: service?.url ?? '', ACCORD_API_KEY: KEY },
    });

  it('leaves better-sqlite3 out', () => {
    expect(existsSync(join(installed, 'node_modules', 'better-sqlite3'))).toBe(false);
    expect(existsSync(join(installed, 'dist', 'bundle', 'main.js'))).toBe(true);
  });

  it('runs validate, plan and apply, then plans no changes', async () => {
    const file = join(ROOT, 'examples', 'accord.yaml');
    const validate = await accord(['validate', '-f', file]);
    expect(validate.code, validate.stderr).toBe(0);
    const plan = await accord(['plan', '-f', file, '--detailed-exitcode']);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toMatch(/Plan: \d+ to create/);
    const apply = await accord(['apply', '-f', file, '--auto-approve']);
    expect(apply.code, apply.stderr).toBe(0);
    const again = await accord(['plan', '-f', file, '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes.');
  });

  it('accord serve says what to install, in one paragraph', async () => {
    const serve = await accord(['serve', '--port', '0']);
    expect(serve.code).toBe(1);
    expect(serve.stderr).toBe(
      'Error: accord serve stores its data with better-sqlite3, an optional dependency that is not installed ' +
        'here (an install with --omit=optional, or one where its build failed); validate, plan, apply and the ' +
        'other commands do not need it. To run accord serve, install accord again without --omit=optional ' +
        `(\`npm install -g ${pkgName}\`), or run \`npm install --no-save --omit=dev better-sqlite3@` +
        `${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { optionalDependencies: Record<string, string> }).optionalDependencies['better-sqlite3']}\` in ${installed}.\n`,
    );
  });
});
