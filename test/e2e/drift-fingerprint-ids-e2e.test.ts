// The fingerprint of a write that names an ID made by the same apply (DESIGN §4 "Drift"): a policy and
// the restriction naming it applied at once, the restriction's policies then changed outside accord.
// The built CLI as a process against `accord serve` in-process: drift names the change (exit 2), and
// apply says it reverts it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import type { DriftReport } from '../../src/render/drift.js';
import { decodeMarker } from '../../src/resources/marker.js';
import { runProcess } from '../support/cli.js';
import { CLI, OFFICE, useSeededService, VPN } from '../support/server.js';

const KEY = 'test-key-drift-fingerprint-ids-0123456789';
const OWNER = 'fingerprint-ids';

describe('drift of a restriction written while its policy was known only after apply', () => {
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-fingerprint-ids-'));
  const run = (...args: string[]) =>
    runProcess('node', [CLI, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH, ACCORD_API_URL: server.url, ACCORD_API_KEY: KEY, NO_COLOR: '1' },
    });
  const api = async <T>(act: (client: ApiClient) => Promise<T>): Promise<T> => {
    const client = new ApiClient({ baseUrl: server.url, apiKey: KEY });
    try {
      return await act(client);
    } finally {
      await client.close();
    }
  };
  type Restriction = { id: string; metadata: string; ip_policies: { id: string }[] };
  const restriction = () =>
    api(async (client) => {
      for await (const r of client.listAll<Restriction>('/ip_restrictions', 'ip_restrictions'))
        if (decodeMarker(r.metadata)?.owner === OWNER) return r;
      throw new Error('no restriction of this owner');
    });

  it('names the policies changed outside accord, and apply says it reverts them', async () => {
    writeFileSync(
      join(dir, 'accord.yaml'),
      [
        'version: 1',
        `owner: ${OWNER}`,
        'ip_policies:',
        '  p: {rules: [{allow: 10.0.0.0/8}]}',
        'ip_restrictions:',
        `  x: {type: api, enforced: true, ip_policies: [p, ${VPN}]}`,
        '',
      ].join('\n'),
    );
    const apply = await run('apply', '--auto-approve');
    expect(apply.code, apply.stderr).toBe(0);
    expect((await run('drift')).code).toBe(0);
    const x = await restriction();
    const p = x.ip_policies.map((r) => r.id).find((id) => id !== VPN)!;
    const wrote = [p, VPN].sort();
    const now = [p, OFFICE, VPN].sort();
    // What was written is recorded: no placeholder component in the fingerprint.
    expect(decodeMarker(x.metadata)?.applied).not.toContain('......');

    // Outside accord: one more policy on the restriction.
    await api((client) => client.patch(`/ip_restrictions/${x.id}`, { ip_policy_ids: now }));

    const text = await run('drift');
    expect(text.code, text.stdout).toBe(2);
    expect(text.stdout).toContain(
      `  ip_restrictions.x (${x.id})\n    ip_policies: accord wrote ${JSON.stringify(wrote)}, now ${JSON.stringify(now)}\n`,
    );
    const json = await run('drift', '--json');
    expect(json.code).toBe(2);
    const report = JSON.parse(json.stdout) as DriftReport;
    expect(report.changes).toEqual([
      {
        address: 'ip_restrictions.x',
        kind: 'ip_restriction',
        id: x.id,
        fields: [{ field: 'ip_policies', source: 'outside', accord_wrote: wrote, live: now, file: wrote }],
      },
    ]);

    const revert = await run('apply', '--auto-approve');
    expect(revert.code, revert.stderr).toBe(0);
    expect(revert.stdout).toContain(
      'reverting a change made outside accord: ip_restrictions.x ip_policies\n',
    );
    expect((await restriction()).ip_policies.map((r) => r.id).sort()).toEqual(wrote);
    expect((await run('drift')).code).toBe(0);
  });
});
