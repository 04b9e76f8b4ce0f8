// No window, ever (DESIGN §2 "Slots"), end to end: against `accord serve` with 150 ms of latency per
// request, the account is polled every 15 ms while `apply` renames, swaps and rotates IP restrictions;
// no poll ever sees a wanted type without its restriction, and every restriction keeps its ID. A
// renamed CA keeps its ID too. Two applies of one file at once leave duplicates that the next plain
// apply removes without --force.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeCaPemSync } from '../support/ca.js';
import { useSeededService } from '../support/server.js';
import { accord, accordFile, listAll, markerOf, type Obj, OFFICE } from './helpers.js';

const KEY = 'no-window-key';
const OWNER = 'slots';
const TYPES = ['dashboard', 'api', 'agent'];
const server = useSeededService(KEY, { latencyMs: 150 });
const dir = mkdtempSync(join(tmpdir(), 'accord-no-window-'));

function restrictionsFile(restrictions: Record<string, string>): string {
  const path = join(dir, 'accord.yaml');
  const lines = ['version: 1', `owner: ${OWNER}`, 'ip_restrictions:'];
  for (const [key, type] of Object.entries(restrictions)) {
    lines.push(`  ${key}:`, `    type: ${type}`, '    enforced: true', `    ip_policies: [${OFFICE}]`);
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** The types restricted in the account, by ID, one page read as it is at one moment. */
async function restricted(): Promise<Map<string, string>> {
  const res = await fetch(`${server.url}/ip_restrictions?limit=100`, {
    headers: { authorization: `Bearer ${KEY}`, 'service-version': '2' },
  });
  const body = (await res.json()) as { ip_restrictions: Obj[] };
  return new Map(body.ip_restrictions.map((o) => [String(o['type']), String(o['id'])]));
}

/** `accord apply` of the file while the account is read every 15 ms; every reading it took. */
async function applyWatched(
  file: string,
): Promise<{ code: number; out: string; seen: Map<string, string>[] }> {
  const seen: Map<string, string>[] = [];
  const reads: Promise<void>[] = [];
  let applying = true;
  const timer = setInterval(() => {
    if (applying) reads.push(restricted().then((m) => void seen.push(m)));
  }, 15);
  try {
    const r = await accord(server.url, KEY, ['apply', '-f', file, '--auto-approve']);
    return { code: r.code, out: r.out + r.err, seen };
  } finally {
    applying = false;
    clearInterval(timer);
    await Promise.all(reads);
  }
}

describe('no window while renaming, swapping and rotating IP restrictions', () => {
  it('every reading during each apply has all three types, and every restriction keeps its ID', async () => {
    const first = await accord(server.url, KEY, [
      'apply',
      '-f',
      restrictionsFile({ office: 'dashboard', edge: 'api', fleet: 'agent' }),
      '--auto-approve',
    ]);
    expect(first.code, first.out + first.err).toBe(0);
    const ids = await restricted();

    const steps: [string, Record<string, string>][] = [
      ['rename', { 'office-vpn': 'dashboard', edge: 'api', fleet: 'agent' }],
      ['swap', { 'office-vpn': 'api', edge: 'dashboard', fleet: 'agent' }],
      ['rotation', { 'office-vpn': 'agent', edge: 'api', fleet: 'dashboard' }],
    ];
    for (const [name, restrictions] of steps) {
      const r = await applyWatched(restrictionsFile(restrictions));
      expect(r.code, `${name}: ${r.out}`).toBe(0);
      expect(r.out, name).toMatch(/Apply complete: 0 created, \d patched, 0 put, 0 replaced, 0 deleted/);
      // With 150 ms per request the apply takes long enough to be read many times.
      expect(r.seen.length, name).toBeGreaterThan(5);
      for (const reading of r.seen) expect([...reading.keys()].sort(), name).toEqual([...TYPES].sort());
      expect(await restricted(), name).toEqual(ids);
      const keys = (await listAll(server.url, KEY, '/ip_restrictions', 'ip_restrictions'))
        .map((o) => [markerOf(o)?.key, o['type']])
        .sort();
      expect(keys, name).toEqual(Object.entries(restrictions).sort());
    }
    const again = await accord(server.url, KEY, [
      'plan',
      '-f',
      join(dir, 'accord.yaml'),
      '--detailed-exitcode',
    ]);
    expect(again.code, again.out).toBe(0);
  });

  it('a renamed certificate authority keeps its ID', async () => {
    makeCaPemSync(dir, 'rename-root', { days: 3650 });
    const write = (key: string) => {
      const path = join(dir, `ca-${key}.yaml`);
      writeFileSync(
        path,
        `version: 1\nowner: ca-rename\ncertificate_authorities:\n  ${key}:\n    ca_pem_file: rename-root.pem\n`,
      );
      return path;
    };
    const made = await accord(server.url, KEY, ['apply', '-f', write('root'), '--auto-approve']);
    expect(made.code, made.out + made.err).toBe(0);
    const before = (
      await listAll(server.url, KEY, '/certificate_authorities', 'certificate_authorities')
    ).filter((o) => markerOf(o)?.owner === 'ca-rename');
    expect(before).toHaveLength(1);
    const planned = await accord(server.url, KEY, ['plan', '-f', write('corp-root')]);
    expect(planned.out).toContain('renamed from root');
    expect((await accord(server.url, KEY, ['apply', '-f', write('corp-root'), '--auto-approve'])).code).toBe(
      0,
    );
    const after = (
      await listAll(server.url, KEY, '/certificate_authorities', 'certificate_authorities')
    ).filter((o) => markerOf(o)?.owner === 'ca-rename');
    expect(after.map((o) => [o['id'], markerOf(o)?.key])).toEqual([[before[0]!['id'], 'corp-root']]);
  });
});

describe('two applies at once', () => {
  it('leave duplicates that the next plain apply removes: one object per key, then an empty plan', async () => {
    const hosts = Array.from({ length: 12 }, (_, i) => `twice-${i}`);
    const file = join(dir, 'twice.yaml');
    writeFileSync(file, accordFile('twice', hosts));
    const both = await Promise.all([
      accord(server.url, KEY, ['apply', '-f', file, '--auto-approve']),
      accord(server.url, KEY, ['apply', '-f', file, '--auto-approve']),
    ]);
    for (const r of both) expect(r.code, r.out + r.err).toBe(0);
    const ours = async () =>
      (await listAll(server.url, KEY, '/ssh_host_certificates', 'ssh_host_certificates')).filter(
        (o) => markerOf(o)?.owner === 'twice',
      );
    // Both planned before either created: every key twice (more than --max-destroy-percent's 30%).
    expect((await ours()).length).toBe(24);

    const heal = await accord(server.url, KEY, ['apply', '-f', file, '--auto-approve']);
    expect(heal.code, heal.out + heal.err).toBe(0);
    expect(heal.out).toContain('duplicate of');
    const left = await ours();
    expect(left.map((o) => markerOf(o)?.key).sort()).toEqual([...hosts].sort());
    const again = await accord(server.url, KEY, ['plan', '-f', file, '--detailed-exitcode']);
    expect(again.code, again.out).toBe(0);
  });
});
