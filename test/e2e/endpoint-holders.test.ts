// An endpoint whose traffic policy names an IP policy keeps it: accord lists the endpoints when a plan
// deletes a policy or changes the rules of one the account has, and refuses to delete a policy a
// `restrict-ips` action names. A plan that changes no rule lists no endpoint. Against `accord serve`
// over real HTTP, with the endpoint made through its API as a user's other tool would.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accord, listAll, markerOf } from '../apply/helpers.js';
import { useSeededService } from '../support/server.js';

const KEY = 'test-key-endpoint-holders-0123456';
const OWNER = 'endpoint-holders';
const URL = 'https://admin.example.com';

describe('an endpoint naming a policy', () => {
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-endpoint-holders-'));
  const file = (name: string, policies: Record<string, string[]>, description = '') => {
    const path = join(dir, name);
    const lines = [
      'version: 1',
      `owner: ${OWNER}`,
      `ip_policies:${Object.keys(policies).length ? '' : ' {}'}`,
    ];
    for (const [key, rules] of Object.entries(policies)) {
      lines.push(`  ${key}:`, `    rules: [${rules.join(', ')}]`);
      if (description) lines.push(`    description: ${description}`);
    }
    writeFileSync(path, `${lines.join('\n')}\n`);
    return path;
  };
  const run = (args: string[]) => accord(server.url, KEY, args);
  const requests = async (path: string) => {
    const r = await run(['plan', '-f', path, '--stats']);
    return Number(/API requests: (\d+)/.exec(r.err)?.[1]);
  };

  it('is never left naming a deleted policy; listing it costs a request only when a rule changes', async () => {
    const start = file('start.yaml', { office: ['{allow: 10.0.0.0/8}'], spare: ['{allow: 192.0.2.0/24}'] });
    expect((await run(['apply', '-f', start, '--auto-approve'])).code).toBe(0);
    const policies = (await listAll(server.url, KEY, '/ip_policies', 'ip_policies')).filter(
      (o) => markerOf(o)?.owner === OWNER,
    );
    const office = String(policies.find((o) => markerOf(o)?.key === 'office')?.['id']);
    const created = await fetch(`${server.url}/endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'service-version': '2', 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'cloud',
        url: URL,
        traffic_policy: `on_http_request:\n  - actions:\n      - type: restrict-ips\n        config: {ip_policies: [${office}]}\n`,
      }),
    });
    expect(created.status).toBe(201);
    const endpoint = String(((await created.json()) as { id: string }).id);

    const gone = file('gone.yaml', { spare: ['{allow: 192.0.2.0/24}'] });
    const refused = await run(['plan', '-f', gone]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      `ip_policies.office: would delete ${office}, which endpoint ${URL} (${endpoint}: its traffic policy) still names after this plan`,
    );

    // The endpoints (and the TCP edges) are listed only when a rule changes or a policy goes.
    const described = file(
      'described.yaml',
      { office: ['{allow: 10.0.0.0/8}'], spare: ['{allow: 192.0.2.0/24}'] },
      'x',
    );
    const widened = file('widened.yaml', {
      office: ['{allow: 10.0.0.0/8}', '{allow: 198.51.100.0/24}'],
      spare: ['{allow: 192.0.2.0/24}'],
    });
    expect(await requests(described)).toBe(await requests(start));
    expect(await requests(widened)).toBe((await requests(described)) + 2);
  });
});
