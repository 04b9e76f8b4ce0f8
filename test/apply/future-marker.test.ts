// A newer accord in the same pipeline writes marker fields this version does not know (DESIGN §2).
// Against the local service over real HTTP: this version still sees the objects as its own, creates
// no duplicate, and a PATCH it sends keeps those fields.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { useSeededService } from '../support/server.js';
import { accord, accordFile, listAll, markerOf, type Obj } from './helpers.js';

const KEY = 'test-key-future-marker-0123456789';

describe('a marker from a newer version', () => {
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-future-'));

  it('is matched by plan and apply, and a patch keeps its unknown fields', async () => {
    const file = join(dir, 'accord.yaml');
    const write = (enforced: boolean, description: string) =>
      writeFileSync(
        file,
        accordFile('future', ['web'], { office: { type: 'dashboard', enforced } }).replace(
          'principals: [web.example.com]',
          `principals: [web.example.com]\n    description: ${description}`,
        ),
      );
    const run = (...args: string[]) => accord(server.url, KEY, args);
    const mine = async (path: string, listKey: string) =>
      (await listAll(server.url, KEY, path, listKey)).filter((o) => markerOf(o)?.owner === 'future');

    write(true, 'one');
    expect((await run('apply', '-f', file, '--auto-approve')).code).toBe(0);

    // What a newer version would have written: one more field in `accord`, one beside it.
    const client = new ApiClient({ baseUrl: server.url, apiKey: KEY });
    const objects: [string, Obj][] = [
      ...(await mine('/ip_restrictions', 'ip_restrictions')).map(
        (o) => ['/ip_restrictions', o] as [string, Obj],
      ),
      ...(await mine('/ssh_host_certificates', 'ssh_host_certificates')).map(
        (o) => ['/ssh_host_certificates', o] as [string, Obj],
      ),
    ];
    expect(objects).toHaveLength(2);
    const future = new Map<string, unknown>();
    try {
      for (const [path, o] of objects) {
        const m = JSON.parse(String(o['metadata'])) as { accord: Record<string, unknown> };
        const next = { ...m, accord: { ...m.accord, rollout: 'canary' }, written_by: 'accord 9' };
        future.set(String(o['id']), next);
        await client.patch(`${path}/${String(o['id'])}`, { metadata: JSON.stringify(next) });
      }
    } finally {
      await client.close();
    }

    const plan = await run('plan', '-f', file, '--detailed-exitcode');
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect(plan.out).toContain('2 unmanaged left alone');

    write(false, 'two');
    const apply = await run('apply', '-f', file, '--auto-approve');
    expect(apply.code, apply.err).toBe(0);
    expect(apply.out).toMatch(/0 created, 2 patched/);
    const after = [
      ...(await mine('/ip_restrictions', 'ip_restrictions')),
      ...(await mine('/ssh_host_certificates', 'ssh_host_certificates')),
    ];
    expect(after.map((o) => o['id']).sort()).toEqual([...future.keys()].sort());
    for (const o of after) {
      // Everything the newer version wrote is kept; the fingerprint is this write's.
      const m = JSON.parse(String(o['metadata'])) as { accord: Record<string, unknown> };
      const was = future.get(String(o['id'])) as { accord: Record<string, unknown> };
      expect(m.accord['applied']).not.toBe(was.accord['applied']);
      expect({ ...m, accord: { ...m.accord, applied: 0 } }).toEqual({
        ...was,
        accord: { ...was.accord, applied: 0 },
      });
    }
    expect(after.find((o) => o['type'] === 'dashboard')!['enforced']).toBe(false);
  });
});
