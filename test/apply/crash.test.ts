// accord apply as a process (needs `npm run build`): kill -9 at random moments of a 300-change apply,
// then an apply that must converge, ten times; and Ctrl-C, which ends a run cleanly with exit 130.
// The service runs in this process, so it outlives the killed CLI. The moments come from a seed that a
// failure prints; ACCORD_CRASH_SEED=<seed> replays them (the process still dies wherever its output
// has reached when the count is seen, so a replay is close, not exact).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/server/guards.js';
import { serveSeeded, useSeededService } from '../support/server.js';
import { accord, accordFile, byKey, listAll } from './helpers.js';

const BIN = new URL('../../bin/accord.js', import.meta.url).pathname;
const KEY = 'test-key-apply-crash-0123456789';
const OWNER = 'crash';
const PROGRESS = /^(\+|-|~|-\/\+) \S+ .* \d+ ms$/;
const SEED = process.env.ACCORD_CRASH_SEED
  ? Number(process.env.ACCORD_CRASH_SEED)
  : Math.floor(Math.random() * 2 ** 32);

interface Child {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
  progressLines: number;
}

/**
 * Runs `accord apply` in a child process; `onProgress(n, child)` sees the count of finished-change
 * lines each time stdout grows, so a test can kill or interrupt it at that moment.
 */
function applyProcess(
  url: string,
  args: string[],
  onProgress: (lines: number, kill: (signal: NodeJS.Signals) => void) => void,
): Promise<Child> {
  const child = spawn(process.execPath, [BIN, 'apply', ...args], {
    env: { ...process.env, ACCORD_API_URL: url, ACCORD_API_KEY: KEY, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let killed = false;
  // Counted line by line as output arrives (rescanning all of it would stall the in-process service).
  let partial = '';
  let lines = 0;
  const kill = (signal: NodeJS.Signals) => {
    if (killed) return;
    killed = true;
    child.kill(signal);
  };
  child.stdout.on('data', (c: Buffer) => {
    const text = c.toString();
    out += text;
    const parts = (partial + text).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) if (PROGRESS.test(line)) lines++;
    onProgress(lines, kill);
  });
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  return new Promise((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, out, err, progressLines: lines })),
  );
}

describe('accord apply (process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accord-crash-'));
  const server = useSeededService(KEY);

  /**
   * Round r: 100 certificates replaced (their principals name the round), 100 created and the previous
   * round's 100 deleted, and one IP restriction whose type flips: 301 changes from round 1 on.
   */
  const round = (r: number) => {
    const kept = Array.from({ length: 100 }, (_, i) => `keep-${i}`);
    const fresh = Array.from({ length: 100 }, (_, i) => `r${r}-${i}`);
    const text = accordFile(OWNER, [...kept, ...fresh], {
      gate: { type: r % 2 === 0 ? 'dashboard' : 'api' },
    }).replaceAll(/\[(keep-\d+)\.example\.com\]/g, `[$1.r${r}.example.com]`);
    const path = join(dir, `round-${r}.yaml`);
    writeFileSync(path, text);
    return { path, hosts: [...kept, ...fresh] };
  };

  const verify = async (r: number, hosts: string[]) => {
    const ssh = byKey(
      await listAll(server.url, KEY, '/ssh_host_certificates', 'ssh_host_certificates'),
      OWNER,
    );
    expect([...ssh.keys()].sort()).toEqual([...hosts].sort());
    for (const [key, list] of ssh) {
      expect(list, `duplicates of ${key} after round ${r}`).toHaveLength(1);
      const want = key.startsWith('keep-') ? `${key}.r${r}.example.com` : `${key}.example.com`;
      expect(list[0]!['principals']).toEqual([want]);
    }
    const ipr = byKey(await listAll(server.url, KEY, '/ip_restrictions', 'ip_restrictions'), OWNER);
    expect(ipr.get('gate')?.map((o) => o['type'])).toEqual([r % 2 === 0 ? 'dashboard' : 'api']);
  };

  it('survives kill -9 at random moments: the next apply converges, with no duplicate and nothing lost', {
    timeout: 180_000,
  }, async () => {
    const first = round(0);
    const setup = await accord(server.url, KEY, [
      'apply',
      '-f',
      first.path,
      '--auto-approve',
      '--parallelism',
      '8',
    ]);
    expect(setup.code, setup.err).toBe(0);
    const random = seededRandom(SEED);
    const moments: string[] = [];
    const killAndConverge = async () => {
      for (let r = 1; r <= 10; r++) {
        const { path, hosts } = round(r);
        // Kill after a random number of finished changes (0: during planning or the first requests).
        const at = Math.floor(random() * 280);
        const args = ['-f', path, '--auto-approve', '--force', '--parallelism', '8'];
        const killed = await applyProcess(server.url, args, (lines, kill) => {
          if (lines >= at) kill('SIGKILL');
        });
        moments.push(
          `round ${r}: kill after ${at}, saw ${killed.progressLines} (${killed.signal ?? killed.code})`,
        );
        expect(killed.signal, killed.err).toBe('SIGKILL');
        const after = await accord(server.url, KEY, ['apply', ...args]);
        expect(after.code, `${after.out.slice(-2000)}${after.err}`).toBe(0);
        await verify(r, hosts);
      }
      const plan = await accord(server.url, KEY, ['plan', '-f', round(10).path, '--detailed-exitcode']);
      expect(plan.code, plan.out.slice(-2000)).toBe(0);
    };
    try {
      await killAndConverge();
    } catch (err) {
      // The seed first, so that the failure can be replayed; then the moments of each round so far.
      if (err instanceof Error) {
        err.message = `seed ${SEED} (replay: ACCORD_CRASH_SEED=${SEED})\n${moments.join('\n')}\n${err.message}`;
      }
      throw err;
    }
  });

  it('on SIGINT finishes the changes under way, prints the summary and exits 130', async () => {
    const slow = await serveSeeded(KEY, { latencyMs: 20 });
    try {
      const hosts = Array.from({ length: 40 }, (_, i) => `sig-${i}`);
      const path = join(dir, 'sigint.yaml');
      writeFileSync(path, accordFile('sigint', hosts));
      const child = await applyProcess(
        slow.url,
        ['-f', path, '--auto-approve', '--parallelism', '2'],
        (lines, kill) => {
          if (lines >= 1) kill('SIGINT');
        },
      );
      expect(child.code, child.err).toBe(130);
      expect(child.err).toContain('Interrupted: no new changes start');
      const summary = /^Apply interrupted: (\d+) created, .* (\d+) not started in /m.exec(child.out);
      expect(summary, child.out).not.toBeNull();
      const created = Number(summary![1]);
      expect(created + Number(summary![2])).toBe(40);
      expect(created).toBeLessThan(40);
      const live = byKey(
        await listAll(slow.url, KEY, '/ssh_host_certificates', 'ssh_host_certificates'),
        'sigint',
      );
      expect(live.size).toBe(created);
    } finally {
      await slow.close();
    }
  });
});
