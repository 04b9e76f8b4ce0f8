// `accord drift` and the plan's drift attribution end to end, against the local service over real
// HTTP: apply, change fields through the API behind accord's back, edit the file, apply again.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import type { Plan } from '../../src/plan/types.js';
import type { DriftReport } from '../../src/render/drift.js';
import { accord, accordFile, listAll, markerOf, VPN } from '../apply/helpers.js';
import { OFFICE, useSeededService } from '../support/server.js';

const KEY = 'test-key-drift-e2e-0123456789';
const OWNER = 'drift-e2e';

describe('accord drift against accord serve', () => {
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-drift-'));
  const file = join(dir, 'accord.yaml');
  const write = (enforced: boolean) =>
    writeFileSync(file, accordFile(OWNER, ['web'], { office: { type: 'dashboard', enforced } }));
  const run = (...args: string[]) => accord(server.url, KEY, args);
  const mine = async (path: string, listKey: string) => {
    const found = (await listAll(server.url, KEY, path, listKey)).filter((o) => markerOf(o)?.owner === OWNER);
    expect(found).toHaveLength(1);
    return found[0]!;
  };
  /** A PATCH through the API, as someone in the dashboard would send it. */
  const outside = async (path: string, body: Record<string, unknown>) => {
    const client = new ApiClient({ baseUrl: server.url, apiKey: KEY });
    try {
      await client.patch(path, body);
    } finally {
      await client.close();
    }
  };

  it('names fields changed through the API, not those changed in the file, and apply settles both', async () => {
    write(true);
    expect((await run('apply', '-f', file, '--auto-approve')).code).toBe(0);
    const clean = await run('drift', '-f', file);
    expect([clean.code, clean.out]).toEqual([
      0,
      `No changes outside accord (owner ${OWNER}, ${server.url}).\n`,
    ]);

    // Behind accord's back: enforcement off and one more policy; a new description on the certificate.
    const ipr = await mine('/ip_restrictions', 'ip_restrictions');
    const cert = await mine('/ssh_host_certificates', 'ssh_host_certificates');
    await outside(`/ip_restrictions/${String(ipr['id'])}`, { enforced: false, ip_policy_ids: [OFFICE, VPN] });
    await outside(`/ssh_host_certificates/${String(cert['id'])}`, { description: 'edited by hand' });

    const text = await run('drift', '-f', file);
    expect(text.code, text.err).toBe(2);
    expect(text.out).toContain(`  ip_restrictions.office (${String(ipr['id'])})\n`);
    expect(text.out).toContain('    enforced: accord wrote true, now false\n');
    expect(text.out).toContain(
      `    ip_policies: accord wrote ["${OFFICE}"], now ${JSON.stringify([OFFICE, VPN].sort())}\n`,
    );
    expect(text.out).toContain('    description: accord wrote "", now "edited by hand"\n');
    expect(text.out).toContain('3 fields of 2 objects changed outside accord.');

    const json = await run('drift', '-f', file, '--json');
    expect(json.code).toBe(2);
    const report = JSON.parse(json.out) as DriftReport;
    expect(
      report.changes.map((c) => [
        c.address,
        c.fields.map((f) => [f.field, f.source, f.accord_wrote, f.live]),
      ]),
    ).toEqual([
      [
        'ip_restrictions.office',
        [
          ['enforced', 'outside', true, false],
          ['ip_policies', 'outside', [OFFICE], [OFFICE, VPN].sort()],
        ],
      ],
      ['ssh_host_certificates.web', [['description', 'outside', '', 'edited by hand']]],
    ]);
    expect(report.unattributed).toEqual([]);

    const md = await run('drift', '-f', file, '--markdown');
    expect(md.code).toBe(2);
    expect(md.out).toMatch(
      /^### accord drift \(owner `drift-e2e`\)\n\n\*\*3 fields of 2 objects changed outside accord\*\*/,
    );
    expect(md.out).toContain('| `ip_restrictions.office`');

    // The plan shows the same, in each of its outputs.
    const plan = await run('plan', '-f', file);
    expect(plan.out).toContain('      # changed outside accord: enforced, ip_policies\n');
    expect(plan.out).toContain('      # changed outside accord: description\n');
    const planMd = await run('plan', '-f', file, '--markdown');
    expect(planMd.out.indexOf('#### Changed outside accord')).toBeGreaterThan(0);
    expect(planMd.out.indexOf('#### Changed outside accord')).toBeLessThan(planMd.out.indexOf('**Plan:'));
    const planJson = JSON.parse((await run('plan', '-f', file, '--json')).out) as Plan;
    expect(planJson.changes.filter((c) => c.action !== 'no-op').map((c) => c.drift)).toEqual([
      { enforced: 'outside', ip_policies: 'outside' },
      { description: 'outside' },
    ]);

    // apply says what it reverts, then everything is settled.
    const apply = await run('apply', '-f', file, '--auto-approve');
    expect(apply.code, apply.err).toBe(0);
    expect(apply.out).toContain(
      'reverting a change made outside accord: ip_restrictions.office enforced, ip_policies\n',
    );
    expect(apply.out).toContain(
      'reverting a change made outside accord: ssh_host_certificates.web description\n',
    );
    expect(apply.out.indexOf('reverting')).toBeLessThan(
      apply.out.search(/^~ ip_restrictions\.office \(ipx_\w+\) \d+ ms$/m),
    );
    expect(apply.out.indexOf('reverting')).toBeGreaterThan(apply.out.indexOf('Plan: '));
    expect((await run('drift', '-f', file)).code).toBe(0);
    expect((await run('plan', '-f', file, '--detailed-exitcode')).code).toBe(0);

    // The file alone changes: no drift, and the plan says it is the file's change.
    write(false);
    const fileOnly = await run('drift', '-f', file);
    expect([fileOnly.code, fileOnly.out]).toEqual([
      0,
      `No changes outside accord (owner ${OWNER}, ${server.url}).\n`,
    ]);
    const filePlan = JSON.parse((await run('plan', '-f', file, '--json')).out) as Plan;
    expect(filePlan.changes.filter((c) => c.action !== 'no-op').map((c) => [c.address, c.drift])).toEqual([
      ['ip_restrictions.office', { enforced: 'file' }],
    ]);
    const fileApply = await run('apply', '-f', file, '--auto-approve');
    expect(fileApply.code, fileApply.err).toBe(0);
    expect(fileApply.out).not.toContain('reverting');
    expect((await run('drift', '-f', file)).code).toBe(0);
    expect((await run('plan', '-f', file, '--detailed-exitcode')).code).toBe(0);
  });

  it('exits 1 on an error, saying what to do', async () => {
    const noKey = await accord(server.url, '', ['drift', '-f', file]);
    expect(noKey.code).toBe(1);
    const missing = await run('drift', '-f', join(dir, 'missing.yaml'));
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('missing.yaml');
  });

  it('with --json, an error is the whole of stdout, as an object with its code', async () => {
    write(true);
    const wrong = 'wrong-key-drift-0123456789abcdef';
    const refused = await accord(server.url, wrong, ['drift', '-f', file, '--json']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.out)).toEqual({
      error: {
        code: 'ACCORD_API',
        message: expect.stringContaining('401'),
        http_status: 401,
        error_code: 'ERR_AUTH_INVALID',
        operation_id: expect.stringMatching(/^op_/),
      },
    });
    expect(refused.out).not.toContain(wrong);
    const missing = await run('drift', '-f', join(dir, 'missing.yaml'), '--json');
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.out)).toMatchObject({
      error: { code: 'ACCORD_CONFIG', problems: [{ file: expect.stringContaining('missing.yaml') }] },
    });
  });
});
