// The package as a user gets it: `npm pack`, then a global install of the tarball into a fresh prefix
// (dependencies only, as any install of a published package), and the installed `accord` run as a user
// would: --version, init, validate on what init wrote, and plan against its own `accord serve`.
//
// better-sqlite3 is the one dependency with an install step (it downloads a prebuilt native module or
// compiles one, a minute on two cores). The install runs without scripts and takes the module this
// repository already built for the running Node.js: package.json pins better-sqlite3 to one exact
// version, so the installed JavaScript and that module are the same release (checked below).
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../support/cli.js';
import { ROOT } from '../support/server.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
};
const NATIVE = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
const KEY = 'test-key-package-0123456789';

describe(`the ${pkg.name} package`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'accord-package-'));
  const prefix = join(dir, 'prefix');
  const project = join(dir, 'project');
  const installed = join(prefix, 'lib', 'node_modules', pkg.name);
  // The installed command, found on PATH as a user's shell would, run by this Node.js.
  const env = {
    PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    HOME: dir,
    npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? dir, '.npm'),
  };
  const accord = (args: string[], extra: Record<string, string> = {}) =>
    runProcess('accord', args, { cwd: project, env: { ...env, ...extra } });
  let files: string[] = [];
  let size = 0;
  let serve: ChildProcess | undefined;

  beforeAll(async () => {
    // --ignore-scripts: `prepare` would rebuild dist/ under the tests that are running from it.
    const packed = await runProcess(
      'npm',
      ['pack', '--ignore-scripts', '--json', '--pack-destination', dir],
      { cwd: ROOT, env: process.env },
    );
    expect(packed.code, packed.stderr).toBe(0);
    const [info] = JSON.parse(packed.stdout) as {
      filename: string;
      size: number;
      files: { path: string }[];
    }[];
    if (!info) throw new Error(`npm pack printed no package: ${packed.stdout}`);
    files = info.files.map((f) => f.path);
    size = info.size;
    const install = await runProcess(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        join(dir, info.filename),
        '--ignore-scripts',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
      ],
      { cwd: dir, env: { ...process.env, ...env } },
    );
    expect(install.code, install.stderr).toBe(0);
    const module = join(installed, NATIVE);
    mkdirSync(dirname(module), { recursive: true });
    copyFileSync(join(ROOT, NATIVE), module);
    mkdirSync(project);
  }, 180_000);

  afterAll(() => {
    serve?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds only what runs: the built code, the schemas, the CI recipes init writes, the README and the LICENSE', () => {
    const tops = [
      ...new Set(
        files.map((f) =>
          f
            .split('/')
            .slice(0, f.startsWith('examples/') ? 2 : 1)
            .join('/'),
        ),
      ),
    ];
    expect(tops.sort()).toEqual([
      'LICENSE',
      'README.md',
      'bin',
      'dist',
      'examples/ci',
      'examples/seed.yaml',
      'package.json',
      'schemas',
    ]);
    expect(files.filter((f) => /\.(map|ts)$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    expect(files).toContain('dist/bundle/main.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('schemas/accord.schema.json');
    // Packed, it stays small: the size this check allows is about 1.2 times today's (412 KB, most of
    // it the schemas' compiled validators).
    expect(size).toBeLessThan(500_000);
  });

  it('installs its dependencies and none of the development ones, the optional better-sqlite3 at the pinned version', () => {
    const deps = join(installed, 'node_modules');
    for (const name of Object.keys(pkg.dependencies)) expect(existsSync(join(deps, name)), name).toBe(true);
    for (const dev of ['vitest', 'typescript', '@biomejs/biome', 'fast-check'])
      expect(existsSync(join(deps, dev)), dev).toBe(false);
    const sqlite = JSON.parse(readFileSync(join(deps, 'better-sqlite3', 'package.json'), 'utf8'));
    expect(sqlite.version).toBe(pkg.optionalDependencies['better-sqlite3']);
    expect(
      JSON.parse(readFileSync(join(ROOT, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')).version,
    ).toBe(sqlite.version);
  });

  it('runs: --version, init, validate what init wrote, and plan against its own accord serve', async () => {
    const version = await accord(['--version']);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout).toBe(`accord ${pkg.version} (npm package ${pkg.name})\n`);

    const init = await accord(['init', '--ci', 'github']);
    expect(init.code, init.stderr).toBe(0);
    expect(readFileSync(join(project, 'accord.yaml'), 'utf8')).toMatch(
      /^# yaml-language-server: \$schema=\.\/accord\.schema\.json\n/,
    );
    expect(existsSync(join(project, 'accord.schema.json'))).toBe(true);
    expect(existsSync(join(project, '.github', 'workflows', 'accord.yml'))).toBe(true);

    const validate = await accord(['validate']);
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toMatch(/^accord\.yaml is valid: /);

    // The demo seed as the docs give it, from a directory without it: the package's own.
    const args = ['serve', '--port', '0', '--api-key', KEY, '--seed', 'examples/seed.yaml'];
    const child = spawn('accord', args, { cwd: project, env });
    serve = child;
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => {
        out += d;
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m?.[1]) resolve(m[1]);
      });
      child.stderr.on('data', (d) => {
        err += d;
      });
      child.on('close', (code) => reject(new Error(`accord serve exited ${code}: ${out}${err}`)));
    });
    const plan = await accord(['plan', '--detailed-exitcode'], { ACCORD_API_URL: url, ACCORD_API_KEY: KEY });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes.');
    const seeded = await fetch(`${url}/ip_policies`, {
      headers: { authorization: `Bearer ${KEY}`, 'ngrok-version': '2' },
    });
    expect(await seeded.text()).toContain('ipp_2demoOffice0000000000000000');
  });
});
