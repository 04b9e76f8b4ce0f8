// Convergence under faults: against a service that fails 20% of requests (500/503, dropped
// connections, failures after the write committed), applying a 200-resource file again and again ends
// with the account equal to the file, no duplicates, and nothing unmanaged touched.
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { encodeMarker } from '../../src/resources/marker.js';
import { useSeededService } from '../support/server.js';
import { accord, accordFile, byKey, HOST_CA, HOST_KEY, listAll, type Obj, OFFICE, VPN } from './helpers.js';

const KEY = 'test-key-apply-faults-0123456789';
const OWNER = 'conv';
const TCP_EDGE = 'edgtcp_2demoDb00000000000000000000';
const HTTPS_EDGE = 'edghts_2demoWeb0000000000000000000';
const WS_ROUTE = 'edghtsrt_2demoWebSocket0000000000000';
const HOSTS = Array.from({ length: 194 }, (_, i) => `host-${i}`);
type Restrictions = Parameters<typeof accordFile>[2];
const FIRST: Restrictions = {
  dash: { type: 'dashboard' },
  api: { type: 'api', policies: [OFFICE, VPN] },
  edge: { type: 'endpoints', enforced: false },
};
/** The second version: 50 hosts renamed, 50 re-issued, a type moved, a key renamed, one patched. */
const HOSTS2 = HOSTS.map((h, i) => (i < 50 ? `renamed-${i}` : h));
const REISSUED = new Set(HOSTS.slice(50, 100));
const SECOND: Restrictions = {
  dash: { type: 'endpoints' },
  api: { type: 'api', policies: [OFFICE], enforced: false },
  portal: { type: 'dashboard', enforced: false },
};

function file(hosts: readonly string[], restrictions: Restrictions): string {
  const base = accordFile(OWNER, hosts, restrictions).replaceAll(
    /\[(host-\d+)\.example\.com\]/g,
    (whole, h: string) => (hosts === HOSTS2 && REISSUED.has(h) ? `[${h}.v2.example.com]` : whole),
  );
  return (
    base +
    [
      'certificate_authorities:',
      '  root:',
      '    ca_pem_file: internal-root.pem',
      'tcp_edges:',
      `  ${TCP_EDGE}:`,
      `    ip_restriction: {enabled: true, ip_policies: [${VPN}]}`,
      'https_edges:',
      `  ${HTTPS_EDGE}:`,
      '    routes:',
      `      ${WS_ROUTE}:`,
      '        websocket_tcp_converter: {enabled: false}',
      '',
    ].join('\n')
  );
}

describe('accord apply under injected faults', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accord-faults-'));
  const server = useSeededService(KEY, { faultRate: 0.2, faultSeed: 7 });

  const everything = async () => ({
    ipr: await listAll(server.url, KEY, '/ip_restrictions', 'ip_restrictions'),
    ca: await listAll(server.url, KEY, '/certificate_authorities', 'certificate_authorities'),
    ssh: await listAll(server.url, KEY, '/ssh_host_certificates', 'ssh_host_certificates'),
  });

  it('converges on a 200-resource file with 20% of requests failing', { timeout: 120_000 }, async () => {
    // Resources that are not this file's: unmarked, and marked by another owner.
    const client = new ApiClient({ baseUrl: server.url, apiKey: KEY, retryPolicy: { baseDelayMs: 5 } });
    const create = async (path: string, body: Obj) => {
      for (;;) {
        try {
          return await client.post(path, body);
        } catch {
          // An injected fault; a duplicate of an unmanaged object does no harm here.
        }
      }
    };
    await create('/ip_restrictions', {
      type: 'agent',
      enforced: true,
      ip_policy_ids: [OFFICE],
      metadata: 'ops',
    });
    for (let i = 0; i < 3; i++) {
      const common = { ssh_certificate_authority_id: HOST_CA, public_key: HOST_KEY, principals: [`x${i}`] };
      await create('/ssh_host_certificates', { ...common, description: 'by hand' });
      await create('/ssh_host_certificates', {
        ...common,
        metadata: encodeMarker('someone-else', `host-${i}`, false),
      });
    }
    await client.close();
    const before = await everything();
    const notOurs = (objs: Obj[]) => objs.filter((o) => byKey([o], OWNER).size === 0);
    const untouched = [...notOurs(before.ipr), ...notOurs(before.ssh), ...notOurs(before.ca)];
    expect(untouched.length).toBeGreaterThanOrEqual(7);

    copyFileSync(resolve('examples/certs/internal-root.pem'), join(dir, 'internal-root.pem'));
    let retries = 0;
    let recovered = 0;
    /** Applies until exit 0 (at most 15 times); returns the exit codes. */
    const converge = async (path: string) => {
      const codes: number[] = [];
      for (let i = 0; i < 15 && codes.at(-1) !== 0; i++) {
        const args = ['apply', '-f', path, '--auto-approve', '--force', '--parallelism', '8', '--json'];
        const r = await accord(server.url, KEY, args);
        expect(r.err).not.toContain('this is a bug');
        codes.push(r.code);
        if (r.out === '') continue; // the plan itself failed (its reads ran out of retries)
        const result = JSON.parse(r.out) as {
          requests: { retries: number };
          changes: { recovered?: boolean }[];
        };
        retries += result.requests.retries;
        recovered += result.changes.filter((c) => c.recovered).length;
      }
      expect(codes.at(-1), `exit codes: ${codes.join(', ')}`).toBe(0);
    };
    const check = async (hosts: readonly string[], types: string[]) => {
      const after = await everything();
      const ssh = byKey(after.ssh, OWNER);
      expect([...ssh.keys()].sort()).toEqual([...hosts].sort());
      for (const [key, list] of ssh) {
        expect(list, `duplicates of ${key}`).toHaveLength(1);
        const v2 = hosts === HOSTS2 && REISSUED.has(key);
        expect(list[0]!['principals']).toEqual([v2 ? `${key}.v2.example.com` : `${key}.example.com`]);
      }
      const ipr = byKey(after.ipr, OWNER);
      expect([...ipr.entries()].map(([k, l]) => `${k}:${l.map((o) => o['type']).join()}`).sort()).toEqual(
        types,
      );
      expect(byKey(after.ca, OWNER).get('root')).toHaveLength(1);
      const all = [...after.ipr, ...after.ssh, ...after.ca];
      for (const o of untouched) expect(all.find((x) => x['id'] === o['id'])).toEqual(o);
    };

    const path = join(dir, 'accord.yaml');
    writeFileSync(path, file(HOSTS, FIRST));
    await converge(path);
    await check(HOSTS, ['api:api', 'dash:dashboard', 'edge:endpoints']);

    // Renames, re-issues (replace), a type moving between keys, a patch: deletes and replaces too.
    writeFileSync(path, file(HOSTS2, SECOND));
    await converge(path);
    await check(HOSTS2, ['api:api', 'dash:endpoints', 'portal:dashboard']);
    // The faults did bite: requests were retried, and creates whose answer was lost were found by marker.
    expect(retries).toBeGreaterThan(0);
    expect(recovered).toBeGreaterThan(0);

    const plan = await accord(server.url, KEY, ['plan', '-f', path, '--detailed-exitcode']);
    expect(plan.code, plan.out + plan.err).toBe(0);
  });
});
