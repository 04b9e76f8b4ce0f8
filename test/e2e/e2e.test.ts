// End to end against the local service over real HTTP: the example file on a freshly seeded account
// plans only creates (and module puts); once the same things exist, the plan is empty.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { main } from '../../src/cli/main.js';
import { fillKnownAfterApply, knownAfterApply } from '../../src/plan/references.js';
import type { Plan, PlannedRequest } from '../../src/plan/types.js';
import { descriptorFor, isManaged, managedDescriptors } from '../../src/resources/index.js';
import { captureIo, runMain } from '../support/cli.js';
import { EXAMPLE, useSeededService } from '../support/server.js';

const KEY = 'test-key-planner-e2e-0123456789';

describe('accord plan against accord serve', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accord-plan-'));
  const server = useSeededService(KEY);

  const run = (...args: string[]) =>
    runMain(['plan', '-f', EXAMPLE, ...args], { ACCORD_API_KEY: KEY, ACCORD_API_URL: server.url });

  it('plans only creates on a freshly seeded account, then nothing once they exist', async () => {
    const out = join(dir, 'plan.json');
    const first = await run('--detailed-exitcode', '--out', out, '--stats');
    expect(first.err).toContain('API requests: ');
    expect(first.code, first.err).toBe(2);
    // The plan's JSON shows an ID known after apply as `(known after apply: ADDRESS)`: a tool reading
    // it, as this test does, takes that text for the value it stands for.
    const saved = JSON.parse(readFileSync(out, 'utf8'), (_key, v: unknown) => {
      const address = typeof v === 'string' ? /^\(known after apply: (.+)\)$/.exec(v)?.[1] : undefined;
      return address === undefined ? v : knownAfterApply(address);
    }) as Plan;
    const actions = new Set(saved.changes.map((c) => `${c.kind}:${c.action}`));
    for (const a of actions) expect(a).toMatch(/:(create|put|no-op)$/);
    expect(saved.summary.create).toBe(13);
    expect(first.out.trimEnd().split('\n').at(-1)).toMatch(
      /^Plan: 13 to create, 0 to patch, \d+ to put, 0 to replace, 0 to delete, 0 to adopt\. \d+ unchanged, 2 unmanaged left alone\.$/,
    );
    expect(first.out).not.toContain('BEGIN CERTIFICATE');
    expect(first.out + first.err).not.toContain(KEY);
    // A list of each managed kind (one page each) and one GET per module the file names.
    const modules = saved.changes.filter((c) => !isManaged(descriptorFor(c.kind)));
    expect(first.err).toMatch(new RegExp(`API requests: ${managedDescriptors.length + modules.length} `));

    // Make the same things through the API, in the plan's order.
    const client = new ApiClient({ baseUrl: server.url, apiKey: KEY });
    try {
      // An ID known only after apply comes from the answer of the change that made it.
      const made = new Map<string, string>();
      for (const c of saved.changes) {
        for (const planned of c.requests) {
          const filled = fillKnownAfterApply(planned, (a) => made.get(a)) as PlannedRequest;
          // As the applier sends it: what the API takes of the body (a traffic policy as text).
          const d = descriptorFor(c.kind);
          const wire = isManaged(d) && d.wireBody && filled.body ? d.wireBody(filled.body) : filled.body;
          const r = { ...filled, ...(wire ? { body: wire } : {}) };
          if (r.method === 'POST')
            made.set(c.address, (await client.post<{ id: string }>(r.path, r.body)).id);
          else if (r.method === 'PUT') await client.put(r.path, r.body);
          else if (r.method === 'PATCH') await client.patch(r.path, r.body);
          else await client.delete(r.path);
        }
      }
    } finally {
      await client.close();
    }

    const second = await run('--detailed-exitcode');
    expect(second.code, second.out + second.err).toBe(0);
    expect(second.out).toContain('No changes.');
    const json = await run('--json');
    const again = JSON.parse(json.out) as Plan;
    expect(again.changes.every((c) => c.action === 'no-op')).toBe(true);
    expect(again.api_url).toBe(server.url);
    const md = await run('--markdown');
    expect(md.out).toContain('No changes. The account matches the file.');
  });

  it('exits 3 when a safety rule refuses the plan', async () => {
    // Removing every entry would delete the protected office-dashboard restriction. The endpoint's
    // section is written empty: a file without it leaves the endpoint, which names the policies.
    const empty = join(dir, 'empty.yaml');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(empty, 'version: 1\nowner: platform\ncloud_endpoints: {}\n');
    const io = captureIo({ ACCORD_API_KEY: KEY, ACCORD_API_URL: server.url });
    const code = await main(['plan', '-f', empty, '--force'], io);
    expect(code, io.err).toBe(3);
    expect(io.out).toContain('Refused:');
    expect(io.out).toContain('ip_restrictions.office-dashboard: would delete');
  });

  it('exits 1 with a clear error when the key is refused, without showing it', async () => {
    const wrong = 'wrong-key-0123456789abcdef';
    const empty = join(dir, 'nomodules.yaml');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(empty, 'version: 1\nowner: platform\n');
    const io = captureIo({ ACCORD_API_KEY: wrong, ACCORD_API_URL: server.url });
    expect(await main(['plan', '-f', empty], io)).toBe(1);
    expect(io.err).toMatch(/^Error: .*401/);
    expect(io.err).not.toContain(wrong);
    expect(io.out).toBe('');

    // With --json, stdout is the error as an object: accord's code, the HTTP status, the service's code.
    const json = captureIo({ ACCORD_API_KEY: wrong, ACCORD_API_URL: server.url });
    expect(await main(['plan', '-f', empty, '--json'], json)).toBe(1);
    expect(JSON.parse(json.out)).toEqual({
      error: {
        code: 'ACCORD_API',
        message: expect.stringContaining('401'),
        http_status: 401,
        error_code: 'ERR_AUTH_INVALID',
        operation_id: expect.stringMatching(/^op_/),
      },
    });
    expect(json.err).toMatch(/^Error: .*401/);
    expect(json.out).not.toContain(wrong);
  });

  it('exits 1 with the file problems for an invalid file', async () => {
    const bad = join(dir, 'bad.yaml');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(bad, 'version: 1\nip_restrictions: {x: {type: nope}}\n');
    const io = captureIo({ ACCORD_API_KEY: KEY, ACCORD_API_URL: server.url });
    expect(await main(['plan', '-f', bad], io)).toBe(1);
    expect(io.err).toContain('bad.yaml');

    const json = captureIo({ ACCORD_API_KEY: KEY, ACCORD_API_URL: server.url });
    expect(await main(['plan', '-f', bad, '--json'], json)).toBe(1);
    const { error } = JSON.parse(json.out) as { error: { code: string; problems: { file: string }[] } };
    expect(error.code).toBe('ACCORD_CONFIG');
    expect(error.problems.length).toBeGreaterThan(0);
    expect(error.problems.every((p) => p.file.endsWith('bad.yaml'))).toBe(true);
    expect(json.err).toBe(io.err);
  });

  it('exits 1 with each plan problem by code for a file the account cannot be planned with', async () => {
    const gone = join(dir, 'gone-id.yaml');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      gone,
      'version: 1\nowner: platform\nip_restrictions:\n  office:\n    id: ipx_2gone00000000000000000000\n    type: api\n    enforced: false\n    ip_policies: [ipp_2demoOffice0000000000000000]\n',
    );
    const json = captureIo({ ACCORD_API_KEY: KEY, ACCORD_API_URL: server.url });
    expect(await main(['plan', '-f', gone, '--json'], json)).toBe(1);
    const { error } = JSON.parse(json.out) as { error: { code: string; plan_problems: unknown[] } };
    expect(error.code).toBe('ACCORD_PLAN');
    expect(error.plan_problems).toEqual([
      {
        code: 'id_unknown',
        message: expect.stringMatching(
          /^ip_restrictions\.office \(.*gone-id\.yaml:4:\d+\): id ipx_2gone0+ does not exist in the account; remove id: or fix it$/,
        ),
      },
    ]);
  });
});
