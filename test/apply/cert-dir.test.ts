// `accord apply --cert-dir DIR` with a DIR that cannot take the certificates: the CLI as a process fails
// with one line before its first request, for a file plan and a saved plan alike, and never hangs.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/server.js';
import { accordFile } from './helpers.js';

const KEY = 'test-key-cert-dir-0123456789';
/** Far beyond what a refusal takes; only a hang reaches it, and the test then fails instead of waiting. */
const HANG_MS = 20_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  killed: boolean;
}

/** Runs `node bin/accord.js` (optionally through a wrapper such as `unshare`), killed if it hangs. */
function runCli(args: string[], env: NodeJS.ProcessEnv, wrapper: string[] = []): Promise<Run> {
  return new Promise((done, reject) => {
    const argv = [...wrapper, process.execPath, CLI, ...args];
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, HANG_MS);
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, killed });
    });
  });
}

/** Whether this machine lets an unprivileged user namespace mount a read-only tmpfs. */
function canMountReadOnly(): boolean {
  const probe = mkdtempSync(join(tmpdir(), 'accord-ro-probe-'));
  const r = spawnSync('unshare', ['-rm', 'sh', '-c', `mount -t tmpfs -o ro tmpfs '${probe}'`], {
    stdio: 'ignore',
  });
  rmSync(probe, { recursive: true, force: true });
  return r.status === 0;
}

describe('accord apply --cert-dir with a directory it cannot use', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accord-cert-dir-'));
  chmodSync(dir, 0o755);
  const requests: string[] = [];
  let server: Server;
  let env: NodeJS.ProcessEnv;
  const file = join(dir, 'accord.yaml');
  const planFile = join(dir, 'plan.json');

  beforeAll(async () => {
    // Any request at all is a failure: the check must come first. It answers 401 so that a
    // regression fails fast rather than retrying.
    server = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error_code":"ERR_AUTH_INVALID"}');
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    env = { ...process.env, ACCORD_API_URL: url, ACCORD_API_KEY: KEY, NO_COLOR: '1' };
    writeFileSync(file, accordFile('certdir', ['one']), { mode: 0o644 });
    copyFileSync(new URL('./fixtures/plan.json', import.meta.url), planFile);
    chmodSync(planFile, 0o644);
  });
  afterAll(async () => {
    await new Promise((ok) => server.close(ok));
  });

  const aFile = join(dir, 'a-file');
  writeFileSync(aFile, '');
  const cases: Array<[string, string, string]> = [
    ['a path under /proc', '/proc/accord-test/certs', 'lies on proc, a kernel file system, not on disk'],
    ['/proc itself', '/proc', 'lies on proc, a kernel file system, not on disk'],
    ['a path under /sys', '/sys/accord-test', 'lies on sysfs, a kernel file system, not on disk'],
    ['a file', aFile, 'is a file (or lies under one), not a directory'],
    ['a path under a file', join(aFile, 'certs'), 'is a file (or lies under one), not a directory'],
  ];
  const onLinux = process.platform === 'linux';

  for (const [what, certDir, why] of cases) {
    for (const [how, args] of [
      ['apply -f', ['apply', '-f', file, '--auto-approve']],
      ['apply PLAN', ['apply', planFile]],
    ] as const) {
      it.skipIf(!onLinux && certDir.startsWith('/'))(`${how}: ${what}`, async () => {
        const before = requests.length;
        const r = await runCli([...args, '--cert-dir', certDir], env);
        expect(r.killed, 'accord hung').toBe(false);
        expect(r.code).toBe(1);
        expect(r.stderr).toBe(
          `Error: --cert-dir ${certDir} ${why}; give a writable directory (it is created if missing).\n`,
        );
        expect(requests.slice(before)).toEqual([]);
      });
    }
  }

  it('a directory it has no permission to write, nor to create in', async () => {
    const locked = join(dir, 'locked');
    mkdirSync(locked, { mode: 0o555 });
    chmodSync(locked, 0o555);
    // root writes anywhere: run it as root without the capability that lets it (CAP_DAC_OVERRIDE), not
    // as another user, who may not be able to read the checkout (a private clone, or one under /root).
    const asUser = process.getuid?.() === 0 ? ['setpriv', '--bounding-set=-dac_override'] : [];
    for (const certDir of [locked, join(locked, 'certs')]) {
      const before = requests.length;
      const r = await runCli(['apply', '-f', file, '--auto-approve', '--cert-dir', certDir], env, asUser);
      expect(r.killed, 'accord hung').toBe(false);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `Error: --cert-dir ${certDir} is not writable (EACCES: no permission); give a writable directory ` +
          '(it is created if missing).\n',
      );
      expect(requests.slice(before)).toEqual([]);
    }
  });

  it.skipIf(!onLinux || !canMountReadOnly())('a directory on a read-only file system', async () => {
    const mountPoint = join(dir, 'read-only');
    mkdirSync(mountPoint);
    for (const certDir of [mountPoint, join(mountPoint, 'certs')]) {
      const before = requests.length;
      const r = await runCli(['apply', '-f', file, '--auto-approve', '--cert-dir', certDir], env, [
        'unshare',
        '-rm',
        'sh',
        '-c',
        `mount -t tmpfs -o ro tmpfs '${mountPoint}' && exec "$@"`,
        'sh',
      ]);
      expect(r.killed, 'accord hung').toBe(false);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `Error: --cert-dir ${certDir} is not writable (EROFS: a read-only file system); give a writable ` +
          'directory (it is created if missing).\n',
      );
      expect(requests.slice(before)).toEqual([]);
    }
  });
});
