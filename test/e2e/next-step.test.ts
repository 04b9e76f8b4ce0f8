// `accord export`'s "Next:" step, followed as written against `accord serve` (processes; needs
// `npm run build`): with an owner that already manages resources, the step plans only adopts; and the
// file planned alone, which would delete what it leaves out, warns of each scope it opens to everyone.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextStep } from '../../src/cli/commands/export.js';
import { runProcess } from '../support/cli.js';
import { CLI, SEED } from '../support/server.js';

const KEY = 'next-step-test-key-0123456789';

const MANAGED = `version: 1
owner: platform
ip_policies:
  office: { rules: [{ allow: 203.0.113.0/24 }] }
  vpn: { rules: [{ allow: 198.51.100.0/24 }] }
  ci: { rules: [{ allow: 192.0.2.0/24 }] }
ip_restrictions:
  dashboard: { type: dashboard, enforced: true, ip_policies: [office, vpn] }
  api: { type: api, enforced: true, ip_policies: [vpn, ci] }
`;

let server: ChildProcess | undefined;
let url = '';

/** `accord serve` as a process, seeded; resolves with its URL once it listens. */
function serve(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--api-key', KEY, '--seed', SEED], {
      env: { ...process.env, ACCORD_SERVE_API_KEYS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server = child;
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const found = /listening on (\S+)/.exec(out)?.[1];
      if (found) resolve(found);
    });
    child.on('exit', (code) => reject(new Error(`accord serve exited ${code}`)));
  });
}

beforeAll(async () => {
  url = await serve();
});
afterAll(() => {
  server?.kill('SIGTERM');
});

const accord = (cwd: string, args: string[]) =>
  runProcess(process.execPath, [CLI, ...args], {
    cwd,
    env: { ...process.env, ACCORD_API_URL: url, ACCORD_API_KEY: KEY, NO_COLOR: '1' },
  });

/** The actions of a plan's changes that do something, as `action address`. */
async function planned(cwd: string, files: string[]): Promise<{ code: number | null; actions: string[] }> {
  const run = await accord(cwd, ['plan', ...files.flatMap((f) => ['-f', f]), '--json']);
  const plan = JSON.parse(run.stdout) as { changes: { action: string; address: string }[] };
  const actions = plan.changes.filter((c) => c.action !== 'no-op').map((c) => `${c.action} ${c.address}`);
  return { code: run.code, actions };
}

describe('export after the owner already manages resources (processes)', () => {
  it('prints a next step that, followed as written, plans only adopts; the file alone warns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'accord-next-step-'));
    writeFileSync(join(dir, 'managed.yaml'), MANAGED);
    const applied = await accord(dir, ['apply', '-f', 'managed.yaml', '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);

    const exported = await accord(dir, ['export', '--owner', 'platform', '-o', 'adopted.yaml']);
    expect(exported.code, exported.stderr).toBe(0);
    const next = /^Next: .*$/m.exec(exported.stderr)?.[0] ?? '';
    expect(next).toBe(
      `Next: review it, then plan it together with the files that hold owner "platform"'s 5 resources: ` +
        'accord plan -f adopted.yaml -f YOUR_FILE... (it should show only adopts). Planned alone, adopted.yaml ' +
        'would delete them; to have adopted.yaml hold them too, export again with --include-managed --force.',
    );

    // The step as written, with the file that holds the owner's resources.
    const command = /accord (plan -f \S+ -f YOUR_FILE\.\.\.)/.exec(next)![1]!.split(' ');
    const together = command
      .filter((a) => a !== 'plan' && a !== '-f')
      .map((f) => (f === 'YOUR_FILE...' ? 'managed.yaml' : f));
    const both = await planned(dir, together);
    expect(both.code).toBe(0);
    expect(both.actions).not.toHaveLength(0);
    for (const a of both.actions) expect(a).toMatch(/^adopt /);

    // The other way it gives: export again with --include-managed --force, then the file alone.
    const again = await accord(dir, [
      'export',
      '--owner',
      'platform',
      '-o',
      'adopted.yaml',
      '--include-managed',
      '--force',
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(
      'Next: review it, then run accord plan -f adopted.yaml (it should show only adopts).',
    );
    const whole = await planned(dir, ['adopted.yaml']);
    expect(whole.actions).toEqual(both.actions);
  });

  it('the file of adopts planned alone deletes the restrictions, and each opened scope is warned of', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'accord-next-step-'));
    const exported = await accord(dir, ['export', '--owner', 'platform', '-o', 'adopted.yaml']);
    expect(exported.code, exported.stderr).toBe(0);
    // The threshold out of the way, as it is for an owner of fewer than 10 resources: a warning, exit 0.
    const run = await accord(dir, ['plan', '-f', 'adopted.yaml', '--max-destroy-percent', '100']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('dashboard: 198.51.100.0/24, 203.0.113.0/24 only -> everyone');
    expect(run.stdout).toContain(
      '! dashboard: everyone would be let through (today: only 198.51.100.0/24, 203.0.113.0/24): ' +
        'this plan deletes ip_restrictions.dashboard; if it is to stay, plan the file that holds its entry too',
    );
    expect(run.stdout).toContain(
      '! api: everyone would be let through (today: only 192.0.2.0/24, 198.51.100.0/24)',
    );
  });
});

describe('nextStep', () => {
  it.each([
    [0, 'Next: review it, then run accord plan -f accord.yaml (it should show only adopts).\n'],
    [
      1,
      `Next: review it, then plan it together with the files that hold owner "ops"'s 1 resource: accord plan -f accord.yaml -f YOUR_FILE... (it should show only adopts). Planned alone, accord.yaml would delete it; to have accord.yaml hold it too, export again with --include-managed --force.\n`,
    ],
  ])('%i left out', (left, text) => {
    expect(nextStep('accord.yaml', left, 'ops')).toBe(text);
  });
});
