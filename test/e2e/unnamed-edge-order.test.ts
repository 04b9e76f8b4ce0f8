// A TCP edge whose module the files do not name is a scope like any other (DESIGN §4 "Never fail open"):
// a plan that changes the rules of a policy its module names lists the edges, orders the rule changes
// for the edge, and judges the edge (reach lines, the lockout guard). Against `accord serve` over real
// HTTP with a limit of two rules per policy, so that a create is refused (ERR_NGROK_1411) midway.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accord, listAll, markerOf } from '../apply/helpers.js';
import { TCP_EDGE, useSeededService } from '../support/server.js';

const KEY = 'test-key-unnamed-edge-order-01234';
const EDGE = `TCP edge ${TCP_EDGE}`;

describe('a TCP edge the files do not name', () => {
  const server = useSeededService(KEY, { limits: { rulesPerPolicy: 2 } });
  const dir = mkdtempSync(join(tmpdir(), 'accord-unnamed-edge-'));
  const file = (name: string, policies: Record<string, string[]>, owner = 'unnamed-edge') => {
    const path = join(dir, name);
    const lines = ['version: 1', `owner: ${owner}`, 'ip_policies:'];
    for (const [key, rules] of Object.entries(policies))
      lines.push(`  ${key}:`, `    rules: [${rules.join(', ')}]`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    return path;
  };
  const run = (args: string[]) => accord(server.url, KEY, args);
  const ours = async (path: string, listKey: string, owner = 'unnamed-edge') =>
    (await listAll(server.url, KEY, path, listKey)).filter((o) => markerOf(o)?.owner === owner);
  const nameOnEdge = async (keys: string[], owner?: string) => {
    const policies = await ours('/ip_policies', 'ip_policies', owner);
    const ids = keys.map((k) => String(policies.find((o) => markerOf(o)?.key === k)?.['id']));
    const put = await fetch(`${server.url}/edges/tcp/${TCP_EDGE}/ip_restriction`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${KEY}`, 'service-version': '2', 'content-type': 'application/json' },
      body: JSON.stringify({ ip_policy_ids: ids }),
    });
    expect(put.status).toBe(200);
  };

  it('keeps a deny that moves between its policies when the create in the new one is refused', async () => {
    const start = file('start.yaml', {
      p: ['{allow: 10.0.0.0/8}', '{deny: 10.1.0.0/16}'],
      q: ['{allow: 192.0.2.0/24}', '{allow: 198.51.100.0/24}'],
    });
    expect((await run(['apply', '-f', start, '--auto-approve'])).code).toBe(0);
    await nameOnEdge(['p', 'q']);

    const moved = file('moved.yaml', {
      p: ['{allow: 10.0.0.0/8}'],
      q: ['{allow: 192.0.2.0/24}', '{allow: 198.51.100.0/24}', '{deny: 10.1.0.0/16}'],
    });
    // Listing the edges and the endpoints costs one request each, made only when a policy the account
    // has changes its rules.
    const requests = async (path: string) => {
      const r = await run(['plan', '-f', path, '--stats']);
      return Number(/API requests: (\d+)/.exec(r.err)?.[1]);
    };
    const described = join(dir, 'described.yaml');
    writeFileSync(described, `${readFileSync(start, 'utf8')}    description: renamed\n`);
    expect(await requests(moved)).toBe((await requests(described)) + 2);
    expect(await requests(described)).toBe(await requests(start));

    const plan = await run(['plan', '-f', moved, '--json']);
    expect(plan.code, plan.err).toBe(0);
    const changes = (JSON.parse(plan.out) as { changes: { address: string; depends_on: string[] }[] })
      .changes;
    const del = changes.find((c) => c.address === 'ip_policies.p/10.1.0.0/16');
    expect(del?.depends_on).toContain('ip_policies.q/10.1.0.0/16');

    // The service refuses q's third rule: the deny in p must stay.
    const applied = await run(['apply', '-f', moved, '--auto-approve']);
    expect(applied.code).toBe(1);
    expect(applied.out + applied.err).toContain('ERR_NGROK_1411');
    const rules = (await ours('/ip_policy_rules', 'ip_policy_rules')).map(
      (r) => `${r['action']} ${r['cidr']}`,
    );
    expect(rules).toContain('deny 10.1.0.0/16');
    const reach = await run(['reach', '10.1.2.3', '-f', start]);
    expect(reach.out).toContain(`  ${EDGE}: now shut out (deny 10.1.0.0/16 of p)`);
  });

  it('is judged by the lockout guard when a rule change would shut it, also with --target', async () => {
    const office = file('office.yaml', { office: ['{allow: 10.20.0.0/16}'] }, 'lockout');
    expect((await run(['apply', '-f', office, '--auto-approve'])).code).toBe(0);
    await nameOnEdge(['office'], 'lockout');
    const denied = file('denied.yaml', { office: ['{deny: 10.0.0.0/8}'] }, 'lockout');
    const refused = await run(['plan', '-f', denied]);
    expect(refused.code, refused.out).toBe(3);
    expect(refused.out).toContain(`x would lock out all ${EDGE} traffic`);
    const targeted = await run(['plan', '-f', denied, '--target', 'ip_policies.office/*']);
    expect(targeted.code, targeted.out).toBe(3);
    expect(targeted.out).toContain(`x would lock out all ${EDGE} traffic`);
  });
});
