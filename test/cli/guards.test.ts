// Guards and `accord reach` end to end: the built CLI as a process against `accord serve` in-process.
// Each guard kind refuses a plan (exit 3) with or without --force; validate checks what the files
// alone decide; drift reports a guard the account breaks (exit 2) and plan mends it; reach explains an
// address let in by one policy and shut out by another.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import type { DriftReport } from '../../src/render/drift.js';
import type { ReachReport } from '../../src/render/reach-report.js';
import { runProcess } from '../support/cli.js';
import { CLI, OFFICE, useSeededService } from '../support/server.js';

const KEY = 'test-key-guards-0123456789';

describe('guards and accord reach against accord serve', () => {
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-guards-'));
  const write = (name: string, lines: string[]) => {
    writeFileSync(join(dir, name), `${lines.join('\n')}\n`);
    return name;
  };
  const run = (...args: string[]) =>
    runProcess('node', [CLI, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH, ACCORD_API_URL: server.url, ACCORD_API_KEY: KEY, NO_COLOR: '1' },
    });

  /** A policy `office` with `rules`, an `agent` restriction naming it, and `guard` in its own file. */
  const agentFiles = (rules: string[], guard: string[], enforced = true) => {
    write('agent.yaml', [
      'version: 1',
      'owner: guards-agent',
      'ip_policies:',
      '  office:',
      `    rules: [${rules.join(', ')}]`,
      'ip_restrictions:',
      '  agent:',
      '    type: agent',
      `    enforced: ${enforced}`,
      '    ip_policies: [office]',
    ]);
    write('agent-guards.yaml', ['version: 1', 'guards:', '  agent:', ...guard.map((l) => `    ${l}`)]);
    return ['-f', 'agent.yaml', '-f', 'agent-guards.yaml'];
  };

  const refusals = [
    {
      kind: 'enforced',
      files: () => agentFiles(['{allow: 10.0.0.0/8}'], ['enforced: true'], false),
      says: 'guards.agent (agent-guards.yaml:3): agent: enforced: would have a warn-only restriction, not an enforced restriction',
    },
    {
      kind: 'always_let_in',
      files: () =>
        agentFiles(['{allow: 10.0.0.0/8}', '{deny: 10.1.0.0/16}'], ['always_let_in: [10.1.2.0/24]']),
      says: 'guards.agent (agent-guards.yaml:3): agent: always_let_in: 10.1.2.0/24 would be shut out (256 addresses)',
    },
    {
      kind: 'only_let_in',
      files: () => agentFiles(['{allow: 0.0.0.0/0}'], ['only_let_in: [128.0.0.0/1]']),
      says: 'guards.agent (agent-guards.yaml:3): agent: only_let_in: 0.0.0.0/1 would be let in (2,147,483,648 addresses)',
    },
  ];
  for (const r of refusals) {
    it(`${r.kind}: plan exits 3 naming the guard, the scope and the addresses, with or without --force; so does validate`, async () => {
      const files = r.files();
      for (const force of [[], ['--force']]) {
        const plan = await run('plan', ...files, ...force);
        expect(plan.code, plan.stderr).toBe(3);
        expect(plan.stdout).toContain(
          `x ${r.says}; --force does not lift a guard: change the rules, or the guard in its file`,
        );
      }
      if (r.kind === 'only_let_in') {
        // apply plans first: refused the same way, and nothing is changed.
        const apply = await run('apply', ...files, '--force', '--auto-approve');
        expect(apply.code, apply.stderr).toBe(3);
        expect((await run('plan', ...files, '--json')).stdout).toContain('"create"');
      }
      const validate = await run('validate', ...files);
      expect(validate.code).toBe(3);
      expect(validate.stdout).toContain('Guards: 1 scope checked on the files alone.');
      expect(validate.stderr).toBe(
        `${r.says}\n1 guard breach: applying these files would break their guards; change the rules, or the guard in its file.\n`,
      );
    });
  }

  it('validate leaves an endpoint guard (by URL or by address) to plan, and refuses a key that names no scope', async () => {
    write('endpoint-guards.yaml', [
      'version: 1',
      'cloud_endpoints:',
      '  admin:',
      '    url: https://console.example.com',
      '    traffic_policy: {on_http_request: [{actions: [{type: custom-response, config: {status_code: 200}}]}]}',
      'guards:',
      "  'https://admin.example.com': {always_let_in: [198.51.100.0/24]}",
      '  cloud_endpoints.admin: {enforced: true}',
    ]);
    const validate = await run('validate', '-f', 'endpoint-guards.yaml');
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toContain(
      'Guards: 0 scopes checked on the files alone; left to accord plan, which reads the account: https://admin.example.com (an endpoint, judged on the account by accord plan); cloud_endpoints.admin (an endpoint, judged on the account by accord plan).',
    );
    // A guard by an address no file has judges nothing: an error at its place, not left to plan.
    write('no-entry.yaml', ['version: 1', 'guards:', '  cloud_endpoints.admin: {enforced: true}']);
    const none = await run('validate', '-f', 'no-entry.yaml');
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(
      'no-entry.yaml:3:3: guards.cloud_endpoints.admin: names no entry of the files',
    );
    write('bad-guard.yaml', ['version: 1', 'guards:', '  admin.example.com: {enforced: true}']);
    const bad = await run('validate', '-f', 'bad-guard.yaml');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('or an endpoint as cloud_endpoints.<key> or by its URL (https://...)');
  });

  it('validate leaves to plan a scope whose policies only the account holds', async () => {
    write('by-id.yaml', [
      'version: 1',
      'ip_restrictions:',
      `  agent: {type: agent, enforced: true, ip_policies: [${OFFICE}]}`,
      'guards:',
      '  agent: {only_let_in: [10.0.0.0/8]}',
    ]);
    const validate = await run('validate', '-f', 'by-id.yaml');
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toContain(
      `Guards: 0 scopes checked on the files alone; left to accord plan, which reads the account: agent (ip_restrictions.agent names ${OFFICE}, whose rules only the account holds).`,
    );
    const plan = await run('plan', '-f', 'by-id.yaml');
    expect(plan.code).toBe(3);
    expect(plan.stdout).toContain(
      'guards.agent (by-id.yaml:5): agent: only_let_in: 203.0.113.0/24 would be let in (256 addresses)',
    );
  });

  it('drift reports a guard the account breaks (exit 2, text, JSON, Markdown); plan mends it', async () => {
    const files = ['-f', 'api.yaml', '-f', 'api-guards.yaml'];
    write('api.yaml', [
      'version: 1',
      'owner: guards-api',
      'ip_policies:',
      '  office: {rules: [{allow: 203.0.113.0/24}]}',
      'ip_restrictions:',
      '  api: {type: api, enforced: true, ip_policies: [office]}',
    ]);
    write('api-guards.yaml', ['version: 1', 'guards:', '  api: {only_let_in: [203.0.113.0/24]}']);
    const apply = await run('apply', ...files, '--auto-approve');
    expect(apply.code, apply.stderr).toBe(0);
    expect((await run('drift', ...files)).code).toBe(0);

    // Behind accord's back: one more allow rule in the policy the api restriction names.
    const client = new ApiClient({ baseUrl: server.url, apiKey: KEY });
    try {
      const restrictions = client.listAll<{ type: string; ip_policies: { id: string }[] }>(
        '/ip_restrictions',
        'ip_restrictions',
      );
      let policy = '';
      for await (const r of restrictions) if (r.type === 'api') policy = r.ip_policies[0]!.id;
      await client.post('/ip_policy_rules', {
        ip_policy_id: policy,
        action: 'allow',
        cidr: '198.51.100.0/24',
      });
    } finally {
      await client.close();
    }

    const breach =
      'guards.api (api-guards.yaml:3): api: only_let_in: 198.51.100.0/24 is let in (256 addresses)';
    const text = await run('drift', ...files);
    expect(text.code, text.stderr).toBe(2);
    expect(text.stdout).toContain(
      `Guards the account breaks (owner guards-api, ${server.url}):\n\n  ${breach}\n`,
    );
    expect(text.stdout).toContain('1 guard breach in the account');
    const json = await run('drift', ...files, '--json');
    expect(json.code).toBe(2);
    const report = JSON.parse(json.stdout) as DriftReport;
    expect(report.guard_breaches).toEqual([
      {
        guard: 'api',
        file: 'api-guards.yaml',
        line: 3,
        scope: 'api',
        rule: 'only_let_in',
        cidrs: ['198.51.100.0/24'],
        addresses: '256',
        message: breach,
      },
    ]);
    const markdown = await run('drift', ...files, '--markdown');
    expect(markdown.code).toBe(2);
    expect(markdown.stdout).toContain(`#### Guards broken\n\n- ${breach}\n`);

    // The plan deletes the rule the file does not list: it mends the breach, so it is not refused.
    const plan = await run('plan', ...files);
    expect(plan.code, plan.stdout).toBe(0);
    expect(plan.stdout).toContain(`! ${breach} in the account; this plan mends it`);
    expect((await run('apply', ...files, '--auto-approve')).code).toBe(0);
    expect(await run('drift', ...files)).toMatchObject({ code: 0 });
  });

  it('reach explains an address let in by one policy and shut out by another', async () => {
    const files = ['-f', 'dash.yaml'];
    const dash = (policies: string) =>
      write('dash.yaml', [
        'version: 1',
        'owner: guards-dash',
        'ip_policies:',
        '  blocked: {rules: [{deny: 203.0.113.64/26}]}',
        'ip_restrictions:',
        `  dashboard: {type: dashboard, enforced: true, ip_policies: [${policies}]}`,
      ]);
    dash(OFFICE);
    expect((await run('apply', ...files, '--auto-approve')).code).toBe(0);
    dash(`${OFFICE}, blocked`);

    const text = await run('reach', '203.0.113.70', '203.0.113.7', ...files);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(
      'dashboard: now 203.0.113.0/24 (256 addresses); per the files 203.0.113.0/26, 203.0.113.128/25 (192 addresses)\n',
    );
    expect(text.stdout).toContain(
      `203.0.113.70:\n  dashboard: now let through (allow 203.0.113.0/24 of ${OFFICE}); per the files shut out (deny 203.0.113.64/26 of blocked)\n`,
    );
    expect(text.stdout).toContain(
      `203.0.113.7:\n  dashboard: now let through (allow 203.0.113.0/24 of ${OFFICE}); per the files let through (allow 203.0.113.0/24 of ${OFFICE})\n`,
    );
    expect(text.stdout).toContain(
      '  endpoints: now let through (no restriction); per the files let through (no restriction)\n',
    );

    // The same address after --: explained just the same.
    const dashed = await run('reach', '--json', ...files, '--', '203.0.113.70');
    expect(dashed.code, dashed.stderr).toBe(0);
    const fromDashed = JSON.parse(dashed.stdout) as ReachReport;
    expect(fromDashed.addresses.map((a) => a.address)).toEqual(['203.0.113.70']);

    const json = await run('reach', '203.0.113.70', ...files, '--json');
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as ReachReport;
    const scope = report.addresses[0]!.scopes.find((s) => s.scope === 'dashboard')!;
    expect(scope).toEqual({
      scope: 'dashboard',
      now: {
        let_through: true,
        by: 'allow',
        cidr: '203.0.113.0/24',
        policy: OFFICE,
        decided_by: `allow 203.0.113.0/24 of ${OFFICE}`,
      },
      after: {
        let_through: false,
        by: 'deny',
        cidr: '203.0.113.64/26',
        policy: 'blocked',
        decided_by: 'deny 203.0.113.64/26 of blocked',
      },
    });
    expect(fromDashed.addresses).toEqual(report.addresses);
    expect(report.scopes.find((s) => s.scope === 'dashboard')?.after).toEqual({
      filter: 'enforced',
      everyone: false,
      cidrs: ['203.0.113.0/26', '203.0.113.128/25'],
      addresses: '192',
    });
  });

  it('reach refuses what is not an address before reading anything (exit 1), saying what to write', async () => {
    const range = await run('reach', '10.0.0.0/8', '-f', 'nowhere.yaml');
    expect([range.code, range.stdout]).toEqual([1, '']);
    expect(range.stderr).toBe(
      'Error: "10.0.0.0/8" is a range, not an address; accord reach explains one address at a time: give one, such as 10.0.0.0.\n',
    );
    // After --, every word is an address: `-1` is refused as one, not taken for an option and dropped.
    const dashed = await run('reach', '-f', 'nowhere.yaml', '--', '-1');
    expect([dashed.code, dashed.stdout]).toEqual([1, '']);
    expect(dashed.stderr).toBe(
      'Error: "-1" is not an IPv4 or IPv6 address; give one such as 203.0.113.7 or 2001:db8::1 (no port, no zone, no host name).\n',
    );
    const name = await run('reach', 'db.example.com', '-f', 'nowhere.yaml');
    expect(name.code).toBe(1);
    expect(name.stderr).toBe(
      'Error: "db.example.com" is not an IPv4 or IPv6 address; give one such as 203.0.113.7 or 2001:db8::1 (no port, no zone, no host name).\n',
    );
  });
});
