// Onboarding end to end against the local service over real HTTP: a hand-made account of 50 resources of
// every kind exports to a file that validates; planning it shows only adopts; applying adopts everything
// without recreating anything; a second plan is empty.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ApiClient } from '../../src/api/client.js';
import { main } from '../../src/cli/main.js';
import { loadDesiredState } from '../../src/config/index.js';
import { KEY_PATTERN } from '../../src/export/index.js';
import type { Plan } from '../../src/plan/types.js';
import { decodeMarker } from '../../src/resources/marker.js';
import type { RunningServer } from '../../src/server/index.js';
import { captureIo } from '../support/cli.js';
import { ROOT, serveSeeded } from '../support/server.js';
import { hostKeys, type MadeAccount, makeAccount, makeCaPems } from './account.js';

const run = promisify(execFile);
const KEY = 'test-key-export-0123456789';
const PER_KIND = 50;
const LISTS = [
  ['/ip_policies', 'ip_policies'],
  ['/ip_policy_rules', 'ip_policy_rules'],
  ['/ip_restrictions', 'ip_restrictions'],
  ['/certificate_authorities', 'certificate_authorities'],
  ['/ssh_host_certificates', 'ssh_host_certificates'],
] as const;

describe('accord export: onboarding an existing account', () => {
  let server: RunningServer;
  let client: ApiClient;
  let made: MadeAccount;
  const dir = mkdtempSync(join(tmpdir(), 'accord-export-'));

  beforeAll(async () => {
    server = await serveSeeded(KEY);
    client = new ApiClient({ baseUrl: server.url, apiKey: KEY });
    const [pems, keys] = await Promise.all([makeCaPems(PER_KIND), Promise.resolve(hostKeys(PER_KIND))]);
    made = await makeAccount(client, PER_KIND, pems, keys);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  const accord = async (...args: string[]) => {
    const io = captureIo({ ACCORD_API_KEY: KEY, ACCORD_API_URL: server.url }, { cwd: dir });
    const code = await main(args, io);
    return { code, out: io.out, err: io.err };
  };
  const edges = () => [...made.tcpEdges, ...made.httpsEdges].join(',');
  const liveObjects = async () => {
    const all: Record<string, unknown>[] = [];
    for (const [path, key] of LISTS) {
      for await (const o of client.listAll<Record<string, unknown>>(path, key)) all.push(o);
    }
    return all;
  };
  const planJson = async (file: string, ...extra: string[]) => {
    const r = await accord('plan', '-f', file, '--json', ...extra);
    expect(r.code, r.err).toBe(0);
    return JSON.parse(r.out) as Plan;
  };

  it('--split writes one file per section, each valid, together planning what the single file plans', async () => {
    const single = await accord(
      'export',
      '--owner',
      'platform',
      '-o',
      'single/accord.yaml',
      '--edges',
      edges(),
    );
    expect(single.code, single.err).toBe(0);
    const split = await accord('export', '--owner', 'platform', '--split', 'split', '--edges', edges());
    expect(split.code, split.err).toBe(0);
    const names = [
      'ip-policies.yaml',
      'ip-restrictions.yaml',
      'certificate-authorities.yaml',
      'ssh-host-certificates.yaml',
      'edges.yaml',
    ];
    expect(split.err).toContain(`Wrote 5 files to split (${names.join(', ')}) and `);
    expect(split.err).toContain('Next: review it, then run accord plan -f split');
    expect(readdirSync(join(dir, 'split')).sort()).toEqual([...names, 'certs', 'accord.schema.json'].sort());
    // Each file valid with the policies its restrictions name by key (files refer to each other's
    // keys), and its CA files beside it.
    const policies = join(dir, 'split', 'ip-policies.yaml');
    for (const name of names) await loadDesiredState([...new Set([policies, join(dir, 'split', name)])]);
    expect(readdirSync(join(dir, 'split', 'certs'))).toEqual(readdirSync(join(dir, 'single', 'certs')));
    const whole = await planJson('single/accord.yaml');
    const parts = await planJson('split');
    const meaning = (p: Plan) => p.changes.map(({ source: _s, ...c }) => c);
    expect(meaning(parts)).toEqual(meaning(whole));
    expect(new Set(parts.changes.map((c) => c.action))).toEqual(new Set(['adopt', 'no-op']));
    expect(parts.changes.find((c) => c.kind === 'certificate_authority')?.source?.file).toBe(
      'split/certificate-authorities.yaml',
    );
    const both = await accord('export', '--split', 'split', '-o', 'x.yaml');
    expect(both.code).toBe(1);
    expect(both.err).toMatch(/--split split writes one file per section .* give one of them/);
  });

  it('exports, plans only adopts, applies, and then plans no changes', async () => {
    const exported = await accord('export', '--owner', 'platform', '-o', 'accord.yaml', '--edges', edges());
    expect(exported.code, exported.err).toBe(0);
    const unmanaged = Object.values(made.ids).flat().length - made.otherOwner.length;
    // The seeded IP policies are exported too, with their rules inside them.
    const count = async (path: string, key: string) => {
      let n = 0;
      for await (const _ of client.listAll(path, key)) n++;
      return n;
    };
    const policies = await count('/ip_policies', 'ip_policies');
    const rules = await count('/ip_policy_rules', 'ip_policy_rules');
    expect(exported.err).toContain(`${unmanaged + policies} to adopt`);

    // A file loadDesiredState accepts, with every unmanaged resource named by id: under a valid key.
    const file = join(dir, 'accord.yaml');
    const text = readFileSync(file, 'utf8');
    // Its $schema comment names the schema export wrote beside it.
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=./accord.schema.json');
    expect(readFileSync(join(dir, 'accord.schema.json'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'schemas', 'accord.schema.json'), 'utf8'),
    );
    expect(exported.err).toContain('Wrote accord.schema.json, the schema its $schema comment names.');
    const desired = await loadDesiredState(file);
    const entries = [
      ...desired.ip_restrictions,
      ...desired.certificate_authorities,
      ...desired.ssh_host_certificates,
    ];
    expect(entries).toHaveLength(unmanaged);
    expect(desired.ip_policies).toHaveLength(policies);
    expect(desired.ip_policy_rules).toHaveLength(rules);
    for (const e of entries) expect(e.key).toMatch(KEY_PATTERN);
    const otherOwner = new Set(made.otherOwner);
    expect(new Set(entries.map((e) => e.id))).toEqual(
      new Set(
        Object.values(made.ids)
          .flat()
          .filter((id) => !otherOwner.has(id)),
      ),
    );
    // Colliding and empty descriptions still give distinct, readable keys.
    const caKeys = desired.certificate_authorities.map((e) => e.key);
    expect(new Set(caKeys).size).toBe(caKeys.length);
    expect(caKeys).toContain('web-frontend');
    expect(caKeys.some((k) => /^web-frontend-[a-z0-9]{8}$/.test(k))).toBe(true);
    // Without a description, a CA is named by its subject CN (`Export Test CA 3`), not by its kind.
    expect(caKeys.some((k) => /^export-test-ca-\d+(-[a-z0-9]{8})?$/.test(k))).toBe(true);
    expect(caKeys.filter((k) => k.startsWith('certificate-authority-'))).toEqual([]);
    expect(caKeys).toContain('cafe-root');
    // CA PEMs beside the file; edge modules only for the edges named.
    expect(readdirSync(join(dir, 'certs'))).toHaveLength(desired.certificate_authorities.length);
    expect(text).toContain('ca_pem_file: certs/web-frontend.pem');
    expect(desired.tcp_edge_ip_restrictions).toHaveLength(3);
    expect(desired.websocket_tcp_converters).toHaveLength(5);
    // Metadata: JSON as data, anything else as the string it was; too big for the marker: a comment.
    const byId = new Map(entries.map((e) => [e.id, e]));
    for (const [id, metadata] of made.metadata) {
      const e = byId.get(id);
      if (!e || metadata === undefined || metadata === '') continue;
      if (metadata.length > 4000) {
        expect(e.data).toBeUndefined();
        continue;
      }
      const structured = /^[[{]/.test(metadata) && !metadata.includes('12345678901234567890');
      let json: unknown;
      try {
        json = JSON.parse(metadata);
      } catch {
        json = undefined;
      }
      expect(e.data, metadata).toEqual(structured && json !== undefined ? json : metadata);
    }
    expect(text).toContain('# metadata left out: with accord');
    expect(text).toContain('Left out: ');

    const before = await liveObjects();
    const plan = await planJson('accord.yaml');
    const actions = new Set(plan.changes.map((c) => c.action));
    expect([...actions].sort()).toEqual(['adopt', 'no-op']);
    expect(plan.summary).toMatchObject({
      adopt: unmanaged + policies + rules,
      create: 0,
      patch: 0,
      put: 0,
      replace: 0,
      delete: 0,
      no_op: 8,
      other_owners: made.otherOwner.length,
    });
    // Only the over-budget metadata changes besides the marker.
    const noisy = plan.changes.filter((c) => c.changed_fields.some((f) => f !== 'marker'));
    expect(noisy.map((c) => c.changed_fields)).toEqual([
      ['metadata', 'marker'],
      ['metadata', 'marker'],
    ]);
    const text1 = await accord('plan', '-f', 'accord.yaml');
    expect(text1.out).toContain('will be adopted');
    const md = await accord('plan', '-f', 'accord.yaml', '--markdown');
    expect(md.out).toContain('| `~` adopt |');

    const applied = await accord('apply', '-f', 'accord.yaml', '--auto-approve');
    expect(applied.code, applied.out + applied.err).toBe(0);

    const after = await liveObjects();
    expect(after.map((o) => o['id']).sort()).toEqual(before.map((o) => o['id']).sort());
    const again = await planJson('accord.yaml');
    expect(again.changes.filter((c) => c.action !== 'no-op')).toEqual([]);
    const detailed = await accord('plan', '-f', 'accord.yaml', '--detailed-exitcode');
    expect(detailed.code, detailed.out).toBe(0);
    // Adoption kept the original metadata as the marker's data.
    for (const o of after) {
      const id = String(o['id']);
      if (otherOwner.has(id)) continue;
      const marker = decodeMarker(o['metadata'] as string);
      expect(marker?.owner, id).toBe('platform');
      const original = made.metadata.get(id);
      if (original === '{not json') expect(marker?.data).toBe('{not json');
      if (original === 'team=web; owner=ops') expect(marker?.data).toBe(original);
    }

    // Exported again with --include-managed: the same keys, now by marker and without id:.
    const managed = await accord(
      'export',
      '--owner',
      'platform',
      '--include-managed',
      '-o',
      'managed/accord.yaml',
      '--edges',
      edges(),
    );
    expect(managed.code, managed.err).toBe(0);
    const second = await loadDesiredState(join(dir, 'managed', 'accord.yaml'));
    expect(second.certificate_authorities.map((e) => e.key)).toEqual(caKeys);
    expect(second.ssh_host_certificates.map((e) => e.key)).toEqual(
      desired.ssh_host_certificates.map((e) => e.key),
    );
    expect(second.certificate_authorities.every((e) => e.id === undefined)).toBe(true);
    const third = await planJson('managed/accord.yaml');
    expect(third.changes.filter((c) => c.action !== 'no-op')).toEqual([]);
  });

  it('leaves other owners out unless asked; taking them over needs --allow-takeover', async () => {
    const out = await accord('export', '--owner', 'fresh', '-o', '-');
    expect(out.code, out.err).toBe(0);
    expect(out.err).toContain('resources of other owners (--include-other-owners)');
    const doc = parse(out.out) as Record<string, Record<string, { id?: string }>>;
    const ids = new Set(
      ['ip_restrictions', 'certificate_authorities', 'ssh_host_certificates'].flatMap((s) =>
        Object.values(doc[s] ?? {}).map((e) => e.id),
      ),
    );
    for (const id of made.otherOwner) expect(ids.has(id)).toBe(false);

    const asked = await accord(
      'export',
      '--owner',
      'fresh',
      '--include-other-owners',
      '-o',
      'takeover/accord.yaml',
    );
    expect(asked.code, asked.err).toBe(0);
    const text = readFileSync(join(dir, 'takeover', 'accord.yaml'), 'utf8');
    expect(text).toContain('managed by owner "team-b"');
    const desired = await loadDesiredState(join(dir, 'takeover', 'accord.yaml'));
    const taken = [
      ...desired.ip_restrictions,
      ...desired.certificate_authorities,
      ...desired.ssh_host_certificates,
    ];
    for (const id of made.otherOwner) expect(taken.some((e) => e.id === id)).toBe(true);
    const refused = await accord('plan', '-f', 'takeover/accord.yaml');
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('--allow-takeover');
    const plan = await planJson('takeover/accord.yaml', '--allow-takeover');
    const takeovers = plan.changes.filter((c) =>
      c.reasons.some((r) => r.includes('over from owner "team-b"')),
    );
    expect(takeovers).toHaveLength(made.otherOwner.length);
    expect(takeovers.every((c) => c.action === 'adopt')).toBe(true);
  });

  it('gives the same file for the same account, and refuses to overwrite without --force', async () => {
    // Everything is platform's by now: export it as another owner's, so that there is something to write.
    const STABLE = ['--owner', 'stable', '--include-other-owners'];
    const a = await accord('export', ...STABLE, '-o', '-', '--edges', edges());
    const b = await accord('export', ...STABLE, '-o', '-', '--edges', edges());
    expect(a.code, a.err).toBe(0);
    expect(b.out).toBe(a.out);
    expect(a.out).toContain('ca_pem: |');

    const first = await accord('export', ...STABLE, '-o', 'stable/accord.yaml');
    expect(first.code, first.err).toBe(0);
    const file = join(dir, 'stable', 'accord.yaml');
    writeFileSync(file, '# edited by hand\n');
    const refused = await accord('export', ...STABLE, '-o', 'stable/accord.yaml');
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/stable\/accord\.yaml.*already exist.*--force/s);
    expect(readFileSync(file, 'utf8')).toBe('# edited by hand\n');
    // Another file beside it shares certs/: the same certificates are no collision, and are left as they are.
    const other = join(dir, 'stable', 'other.yaml');
    const again = await accord('export', ...STABLE, '-o', 'stable/other.yaml');
    expect(again.code, again.err).toBe(0);
    expect(existsSync(other)).toBe(true);
    // A certificate file with other contents in the way refuses, before anything is written, and the
    // advice it gives works.
    const pem = readdirSync(join(dir, 'stable', 'certs'))[0]!;
    writeFileSync(join(dir, 'stable', 'certs', pem), 'edited\n');
    const third = join(dir, 'stable', 'third.yaml');
    const certs = await accord('export', ...STABLE, '-o', 'stable/third.yaml');
    expect(certs.code).toBe(1);
    expect(certs.err).toBe(
      `Error: stable/certs/${pem} already exists with other contents; accord export does not overwrite files. ` +
        'Pass --force to replace it, or export into another directory (-o DIR/accord.yaml), since the files it names go beside the file.\n',
    );
    expect(existsSync(third)).toBe(false);
    const advised = await accord('export', ...STABLE, '-o', 'elsewhere/third.yaml');
    expect(advised.code, advised.err).toBe(0);
    expect(readFileSync(join(dir, 'stable', 'certs', pem), 'utf8')).toBe('edited\n');
    const forced = await accord('export', ...STABLE, '-o', 'stable/accord.yaml', '--force');
    expect(forced.code, forced.err).toBe(0);
    await loadDesiredState(file);
    expect(readdirSync(join(dir, 'stable')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // A directory in the way is a clear error, not a crash.
    const onDir = await accord('export', ...STABLE, '-o', 'stable/certs', '--force');
    expect(onDir.code).toBe(1);
    expect(onDir.err).toMatch(/^Error: cannot write stable\/certs \(E[A-Z]+\); check/);
  });

  it('runs as a process: the built CLI prints the file and refuses an overwrite with one clear error', async () => {
    const cli = join(import.meta.dirname, '..', '..', 'bin', 'accord.js');
    const env = { ...process.env, ACCORD_API_URL: server.url, ACCORD_API_KEY: KEY, NO_COLOR: '1' };
    const printed = await run(
      process.execPath,
      [cli, 'export', '--owner', 'proc', '--include-other-owners', '-o', '-'],
      {
        env,
        cwd: dir,
      },
    );
    expect(printed.stdout.startsWith('# yaml-language-server: $schema=')).toBe(true);
    expect(printed.stderr).toMatch(/^Exported \d+ to adopt, \d+ of other owners, 0 edge modules\.$/m);
    expect(printed.stdout + printed.stderr).not.toContain(KEY);
    writeFileSync(join(dir, 'taken.yaml'), 'version: 1\n');
    const refused = await run(process.execPath, [cli, 'export', '-o', 'taken.yaml'], { env, cwd: dir }).then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
    expect(refused?.code).toBe(1);
    expect(refused?.stderr).toBe(
      'Error: taken.yaml already exists with other contents; accord export does not overwrite files. Pass --force to replace it, or choose another file with -o.\n',
    );
  });

  it('rejects a bad edge ID and an unknown HTTPS edge with a clear message', async () => {
    const bad = await accord('export', '-o', '-', '--edges', 'ipx_123');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('"ipx_123" is not an edge ID');
    const unknown = await accord('export', '-o', '-', '--edges', 'edghts_2doesNotExist000000000000000');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('HTTPS edge edghts_2doesNotExist000000000000000 does not exist');
  });
});
