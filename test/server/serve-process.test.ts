// `accord serve` as a process (needs `npm run build`): start-up output, shutdown, and durability on kill -9.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/accord.js', import.meta.url).pathname;
const KEY = 'serve-process-key-0123';

interface Started {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function serve(args: string[], env: NodeJS.ProcessEnv = {}, ready = /listening on \S+\n/): Promise<Started> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    env: { ...process.env, ACCORD_SERVE_API_KEYS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
    (resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr: err })),
  );
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const url = /listening on (\S+)/.exec(out)?.[1];
      if (url && ready.test(out)) resolve({ child, url, stdout: () => out, exited });
    });
    void exited.then(({ code, stderr }) => reject(new Error(`accord serve exited ${code}: ${stderr}`)));
  });
}

const headers = (key: string) => ({
  authorization: `Bearer ${key}`,
  'service-version': '2',
  'content-type': 'application/json',
});

describe('accord serve (process)', () => {
  it('prints its URL and a generated key once, serves, and shuts down on SIGTERM', async () => {
    const s = await serve([], {}, /API key \(shown once\): \S+\n/);
    const key = /API key \(shown once\): (\S+)/.exec(s.stdout())?.[1];
    expect(key).toBeDefined();
    expect(s.stdout().split(key!).length).toBe(2);
    const res = await fetch(`${s.url}/ip_policies`, { headers: headers(key!) });
    expect(res.status).toBe(200);
    s.child.kill('SIGTERM');
    const exit = await s.exited;
    expect(exit.code).toBe(0);
    expect(exit.stderr).toContain('SIGTERM: shutting down');
  });

  it('takes keys from ACCORD_SERVE_API_KEYS and never prints them', async () => {
    const s = await serve(['--seed', new URL('../../examples/seed.yaml', import.meta.url).pathname], {
      ACCORD_SERVE_API_KEYS: 'alpha-key-0123456789, beta-key-0123456789',
    });
    expect(s.stdout()).not.toContain('API key');
    for (const key of ['alpha-key-0123456789', 'beta-key-0123456789']) {
      const res = await fetch(`${s.url}/edges/tcp`, { headers: headers(key) });
      expect(res.status).toBe(200);
    }
    s.child.kill('SIGINT');
    expect((await s.exited).code).toBe(0);
    expect(s.stdout()).not.toContain('alpha-key');
  });

  it('refuses past --limits with the production codes', async () => {
    const s = await serve(['--api-key', KEY, '--limits', 'policies=1,rules_per_policy=1']);
    const post = (path: string, body: unknown) =>
      fetch(`${s.url}${path}`, { method: 'POST', headers: headers(KEY), body: JSON.stringify(body) });
    const first = (await (await post('/ip_policies', {})).json()) as { id: string };
    const rule = { ip_policy_id: first.id, action: 'allow', cidr: '10.0.0.0/8' };
    expect((await post('/ip_policy_rules', rule)).status).toBe(201);
    const over = await post('/ip_policy_rules', { ...rule, cidr: '11.0.0.0/8' });
    expect(((await over.json()) as { error_code: string }).error_code).toBe('ERR_NGROK_1411');
    const second = await post('/ip_policies', {});
    expect(((await second.json()) as { error_code: string }).error_code).toBe('ERR_NGROK_1410');
    s.child.kill('SIGTERM');
    expect((await s.exited).code).toBe(0);
  });

  it('keeps every acknowledged write after kill -9 (--data, WAL)', async () => {
    const data = join(mkdtempSync(join(tmpdir(), 'accord-durable-')), 'accord.db');
    const s = await serve(['--data', data, '--api-key', KEY]);
    const acknowledged: string[] = [];
    let stop = false;
    const writer = async () => {
      while (!stop) {
        try {
          const res = await fetch(`${s.url}/ip_policies`, {
            method: 'POST',
            headers: headers(KEY),
            body: '{}',
          });
          if (res.status === 201) acknowledged.push(((await res.json()) as { id: string }).id);
        } catch {
          return; // the server died mid-request: that write was never acknowledged
        }
      }
    };
    const writers = [writer(), writer(), writer(), writer()];
    while (acknowledged.length < 150) await new Promise((r) => setImmediate(r));
    s.child.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    expect((await s.exited).signal).toBe('SIGKILL');

    const again = await serve(['--data', data, '--api-key', KEY]);
    try {
      const stored = new Set<string>();
      let next: string | null = `${again.url}/ip_policies`;
      while (next) {
        const page = (await (await fetch(next, { headers: headers(KEY) })).json()) as {
          ip_policies: { id: string }[];
          next_page_uri: string | null;
        };
        for (const p of page.ip_policies) stored.add(p.id);
        next = page.next_page_uri;
      }
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
      expect(stored.size).toBeGreaterThanOrEqual(acknowledged.length);
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
    }
  });
});
