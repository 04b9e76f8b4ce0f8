// A policy the file manages, named by a TCP edge's module that the file does not name, and then taken
// out of the file (DESIGN §2): before deleting it accord lists the TCP edges and refuses while a module
// names it, naming the edge (`plan` exits 1); once the module no longer names it, one apply deletes
// the policy and its rules. Against `accord serve` over real HTTP, through the CLI in-process.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accord, listAll, markerOf } from '../apply/helpers.js';
import { TCP_EDGE, useSeededService } from '../support/server.js';

const KEY = 'test-key-tcp-edge-reference-0123';

describe('a policy named by a TCP edge module the file does not name', () => {
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-edge-ref-'));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const run = (args: string[]) => accord(server.url, KEY, [...args, '--stats']);
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method,
      headers: {
        authorization: `Bearer ${KEY}`,
        'service-version': '2',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: res.status === 204 ? undefined : await res.json() };
  };
  const ours = async (path: string, key: string) =>
    (await listAll(server.url, KEY, path, key)).filter((o) => markerOf(o)?.owner === 'edges');

  it('is kept (plan exits 1 naming the edge); once the module lets go, one apply deletes it and its rules', async () => {
    const withPolicy = file(
      'with.yaml',
      'version: 1\nowner: edges\nip_policies:\n  db-clients:\n    rules:\n      - allow: 10.20.0.0/16\n      - deny: 10.20.30.0/24\n',
    );
    const first = await run(['apply', '-f', withPolicy, '--auto-approve']);
    expect(first.err).not.toContain('Error');
    expect(first.code).toBe(0);
    const [policy] = await ours('/ip_policies', 'ip_policies');
    const id = String(policy?.['id']);
    expect((await call('PUT', `/edges/tcp/${TCP_EDGE}/ip_restriction`, { ip_policy_ids: [id] })).status).toBe(
      200,
    );

    const without = file('without.yaml', 'version: 1\nowner: edges\n');
    const refused = await run(['plan', '-f', without]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      `ip_policies.db-clients: would delete ${id}, which TCP edge ${TCP_EDGE} (its IP restriction module) still names after this plan`,
    );
    const applyRefused = await run(['apply', '-f', without, '--auto-approve']);
    expect(applyRefused.code).toBe(1);
    expect(await ours('/ip_policies', 'ip_policies')).toHaveLength(1);

    expect((await call('DELETE', `/edges/tcp/${TCP_EDGE}/ip_restriction`)).status).toBe(204);
    const applied = await run(['apply', '-f', without, '--auto-approve']);
    expect(applied.code).toBe(0);
    // The rules go with their policy: one DELETE.
    expect(applied.out).toContain('Plan: 0 to create, 0 to patch, 0 to put, 0 to replace, 1 to delete');
    expect(applied.out).not.toContain('TCP edge');
    expect(await ours('/ip_policies', 'ip_policies')).toEqual([]);
    const rules = await listAll(server.url, KEY, '/ip_policy_rules', 'ip_policy_rules');
    expect(rules.filter((r) => (r['ip_policy'] as { id: string }).id === id)).toEqual([]);
    expect((await run(['plan', '-f', without, '--detailed-exitcode'])).code).toBe(0);
  });

  it('lists the TCP edges, one page per 100, only when the plan deletes a policy', async () => {
    const keep = file(
      'keep.yaml',
      'version: 1\nowner: counted\nip_policies:\n  p:\n    rules:\n      - allow: 10.9.0.0/16\n',
    );
    expect((await run(['apply', '-f', keep, '--auto-approve'])).code).toBe(0);
    const requests = (stderr: string) => Number(/API requests: (\d+)/.exec(stderr)?.[1]);
    const unchanged = await run(['plan', '-f', keep]);
    const deleting = await run(['plan', '-f', file('none.yaml', 'version: 1\nowner: counted\n')]);
    expect(deleting.code).toBe(0);
    // The same lists, and one page each of the (fewer than 100) TCP edges and endpoints.
    expect(requests(deleting.err)).toBe(requests(unchanged.err) + 2);
  });
});
