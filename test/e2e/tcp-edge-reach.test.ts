// Reach over a TCP edge whose module the files do not name (DESIGN §4 "Reach"): `accord reach` lists
// the edges and shows that edge, and a plan that lists them (one changing a policy's rules) shows a rule change
// of the edge's policy on the edge's reach line; the lockout guard refuses the edge shut. Against
// `accord serve` over real HTTP, through the CLI in-process.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/types.js';
import type { ReachReport } from '../../src/render/reach-report.js';
import { accord, listAll, markerOf } from '../apply/helpers.js';
import { TCP_EDGE, useSeededService } from '../support/server.js';

const KEY = 'test-key-tcp-edge-reach-0123456';
const EDGE = `TCP edge ${TCP_EDGE}`;

describe('reach over a TCP edge the files do not name', () => {
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-edge-reach-'));
  const file = (name: string, policies: Record<string, string[]>) => {
    const path = join(dir, name);
    const lines = ['version: 1', 'owner: edge-reach', 'ip_policies:'];
    for (const [key, rules] of Object.entries(policies))
      lines.push(`  ${key}:`, `    rules: [${rules.join(', ')}]`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    return path;
  };
  const run = (args: string[]) => accord(server.url, KEY, args);
  const clients = ['{allow: 10.20.0.0/16}'];
  const narrowed = ['{allow: 10.20.0.0/16}', '{deny: 10.20.30.0/24}'];

  it('shows in accord reach and, once a plan lists the edges, a rule change on its reach line', async () => {
    const both = file('both.yaml', { 'edge-clients': clients, spare: ['{allow: 192.0.2.0/24}'] });
    expect((await run(['apply', '-f', both, '--auto-approve'])).code).toBe(0);
    const ours = (await listAll(server.url, KEY, '/ip_policies', 'ip_policies')).filter(
      (o) => markerOf(o)?.owner === 'edge-reach',
    );
    const id = String(ours.find((o) => markerOf(o)?.key === 'edge-clients')?.['id']);
    const put = await fetch(`${server.url}/edges/tcp/${TCP_EDGE}/ip_restriction`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${KEY}`, 'service-version': '2', 'content-type': 'application/json' },
      body: JSON.stringify({ ip_policy_ids: [id] }),
    });
    expect(put.status).toBe(200);

    // A rule change only; the plan deletes no policy.
    const change = file('change.yaml', { 'edge-clients': narrowed, spare: ['{allow: 192.0.2.0/24}'] });
    const reach = await run(['reach', '10.20.30.5', '-f', change]);
    expect(reach.code, reach.err).toBe(0);
    expect(reach.out).toContain(
      `${EDGE}: now 10.20.0.0/16 (65,536 addresses); per the files 10.20.0.0/20, 10.20.16.0/21, 10.20.24.0/22 and 5 more (65,280 addresses)\n`,
    );
    expect(reach.out).toContain(
      `  ${EDGE}: now let through (allow 10.20.0.0/16 of edge-clients); per the files shut out (deny 10.20.30.0/24 of edge-clients)\n`,
    );
    const json = JSON.parse((await run(['reach', '-f', change, '--json'])).out) as ReachReport;
    expect(json.scopes.map((s) => s.scope)).toContain(`tcp_edges.${TCP_EDGE}`);
    expect(json.notes).toEqual([]);

    // A plan that changes a policy's rules lists the TCP edges: the edge's reach line shows the change.
    const ruleChange = await run(['plan', '-f', change]);
    expect(ruleChange.code, ruleChange.err).toBe(0);
    expect(ruleChange.out).toContain(`  tcp_edges.${TCP_EDGE}: shuts out 10.20.30.0/24 (256 addresses)`);

    const deleting = file('deleting.yaml', { 'edge-clients': narrowed });
    const listed = await run(['plan', '-f', deleting]);
    expect(listed.code, listed.err).toBe(0);
    expect(listed.out).toContain(`  tcp_edges.${TCP_EDGE}: shuts out 10.20.30.0/24 (256 addresses)`);
    const plan = JSON.parse((await run(['plan', '-f', deleting, '--json'])).out) as Plan;
    expect(plan.reach.find((r) => r.scope === `tcp_edges.${TCP_EDGE}`)?.shut_out).toEqual({
      everyone: false,
      cidrs: ['10.20.30.0/24'],
      addresses: '256',
    });

    // Rules that let no IPv4 address through the edge: the lockout guard refuses.
    const shut = file('shut.yaml', { 'edge-clients': ['{deny: 10.20.0.0/16}'] });
    const refused = await run(['plan', '-f', shut]);
    expect(refused.code).toBe(3);
    expect(refused.out).toContain(
      `x would lock out all ${EDGE} traffic: after this plan its module names policies (ip_policies.edge-clients) that let no address through, where today it lets through 10.20.0.0/16 (65,536 addresses)`,
    );

    // drift lists the edges when its plan deletes a policy, and checks the guards on them.
    const guards = join(dir, 'guards.yaml');
    writeFileSync(guards, 'version: 1\nguards:\n  all:\n    always_let_in: [10.30.0.0/16]\n');
    const drift = await run(['drift', '-f', deleting, '-f', guards]);
    expect(drift.code).toBe(2);
    expect(drift.out).toContain(
      `guards.yaml:3): ${EDGE}: always_let_in: 10.30.0.0/16 is shut out (65,536 addresses)`,
    );
  });

  it('notes a service without the list of TCP edges or of endpoints, and shows the rest', async () => {
    // The same service, but GET /edges/tcp and /endpoints answer 404 as a service without them would.
    const proxy = createServer((req, res) => {
      if (req.method === 'GET' && ['/edges/tcp', '/endpoints'].includes(req.url?.split('?')[0] ?? '')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error_code: 'ERR_NGROK_404', status_code: 404, msg: 'not found' }));
        return;
      }
      const forward = request(
        server.url + (req.url ?? '/'),
        { method: req.method, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const none = join(dir, 'none.yaml');
      writeFileSync(none, 'version: 1\nowner: edge-reach-none\n');
      const reach = await accord(url, KEY, ['reach', '-f', none]);
      expect(reach.code, reach.err).toBe(0);
      expect(reach.out).toContain('endpoints: now everyone (no restriction); per the files the same\n');
      expect(reach.out).not.toContain(EDGE);
      expect(reach.out).toContain(
        '\nNote: The service has no list of TCP edges (GET /edges/tcp), so only the TCP edges the files name are shown; others may have an IP restriction module of their own.\n',
      );
      expect(reach.out).toContain(
        '\nNote: The service has no list of endpoints (GET /endpoints), so no endpoint is shown; their traffic policies may restrict them further.\n',
      );
      const json = JSON.parse((await accord(url, KEY, ['reach', '-f', none, '--json'])).out) as ReachReport;
      expect(json.notes).toHaveLength(2);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
