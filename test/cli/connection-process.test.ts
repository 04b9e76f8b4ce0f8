// The connection options through the built CLI as a process (run `npm run build` first; `npm test`
// does): --stats, --verbose traces, and that the key shows up nowhere, also when it is wrong.
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { useSeededService } from '../support/server.js';

const KEY = 'proc_Key_ZZq81bd0b6e4f2a9c7';
const BIN = resolve('bin/accord.js');
const EXAMPLE = resolve('examples/accord.yaml');
const dir = mkdtempSync(join(tmpdir(), 'accord-proc-'));

const server = useSeededService(KEY);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function accord(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      cwd: dir,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('accord plan with the connection options', () => {
  it('prints --stats and --verbose traces to stderr; the key appears in no output or file', async () => {
    const keyFile = join(dir, 'key');
    writeFileSync(keyFile, `${KEY}\n`, { mode: 0o600 });
    const out = join(dir, 'plan.json');
    const r = await accord(
      [
        'plan',
        '-f',
        EXAMPLE,
        '--api-key-file',
        keyFile,
        '--stats',
        '--verbose',
        '--out',
        out,
        '--rate-limit',
        '100/1',
      ],
      { ACCORD_API_URL: server.url },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\[api\] GET \/ip_restrictions\?limit=100 -> 200 in \d+ ms/);
    expect(r.stderr).toMatch(/^API requests: \d+ \(0 retries\) in \d+\.\d\d s$/m);
    expect(r.stderr).toMatch(/^ {2}GET +\d+ {2}\(200: \d+/m);
    for (const text of [r.stdout, r.stderr, readFileSync(out, 'utf8')]) expect(text).not.toContain(KEY);
  });

  it('a wrong key is a clear error that does not show the key', async () => {
    const wrong = 'wrong_Key_4f1a9bd77c0e35';
    const r = await accord(['plan', '-f', EXAMPLE, '--verbose'], {
      ACCORD_API_URL: server.url,
      ACCORD_API_KEY: wrong,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Error: GET \/\S+ failed with 401 ERR_AUTH_INVALID: .*Check the API key/m);
    expect(r.stdout + r.stderr).not.toContain(wrong);
  });

  it('refuses a key file that others can read', async () => {
    const keyFile = join(dir, 'open-key');
    writeFileSync(keyFile, KEY);
    chmodSync(keyFile, 0o644);
    const r = await accord(['plan', '-f', EXAMPLE, '--api-key-file', keyFile], {
      ACCORD_API_URL: server.url,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^Error: --api-key-file .*open-key can be read by other users \(mode 644\); run chmod 600/m,
    );
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });
});
