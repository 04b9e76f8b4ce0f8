// A saved plan for every action, against the local service: `plan --out` then `apply FILE` applies it
// (planned again from the same file, equal to the saved one), and a plan made right after is empty.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/types.js';
import { accord, HOST_CA, HOST_KEY, listAll, markerOf, type Obj, OFFICE, VPN } from '../apply/helpers.js';
import { TCP_EDGE, useSeededService } from '../support/server.js';

const KEY = 'test-key-apply-round-trip-0123456789';
const OWNER = 'round-trip';

interface Step {
  office?: { description?: string; id?: string };
  /** SSH host certificates: key -> principal. */
  certs: Record<string, string>;
  api?: string;
  module: boolean | 'absent';
}

function yaml(s: Step): string {
  const lines = ['version: 1', `owner: ${OWNER}`, 'ip_restrictions:'];
  lines.push('  office:', '    type: dashboard', '    enforced: true', `    ip_policies: [${OFFICE}]`);
  if (s.office?.description) lines.push(`    description: ${s.office.description}`);
  if (s.api)
    lines.push(
      '  api:',
      `    id: ${s.api}`,
      '    type: api',
      '    enforced: true',
      `    ip_policies: [${VPN}]`,
    );
  lines.push('ssh_host_certificates:');
  for (const [key, principal] of Object.entries(s.certs)) {
    lines.push(
      `  ${key}:`,
      `    ssh_certificate_authority_id: ${HOST_CA}`,
      `    public_key: ${HOST_KEY}`,
      `    principals: [${principal}]`,
    );
  }
  const module = s.module === 'absent' ? '"absent"' : `{enabled: ${s.module}, ip_policies: [${VPN}]}`;
  lines.push('tcp_edges:', `  ${TCP_EDGE}:`, `    ip_restriction: ${module}`, '');
  return lines.join('\n');
}

describe('accord apply FILE, for every action', () => {
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-round-trip-'));
  const run = (args: string[]) => accord(server.url, KEY, args, { cwd: dir });
  const post = async (path: string, body: unknown): Promise<Obj> => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'service-version': '2', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as Obj;
  };

  /** Saves the plan of `step`, checks its actions, applies the file, and plans again: nothing left. */
  const roundTrip = async (step: Step, actions: string[]) => {
    writeFileSync(join(dir, 'accord.yaml'), yaml(step));
    const planned = await run(['plan', '--out', 'plan.json']);
    expect(planned.code, planned.err).toBe(0);
    const saved = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')) as Plan;
    expect(saved.files).toEqual(['accord.yaml']);
    expect(
      saved.changes
        .filter((c) => c.action !== 'no-op')
        .map((c) => `${c.action} ${c.address.replace(/#\w+$/, '#')}`)
        .sort(),
    ).toEqual([...actions].sort());
    const applied = await run(['apply', 'plan.json']);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(applied.out).toContain('Apply complete:');
    const again = await run(['plan', '--detailed-exitcode']);
    expect(again.code, again.out).toBe(0);
    return saved;
  };

  it('create, put, patch, replace, rename, adopt, duplicates and delete', async () => {
    await roundTrip({ certs: { web: 'web.example.com', db: 'db.example.com' }, module: true }, [
      'create ip_restrictions.office',
      'create ssh_host_certificates.db',
      'create ssh_host_certificates.web',
      `put tcp_edges.${TCP_EDGE}.ip_restriction`,
    ]);

    // A description (patch), a principal (replace), a key (rename), a module value (put).
    const renamed = await roundTrip(
      {
        office: { description: 'office only' },
        certs: { web: 'www.example.com', database: 'db.example.com' },
        module: false,
      },
      [
        'patch ip_restrictions.office',
        'patch ssh_host_certificates.database',
        'replace ssh_host_certificates.web',
        `put tcp_edges.${TCP_EDGE}.ip_restriction`,
      ],
    );
    expect(renamed.changes.find((c) => c.address === 'ssh_host_certificates.database')?.reasons).toContain(
      'renamed from db',
    );

    // An unmanaged restriction adopted with id:, and a second object of one key (a duplicate).
    const unmanaged = await post('/ip_restrictions', { type: 'api', enforced: false, ip_policy_ids: [VPN] });
    const duplicate = await post('/ssh_host_certificates', {
      ssh_certificate_authority_id: HOST_CA,
      public_key: HOST_KEY,
      principals: ['www.example.com'],
      metadata: JSON.stringify({ accord: { owner: OWNER, key: 'web' } }),
    });
    const step3: Step = {
      office: { description: 'office only' },
      api: String(unmanaged['id']),
      certs: { web: 'www.example.com', database: 'db.example.com' },
      module: false,
    };
    const adopted = await roundTrip(step3, [
      'adopt ip_restrictions.api',
      'delete ssh_host_certificates.web#',
    ]);
    expect(adopted.changes.find((c) => c.action === 'delete')?.id).toBe(duplicate['id']);
    const restrictions = await listAll(server.url, KEY, '/ip_restrictions', 'ip_restrictions');
    expect(markerOf(restrictions.find((o) => o['id'] === unmanaged['id'])!)).toMatchObject({
      owner: OWNER,
      key: 'api',
    });

    // An entry and a module gone.
    await roundTrip({ ...step3, certs: { web: 'www.example.com' }, module: 'absent' }, [
      'delete ssh_host_certificates.database',
      `delete tcp_edges.${TCP_EDGE}.ip_restriction`,
    ]);
    const certs = await listAll(server.url, KEY, '/ssh_host_certificates', 'ssh_host_certificates');
    expect(certs.filter((o) => markerOf(o)?.owner === OWNER).map((o) => markerOf(o)!.key)).toEqual(['web']);
  });
});
