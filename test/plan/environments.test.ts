// examples/environments end to end (DESIGN §1 "Several files"): one shared directory plus a staging and
// a production file, applied to two services; a change to the shared part is then planned for both,
// each plan showing only its own account.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/config/index.js';
import type { Plan } from '../../src/plan/types.js';
import { runMain } from '../support/cli.js';
import { entriesByKind, kindCounts } from '../support/kinds.js';
import { ROOT, useSeededService } from '../support/server.js';

const KEY = 'test-key-environments-0123456789';
const ENVIRONMENTS = ['staging', 'production'] as const;

describe('examples/environments against two accord serve instances', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accord-environments-'));
  cpSync(join(ROOT, 'examples', 'environments'), dir, { recursive: true });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const services = { staging: useSeededService(KEY), production: useSeededService(KEY) };

  const accord = (env: (typeof ENVIRONMENTS)[number], ...args: string[]) =>
    runMain(
      [...args, '-f', 'shared', '-f', `${env}.yaml`],
      { ACCORD_API_KEY: KEY, ACCORD_API_URL: services[env].url },
      { cwd: dir },
    );

  it('validates each environment with per-file counts', async () => {
    const r = await runMain(['validate', '-f', 'shared', '-f', 'production.yaml'], {}, { cwd: dir });
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out.split('\n').slice(0, 5)).toEqual([
      'shared/certificate-authorities.yaml: 1 certificate authority',
      'shared/ip-policies.yaml: 2 IP policies, 4 IP policy rules',
      'shared/owner.yaml: no entries',
      'shared/restrictions.yaml: 2 IP restrictions',
      'production.yaml: 2 SSH host certificates, 1 TCP edge IP restriction module, 2 websocket TCP converter modules',
    ]);
    const state = await loadDesiredState(['shared', 'production.yaml'], dir);
    expect(entriesByKind(state)).toMatchObject({
      ip_policy: 2,
      ip_policy_rule: 4,
      ip_restriction: 2,
      certificate_authority: 1,
      ssh_host_certificate: 2,
      tcp_edge_ip_restriction: 1,
      websocket_tcp_converter: 2,
    });
    const whole = r.out.split('\n')[5]!;
    expect(whole.startsWith(`5 files are valid: ${kindCounts(state)}; owner "platform"; `)).toBe(true);
    expect(whole).toMatch(
      /; metadata budget: \d+ bytes left at the tightest \(ip_policies\.office\/203\.0\.113\.66\/32\)\.$/,
    );
  });

  it('applies each environment to its own account; then a change to the shared part is planned for both', async () => {
    for (const env of ENVIRONMENTS) {
      const applied = await accord(env, 'apply', '--auto-approve');
      expect(applied.code, applied.err).toBe(0);
      const again = await accord(env, 'plan', '--detailed-exitcode');
      expect(again.code, again.out + again.err).toBe(0);
    }

    // The shared part changes: a restriction, and a rule of a shared policy.
    const restrictions = join(dir, 'shared', 'restrictions.yaml');
    const text = readFileSync(restrictions, 'utf8');
    writeFileSync(
      restrictions,
      text.replace('enforced: false # report only', 'enforced: true # report only'),
    );
    const line = text.split('\n').findIndex((l) => l.startsWith('  api-clients:')) + 1;
    const policies = join(dir, 'shared', 'ip-policies.yaml');
    const policyText = readFileSync(policies, 'utf8').replace(
      '      - allow: 198.51.100.0/24\n',
      '      - allow: 198.51.100.0/24\n      - allow: 192.0.2.128/25\n        description: new VPN exit\n',
    );
    writeFileSync(policies, policyText);
    const ruleLine = policyText.split('\n').findIndex((l) => l.includes('192.0.2.128/25')) + 1;

    const ids = new Set<string>();
    for (const env of ENVIRONMENTS) {
      const json = await accord(env, 'plan', '--json');
      expect(json.code, json.err).toBe(0);
      const plan = JSON.parse(json.out) as Plan;
      expect(plan.api_url).toBe(services[env].url);
      const changes = plan.changes.filter((c) => c.action !== 'no-op');
      expect(changes.map((c) => [c.address, c.action, c.source])).toEqual([
        ['ip_policies.vpn/192.0.2.128/25', 'create', { file: 'shared/ip-policies.yaml', line: ruleLine }],
        ['ip_restrictions.api-clients', 'patch', { file: 'shared/restrictions.yaml', line }],
      ]);
      // The new rule goes into this account's own vpn policy, by its ID here.
      const rule = changes[0]!.requests[0]!;
      expect(rule.body?.['ip_policy_id']).toBe(plan.changes.find((c) => c.address === 'ip_policies.vpn')?.id);
      ids.add(String(rule.body?.['ip_policy_id']));
      ids.add(String(changes[1]!.id));
      // Every entry's change names its file: the environment's own entries are in its own file only.
      const files = new Set(plan.changes.map((c) => c.source?.file));
      expect([...files].sort()).toEqual(
        [
          'shared/certificate-authorities.yaml',
          'shared/ip-policies.yaml',
          'shared/restrictions.yaml',
          `${env}.yaml`,
        ].sort(),
      );

      const text = await accord(env, 'plan');
      expect(text.out).toContain(
        `  # ip_restrictions.api-clients will be updated in place\n  # shared/restrictions.yaml:${line}\n`,
      );
      const other = env === 'staging' ? 'production' : 'staging';
      expect(text.out).not.toContain(`${other}.yaml`);
      expect(text.out).toContain(services[env].url);

      const markdown = await accord(env, 'plan', '--markdown');
      expect(markdown.out).toContain(`# shared/restrictions.yaml:${line}\n`);
    }
    // The same entries are different objects in each account: two policies, two restrictions.
    expect(ids.size).toBe(4);

    // A saved plan names every file it was made from, and apply PLAN.json plans again from the same
    // files, named by the command (here through ACCORD_FILES, as a CI job sets it); a plan of the
    // other environment is refused.
    const saved = await accord('production', 'plan', '--out', 'production-plan.json');
    expect(saved.code, saved.err).toBe(0);
    const plan = JSON.parse(readFileSync(join(dir, 'production-plan.json'), 'utf8')) as Plan;
    expect(plan.files).toEqual([
      'shared/certificate-authorities.yaml',
      'shared/ip-policies.yaml',
      'shared/owner.yaml',
      'shared/restrictions.yaml',
      'production.yaml',
    ]);
    const env = {
      ACCORD_API_KEY: KEY,
      ACCORD_API_URL: services.production.url,
      ACCORD_FILES: 'shared:production.yaml',
    };
    const staging = await accord('staging', 'plan', '--out', 'staging-plan.json');
    expect(staging.code, staging.err).toBe(0);
    const wrong = await runMain(['apply', 'staging-plan.json'], env, { cwd: dir });
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain(
      'the plan was made from other files: staging-plan.json names shared/certificate-authorities.yaml, shared/ip-policies.yaml, shared/owner.yaml, shared/restrictions.yaml, staging.yaml, and this apply reads shared/certificate-authorities.yaml, shared/ip-policies.yaml, shared/owner.yaml, shared/restrictions.yaml, production.yaml (from ACCORD_FILES)',
    );
    const owner = join(dir, 'shared', 'owner.yaml');
    const ownerText = readFileSync(owner, 'utf8');
    writeFileSync(owner, `${ownerText}# edited after the plan\n`);
    const changed = await runMain(['apply', 'production-plan.json'], env, { cwd: dir });
    expect(changed.code).toBe(1);
    expect(changed.err).toContain('the files changed since the plan was made');
    writeFileSync(owner, ownerText);
    const applied = await runMain(['apply', 'production-plan.json'], env, { cwd: dir });
    expect(applied.code, applied.err).toBe(0);
    expect((await accord('production', 'plan', '--detailed-exitcode')).code).toBe(0);
    expect((await accord('staging', 'plan', '--detailed-exitcode')).code).toBe(2);
  });
});
