// The lockout guard (DESIGN §2), end to end: each way a plan can leave a scope that lets addresses
// through today letting none through (or none of one address family, for a scope enforced today) is
// refused with exit 3, and the same plan goes through with --force. Every case starts from an account
// where the dashboard lets 10.0.0.0/8 through and the api lets 10.0.0.0/8 and 2001:db8::/32 through.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import type { RunningServer } from '../../src/server/index.js';
import { accord } from '../apply/helpers.js';
import { serveSeeded } from '../support/server.js';

const KEY = 'lockout-key-0123456789abcdef';

const POLICIES = {
  office: ['allow: 10.0.0.0/8'],
  dual: ['allow: 10.0.0.0/8', 'allow: 2001:db8::/32'],
  empty: [],
  denyonly: ['deny: 10.0.0.0/8'],
  v6only: ['allow: 2001:db8::/32'],
  spare: ['allow: 192.0.2.0/24'],
} as const;
type PolicyName = keyof typeof POLICIES;

interface Desired {
  policies?: Partial<Record<PolicyName, readonly string[]>>;
  restrictions?: Record<string, { type: string; policies: readonly string[] }>;
}

function policiesYaml(policies: Desired['policies'] = POLICIES): string[] {
  const lines = ['ip_policies:'];
  for (const [name, rules] of Object.entries(policies)) {
    lines.push(`  ${name}:`, rules.length === 0 ? '    rules: []' : '    rules:');
    for (const rule of rules) lines.push(`      - ${rule}`);
  }
  return lines;
}

function restrictionsYaml(restrictions: Desired['restrictions'] = BASE_RESTRICTIONS): string[] {
  const lines = ['ip_restrictions:'];
  for (const [key, r] of Object.entries(restrictions)) {
    lines.push(
      `  ${key}:`,
      `    type: ${r.type}`,
      '    enforced: true',
      `    ip_policies: [${r.policies.join(', ')}]`,
    );
  }
  return lines;
}

const BASE_RESTRICTIONS = {
  dash: { type: 'dashboard', policies: ['office'] },
  apikey: { type: 'api', policies: ['dual'] },
};

const yaml = (...parts: string[][]) =>
  ['version: 1', 'owner: lockout', ...parts.flat()].join('\n').concat('\n');

describe('the lockout guard refuses, and --force lets through', () => {
  let server: RunningServer;
  let dir: string;
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const run = (args: string[], env: Record<string, string> = {}) =>
    accord(server.url, KEY, args, { env: { ACCORD_API_KEY: KEY, ACCORD_API_URL: server.url, ...env } });

  beforeEach(async () => {
    server = await serveSeeded(KEY);
    dir = mkdtempSync(join(tmpdir(), 'accord-lockout-'));
    const base = write('base.yaml', yaml(policiesYaml(), restrictionsYaml()));
    const applied = await run(['apply', '-f', base, '--auto-approve']);
    expect(applied.code, applied.err).toBe(0);
  });
  afterEach(async () => {
    await server?.close();
  });

  /** Plan refused with exit 3 naming `message`; with --force, planned (exit 0) with it as a warning. */
  async function expectRefused(args: string[], message: RegExp, env: Record<string, string> = {}) {
    const refused = await run(['plan', ...args], env);
    expect(refused.out + refused.err).toMatch(message);
    expect(refused.code).toBe(3);
    const forced = await run(['plan', ...args, '--force'], env);
    expect(forced.code, forced.err).toBe(0);
    expect(forced.out + forced.err).toMatch(message);
    expect(forced.out + forced.err).toMatch(/allowed by --force/);
  }

  const DASH =
    /would lock out all dashboard traffic: .*where today it lets through 10\.0\.0\.0\/8 \(16,777,216 addresses\)/;

  it.each<[string, Desired, RegExp]>([
    [
      'an empty policy swapped in',
      { restrictions: { ...BASE_RESTRICTIONS, dash: { type: 'dashboard', policies: ['empty'] } } },
      DASH,
    ],
    [
      'a deny-only policy swapped in',
      { restrictions: { ...BASE_RESTRICTIONS, dash: { type: 'dashboard', policies: ['denyonly'] } } },
      DASH,
    ],
    [
      'a type moved between keys, the dashboard landing on an empty policy',
      {
        restrictions: {
          dash: { type: 'api', policies: ['dual'] },
          apikey: { type: 'dashboard', policies: ['empty'] },
        },
      },
      DASH,
    ],
    [
      'deny 0.0.0.0/0 and deny ::/0 shadowing every allow',
      { policies: { ...POLICIES, office: ['allow: 10.0.0.0/8', 'deny: 0.0.0.0/0', 'deny: ::/0'] } },
      DASH,
    ],
    [
      'an IPv6-only allow where IPv4 was let through',
      { restrictions: { ...BASE_RESTRICTIONS, apikey: { type: 'api', policies: ['v6only'] } } },
      /would lock out all IPv4 api traffic: after this plan ip_restrictions\.apikey names policies \(ip_policies\.v6only\) that let no IPv4 address through, where today it lets through 10\.0\.0\.0\/8/,
    ],
    [
      'an IPv4-only policy where IPv6 was let through',
      { restrictions: { ...BASE_RESTRICTIONS, apikey: { type: 'api', policies: ['office'] } } },
      /would lock out all IPv6 api traffic: .*where today it lets through 2001:db8::\/32 \(79,228,162,514,264,337,593,543,950,336 addresses\)/,
    ],
  ])('%s', async (_name, desired, message) => {
    const f = write(
      'next.yaml',
      yaml(policiesYaml(desired.policies), restrictionsYaml(desired.restrictions)),
    );
    await expectRefused(['-f', f], message);
  });

  it('an unmanaged deny-only policy named by ID', async () => {
    const client = new ApiClient({ baseUrl: server.url, apiKey: KEY });
    const policy = await client.post<{ id: string }>('/ip_policies', { description: 'not ours' });
    await client.post('/ip_policy_rules', { ip_policy_id: policy.id, action: 'deny', cidr: '10.0.0.0/8' });
    await client.close();
    const f = write(
      'next.yaml',
      yaml(
        policiesYaml(),
        restrictionsYaml({ ...BASE_RESTRICTIONS, dash: { type: 'dashboard', policies: [policy.id] } }),
      ),
    );
    await expectRefused(['-f', f], DASH);
  });

  it('--target of the restriction alone', async () => {
    const f = write(
      'next.yaml',
      yaml(
        policiesYaml({ ...POLICIES, spare: ['allow: 192.0.2.0/25'] }),
        restrictionsYaml({ ...BASE_RESTRICTIONS, dash: { type: 'dashboard', policies: ['empty'] } }),
      ),
    );
    await expectRefused(['-f', f, '--target', 'ip_restrictions.dash'], DASH);
  });

  // The policy keeps a rule in these two: the service never deletes the only rule of a policy the
  // dashboard restriction uses (ERR_NGROK_1419), so a plan that would is a plan error (test/traffic/refusals.test.ts).
  it('--exclude of another policy, the allow rule deleted', async () => {
    const f = write(
      'next.yaml',
      yaml(
        policiesYaml({ ...POLICIES, office: ['deny: 192.0.2.0/24'], spare: ['allow: 192.0.2.0/25'] }),
        restrictionsYaml(),
      ),
    );
    await expectRefused(['-f', f, '--exclude', 'ip_policies.spare'], DASH);
  });

  it('split files, given as a directory and through ACCORD_FILES', async () => {
    const split = join(dir, 'split');
    mkdirSync(split);
    writeFileSync(
      join(split, 'policies.yaml'),
      yaml(policiesYaml({ ...POLICIES, office: ['deny: 10.0.0.0/8', 'deny: 192.0.2.0/24'] })),
    );
    writeFileSync(
      join(split, 'restrictions.yaml'),
      ['version: 1', ...restrictionsYaml()].join('\n').concat('\n'),
    );
    await expectRefused(['-f', split], DASH);
    await expectRefused([], DASH, {
      ACCORD_FILES: `${join(split, 'policies.yaml')}:${join(split, 'restrictions.yaml')}`,
    });
  });

  it('lets through a plan that narrows without emptying, and warns of rules that do nothing', async () => {
    const f = write(
      'next.yaml',
      yaml(
        policiesYaml({
          ...POLICIES,
          office: ['allow: 10.0.0.0/8', 'deny: 10.1.0.0/16', 'deny: 192.0.2.0/24'],
          spare: ['allow: 10.1.2.0/24'],
        }),
        restrictionsYaml({
          ...BASE_RESTRICTIONS,
          dash: { type: 'dashboard', policies: ['office', 'spare'] },
        }),
      ),
    );
    const planned = await run(['plan', '-f', f]);
    expect(planned.code, planned.out + planned.err).toBe(0);
    expect(planned.out).toContain('ip_policies.office/192.0.2.0/24: deny 192.0.2.0/24 does nothing');
    expect(planned.out).toContain('ip_policies.spare/10.1.2.0/24: allow 10.1.2.0/24 does nothing');
    expect(planned.out).not.toMatch(/10\.1\.0\.0\/16: .*does nothing/);
  });
});
