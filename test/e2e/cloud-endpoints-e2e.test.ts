// Cloud endpoints end to end: accord plan, apply, export and plan again, in-process against the local
// service over real HTTP (its /endpoints checks every policy document as production does).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import type { Plan } from '../../src/plan/types.js';
import { accord, listAll, markerOf, type Obj, OFFICE } from '../apply/helpers.js';
import { useSeededService } from '../support/server.js';

const KEY = 'test-key-cloud-endpoints-0123456789';

describe('cloud endpoints against accord serve', () => {
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-endpoints-'));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return path;
  };
  const run = (args: string[]) => accord(server.url, KEY, args, { cwd: dir });
  const endpoints = () => listAll(server.url, KEY, '/endpoints', 'endpoints');
  const client = () => new ApiClient({ baseUrl: server.url, apiKey: KEY });
  const planJson = async (f: string) => {
    const r = await run(['plan', '-f', f, '--json']);
    expect(r.code, r.err).toBe(0);
    return JSON.parse(r.out) as Plan;
  };

  it('plans, applies and plans nothing more: a policy named by key made in the same plan, inline and from a file', async () => {
    file(
      'one/policies/admin.yaml',
      [
        '# the admin console: office and the new VPN only',
        'on_http_request:',
        '  - name: office and vpn',
        '    actions:',
        '      - type: restrict-ips',
        `        config: {ip_policies: [vpn-new, ${OFFICE}], deny: ["203.0.113.66/32"]}`,
        '',
      ].join('\n'),
    );
    const f = file(
      'one/accord.yaml',
      [
        'version: 1',
        'owner: ep-one',
        'ip_policies:',
        '  vpn-new:',
        '    rules: [{allow: 192.0.2.0/24}]',
        'cloud_endpoints:',
        '  admin:',
        '    url: https://admin-one.example.com',
        '    traffic_policy_file: policies/admin.yaml',
        '  api:',
        '    url: https://api-one.example.com',
        '    description: the API, from anywhere but one range',
        '    traffic_policy:',
        '      on_tcp_connect:',
        '        - actions:',
        '            - type: restrict-ips',
        "              config: {allow: ['0.0.0.0/0', '::/0'], deny: [198.51.100.0/24]}",
        '',
      ].join('\n'),
    );
    const first = await planJson(f);
    const admin = first.changes.find((c) => c.address === 'cloud_endpoints.admin')!;
    expect(admin.action).toBe('create');
    expect(admin.depends_on).toContain('ip_policies.vpn-new');
    const applied = await run(['apply', '-f', f, '--auto-approve']);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out).toMatch(/Apply complete: 4 created/);

    const live = (await endpoints()).filter((e) => markerOf(e)?.owner === 'ep-one');
    expect(live.map((e) => markerOf(e)?.key).sort()).toEqual(['admin', 'api']);
    const policies = await listAll(server.url, KEY, '/ip_policies', 'ip_policies');
    const vpn = policies.find((p) => markerOf(p)?.key === 'vpn-new')!;
    // Sent as JSON text, with the real ID of the policy this apply made.
    const sent = JSON.parse(String(live.find((e) => markerOf(e)?.key === 'admin')!['traffic_policy']));
    expect([...sent.on_http_request[0].actions[0].config.ip_policies].sort()).toEqual(
      [OFFICE, vpn['id']].sort(),
    );

    const again = await run(['plan', '-f', f, '--detailed-exitcode']);
    expect(again.code, again.out + again.err).toBe(0);

    // The same document as YAML, keys reordered and commented, is no change.
    const api = live.find((e) => markerOf(e)?.key === 'api')!;
    const c = client();
    await c.patch(`/endpoints/${String(api['id'])}`, {
      traffic_policy:
        'on_tcp_connect:\n  - actions:\n      - config: {deny: ["198.51.100.0/24"], allow: ["::/0", 0.0.0.0/0]} # reordered\n        type: restrict-ips\n',
    });
    await c.close();
    const yaml = await run(['plan', '-f', f, '--detailed-exitcode']);
    expect(yaml.code, yaml.out + yaml.err).toBe(0);

    // A policy changed outside accord is drift, put back by the next apply.
    const outside = client();
    await outside.patch(`/endpoints/${String(api['id'])}`, {
      traffic_policy: JSON.stringify({
        on_tcp_connect: [{ actions: [{ type: 'restrict-ips', config: { allow: ['0.0.0.0/0', '::/0'] } }] }],
      }),
    });
    await outside.close();
    const drift = await run(['drift', '-f', f]);
    expect(drift.code, drift.out + drift.err).toBe(2);
    expect(drift.out).toContain('cloud_endpoints.api');
    expect(drift.out).toContain('traffic_policy');
    expect((await run(['apply', '-f', f, '--auto-approve'])).code).toBe(0);
    expect((await run(['plan', '-f', f, '--detailed-exitcode'])).code).toBe(0);

    // A changed policy and URL: one PATCH, shown as a structured diff.
    writeFileSync(
      f,
      readFileSync(f, 'utf8')
        .replace('api-one.example.com', 'api-one-b.example.com')
        .replace('deny: [198.51.100.0/24]', 'deny: [198.51.100.0/24, 198.51.101.0/24]'),
    );
    const changed = await run(['plan', '-f', f]);
    expect(changed.out).toContain('~ url = "https://api-one.example.com" -> "https://api-one-b.example.com"');
    expect(changed.out).toMatch(
      /^ +~ traffic_policy:\n +~ +on_tcp_connect\[0\]\n +~ +restrict-ips \(actions\[0\]\)\n +\+ +deny 198\.51\.101\.0\/24$/m,
    );
    // --target and --exclude choose endpoints by address, as any entry.
    const targeted = await run(['plan', '-f', f, '--target', 'cloud_endpoints.api', '--json']);
    const chosen = JSON.parse(targeted.out) as Plan;
    expect(chosen.changes.filter((ch) => ch.action !== 'no-op').map((ch) => ch.address)).toEqual([
      'cloud_endpoints.api',
    ]);
    const excluded = await run(['plan', '-f', f, '--exclude', 'cloud_endpoints', '--detailed-exitcode']);
    expect(excluded.code, excluded.out).toBe(0);
    const patched = await run(['apply', '-f', f, '--auto-approve']);
    expect(patched.code, patched.err).toBe(0);
    expect(patched.out).toMatch(/Apply complete: 0 created, 1 patched/);
    expect((await run(['plan', '-f', f, '--detailed-exitcode'])).code).toBe(0);

    // An empty section deletes this owner's endpoints; the service's other endpoints stay.
    writeFileSync(
      f,
      'version: 1\nowner: ep-one\nip_policies:\n  vpn-new:\n    rules: [{allow: 192.0.2.0/24}]\ncloud_endpoints: {}\n',
    );
    const emptied = await run(['apply', '-f', f, '--auto-approve']);
    expect(emptied.code, emptied.err).toBe(0);
    expect(emptied.out).toMatch(/Apply complete: 0 created, 0 patched, 0 put, 0 replaced, 2 deleted/);
  });

  it('adopts an endpoint by id, refuses a create into a URL another object holds, and leaves files without the section alone', async () => {
    const c = client();
    const made = await c.post<Obj>('/endpoints', {
      type: 'cloud',
      url: 'https://held.example.com',
      traffic_policy: JSON.stringify({
        on_http_request: [{ actions: [{ type: 'restrict-ips', config: { ip_policies: [OFFICE] } }] }],
      }),
    });
    await c.close();
    const policy = `    traffic_policy:\n      on_http_request:\n        - actions: [{type: restrict-ips, config: {ip_policies: [${OFFICE}]}}]\n`;
    const held = file(
      'two/held.yaml',
      `version: 1\nowner: ep-two\ncloud_endpoints:\n  held:\n    url: https://held.example.com\n${policy}`,
    );
    const refused = await run(['plan', '-f', held]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`adopt it with id: ${String(made['id'])} on this entry`);
    expect(refused.err).toContain('or change the url');

    const adopt = file(
      'two/adopt.yaml',
      `version: 1\nowner: ep-two\ncloud_endpoints:\n  held:\n    id: ${String(made['id'])}\n    url: https://held.example.com\n${policy}`,
    );
    const plan = await planJson(adopt);
    expect(plan.changes.map((ch) => `${ch.action} ${ch.address}`)).toEqual(['adopt cloud_endpoints.held']);
    expect((await run(['apply', '-f', adopt, '--auto-approve'])).code).toBe(0);
    expect((await run(['plan', '-f', adopt, '--detailed-exitcode'])).code).toBe(0);

    // A file of this owner without the section lists no endpoint and deletes none.
    const none = file('two/none.yaml', 'version: 1\nowner: ep-two\n');
    const untouched = await planJson(none);
    expect(untouched.changes.filter((ch) => ch.kind === 'cloud_endpoint')).toEqual([]);
  });

  it('exports endpoints with their policies as YAML, exported policies by key, and plans the export as adopts only', async () => {
    const c = client();
    await c.post<Obj>('/endpoints', {
      type: 'cloud',
      url: 'https://exported.example.com',
      description: 'made elsewhere',
      traffic_policy: `on_http_request:\n  - actions:\n      - type: restrict-ips\n        config: {ip_policies: [${OFFICE}], deny: [203.0.113.66/32]}\n`,
    });
    await c.close();
    const out = join(dir, 'three', 'accord.yaml');
    mkdirSync(dirname(out), { recursive: true });
    const exported = await run(['export', '--owner', 'exported', '-o', out]);
    expect(exported.code, exported.err).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).toMatch(/^cloud_endpoints:$/m);
    expect(text).toContain('url: https://exported.example.com');
    // The seed's office policy is exported too, so the endpoint names it by its key.
    const entry = text.slice(text.indexOf('made elsewhere'));
    expect(entry).toMatch(/ip_policies:\s*\n\s*- office\n/);
    expect(entry).not.toContain(OFFICE);
    const plan = await planJson(out);
    const actions = new Set(plan.changes.map((ch) => ch.action));
    expect(
      [...actions].every((a) => a === 'adopt' || a === 'no-op'),
      JSON.stringify([...actions]),
    ).toBe(true);
    expect((await run(['apply', '-f', out, '--auto-approve', '--allow-takeover'])).code).toBe(0);
    const again = await run(['plan', '-f', out, '--detailed-exitcode']);
    expect(again.code, again.out).toBe(0);
  });
});
