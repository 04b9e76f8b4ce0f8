// `accord drift` against accord serve, for what no fingerprint can attribute (DESIGN §4 "Drift":
// unknown is never silent): an edge module changed outside accord, an object deleted outside accord,
// an object whose marker was broken. Each is listed by address in text, JSON and Markdown, exit 2.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import type { DriftReport } from '../../src/render/drift.js';
import { accord, HOST_KEY, listAll, markerOf } from '../apply/helpers.js';
import { HOST_CA, OFFICE, TCP_EDGE, useSeededService, VPN } from '../support/server.js';

const KEY = 'test-key-drift-unknown-0123456789';
const OWNER = 'drift-unknown';

const FILE = [
  'version: 1',
  `owner: ${OWNER}`,
  'ssh_host_certificates:',
  ...['web', 'db'].flatMap((h) => [
    `  ${h}:`,
    `    ssh_certificate_authority_id: ${HOST_CA}`,
    `    public_key: ${HOST_KEY}`,
    `    principals: [${h}.example.com]`,
  ]),
  'tcp_edges:',
  `  ${TCP_EDGE}:`,
  `    ip_restriction: {enabled: true, ip_policies: [${OFFICE}]}`,
  '',
].join('\n');

describe('accord drift: what cannot be attributed is drift, listed by address', () => {
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-drift-unknown-'));
  const file = join(dir, 'accord.yaml');
  const run = (...args: string[]) => accord(server.url, KEY, args);
  const send = async (method: 'PATCH' | 'PUT' | 'DELETE', path: string, body?: Record<string, unknown>) => {
    const client = new ApiClient({ baseUrl: server.url, apiKey: KEY });
    try {
      if (method === 'PATCH') await client.patch(path, body ?? {});
      else if (method === 'PUT') await client.put(path, body ?? {});
      else await client.delete(path);
    } finally {
      await client.close();
    }
  };

  it('a module changed, an object deleted and a marker broken outside accord: exit 2 in every output', async () => {
    writeFileSync(file, FILE);
    expect((await run('apply', '-f', file, '--auto-approve')).code).toBe(0);
    expect((await run('drift', '-f', file)).code).toBe(0);

    const certs = (await listAll(server.url, KEY, '/ssh_host_certificates', 'ssh_host_certificates')).filter(
      (o) => markerOf(o)?.owner === OWNER,
    );
    const idOf = (key: string) => String(certs.find((o) => markerOf(o)?.key === key)!['id']);
    const web = idOf('web');
    // Behind accord's back: the module points at another policy, db is deleted, web's marker is cut short.
    await send('PUT', `/edges/tcp/${TCP_EDGE}/ip_restriction`, { enabled: true, ip_policy_ids: [VPN] });
    await send('DELETE', `/ssh_host_certificates/${idOf('db')}`);
    await send('PATCH', `/ssh_host_certificates/${web}`, {
      metadata: `{"accord":{"owner":"${OWNER}","key":"web","applied":"1`,
    });

    const text = await run('drift', '-f', file);
    expect(text.code, text.err).toBe(2);
    expect(text.out).not.toContain('No changes outside accord');
    expect(text.out).toContain(`  tcp_edges.${TCP_EDGE}.ip_restriction (${TCP_EDGE})\n    # edge module;`);
    expect(text.out).toContain(`    ip_policies: now ["${VPN}"], the file says ["${OFFICE}"]\n`);
    expect(text.out).toContain(
      '  ssh_host_certificates.db\n    # not in the account: deleted outside accord, or a new entry not applied yet\n',
    );
    expect(text.out).toContain(`  ssh_host_certificates.web\n    # marker broken: ${web} names this key`);
    expect(text.out).toContain('3 changes that no fingerprint can attribute.');

    const json = await run('drift', '-f', file, '--json');
    expect(json.code).toBe(2);
    const report = JSON.parse(json.out) as DriftReport;
    expect(report.format_version).toBe(4);
    expect(report.changes).toEqual([]);
    expect(report.unattributed.map((u) => [u.address, u.action, u.why, u.fields])).toEqual([
      ['ssh_host_certificates.db', 'create', 'missing', []],
      ['ssh_host_certificates.web', 'create', 'marker_broken', []],
      [
        `tcp_edges.${TCP_EDGE}.ip_restriction`,
        'put',
        'edge_module',
        [{ field: 'ip_policies', live: [VPN], file: [OFFICE] }],
      ],
    ]);

    const md = await run('drift', '-f', file, '--markdown');
    expect(md.code).toBe(2);
    expect(md.out).toContain('**3 changes that no fingerprint can attribute**');
    for (const section of ['Missing from the account', 'Marker broken', 'Edge modules'])
      expect(md.out).toContain(`##### ${section}\n`);
    expect(md.out).toContain('| `ssh_host_certificates.db` |');
    expect(md.out).toContain('| `ssh_host_certificates.web` |');
    expect(md.out).toContain(`| \`tcp_edges.${TCP_EDGE}.ip_restriction\` (\`${TCP_EDGE}\`) |`);

    // The plan says the same on each change it cannot attribute.
    const plan = await run('plan', '-f', file);
    expect(plan.out).toContain('      # who changed it cannot be told: edge module;');
    expect(plan.out).toContain(`#   marker broken: ${web} names this key`);
  });
});
