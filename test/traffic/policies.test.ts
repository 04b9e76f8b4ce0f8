// IP policies and their rules in the planner (DESIGN §2 "IP policies and their rules", §4): a managed
// policy owns its whole rule set, a rule is named by its policy and CIDR, references by key resolve to
// the live ID or to its ID known after apply with a dependency, and the account's IDs are checked.
import { describe, expect, it } from 'vitest';
import type { LiveState } from '../../src/account/model.js';
import { plan } from '../../src/cli/worded-plan.js';
import { PlanError } from '../../src/plan/planner.js';
import { knownAfterApply } from '../../src/plan/references.js';
import type { Plan, PlanChange } from '../../src/plan/types.js';
import { driftReport, hasDrift } from '../../src/render/drift.js';
import {
  desiredState,
  emptyLive,
  IPP_1,
  ipr,
  livePolicy,
  liveRule,
  marker,
  NOW,
  OPTIONS,
  policy,
  tcpModule,
  withPolicies,
} from '../plan/fixtures.js';
import { FakeAccount } from '../support/account.js';

const P1 = 'ipp_000000000000000000000000p01';

function live(parts: Partial<LiveState['managed']> = {}, modules: LiveState['modules'] = {}): LiveState {
  const managed = emptyLive().managed;
  for (const [kind, objects] of Object.entries(parts)) {
    const k = kind as keyof LiveState['managed'];
    managed[k] = [...managed[k], ...(objects ?? [])];
  }
  return { managed, modules };
}

/** `address action [reasons]` of every change that does something. */
function summary(p: Plan): string[] {
  return p.changes
    .filter((c) => c.action !== 'no-op')
    .map((c) => `${c.address} ${c.action} [${c.reasons.join('; ')}]`);
}

function at(p: Plan, address: string): PlanChange {
  const c = p.changes.find((x) => x.address === address);
  expect(c, address).toBeDefined();
  return c!;
}

/** The office policy, managed, with its live rules (IDs ipr_r1, ipr_r2, ...). */
function office(rules: Parameters<typeof liveRule>[2][], markRules = true): Partial<LiveState['managed']> {
  return {
    ip_policy: [livePolicy(P1, { metadata: marker('office') })],
    ip_policy_rule: rules.map((r, i) =>
      liveRule(`ipr_r${i + 1}`, P1, r, markRules ? { metadata: marker(`office/${r[1]}`) } : {}),
    ),
  };
}

describe('IP policies: creating', () => {
  it('creates a policy, its rules and a restriction naming it by key, in dependency order', () => {
    const desired = desiredState({
      ...withPolicies(
        policy('office', [
          ['allow', '203.0.113.0/24', 'HQ'],
          ['deny', '203.0.113.66/32'],
        ]),
      ),
      ip_restrictions: [ipr('dash', { ip_policy_ids: ['office'] })],
    });
    const p = plan(desired, live(), NOW, OPTIONS);
    expect(summary(p)).toEqual([
      'ip_policies.office create [not in the account yet]',
      'ip_policies.office/203.0.113.0/24 create [not in the account yet]',
      'ip_policies.office/203.0.113.66/32 create [not in the account yet]',
      'ip_restrictions.dash create [not in the account yet]',
    ]);
    const rule = at(p, 'ip_policies.office/203.0.113.0/24');
    expect(rule.depends_on).toContain('ip_policies.office');
    const office = knownAfterApply('ip_policies.office');
    // A value of its own, which the plan's JSON shows as it always has.
    expect(rule.after?.['ip_policy']).toBe(office);
    expect(JSON.stringify(rule.after?.['ip_policy'])).toBe('"(known after apply: ip_policies.office)"');
    expect(rule.requests[0]?.body).toMatchObject({
      ip_policy_id: office,
      action: 'allow',
      cidr: '203.0.113.0/24',
      description: 'HQ',
    });
    const restriction = at(p, 'ip_restrictions.dash');
    expect(restriction.after?.['ip_policies']).toEqual([office]);
    expect(restriction.depends_on).toContain('ip_policies.office');
    // The policy is whole before anything uses it.
    expect(restriction.depends_on).toEqual(
      expect.arrayContaining(['ip_policies.office/203.0.113.0/24', 'ip_policies.office/203.0.113.66/32']),
    );
  });

  it('runs against the account with the IDs filled in, and then plans nothing', () => {
    const account = new FakeAccount(NOW);
    const desired = desiredState({
      ...withPolicies(
        policy('office', [
          ['allow', '203.0.113.0/24', 'HQ'],
          ['deny', '203.0.113.66/32'],
        ]),
      ),
      ip_restrictions: [ipr('dash', { ip_policy_ids: ['office', IPP_1] })],
      tcp_edge_ip_restrictions: [tcpModule('edgtcp_1', { ip_policy_ids: ['office'] })],
    });
    account.execute(plan(desired, account.live(desired), NOW, OPTIONS));
    const [made] = account.objects('ip_policy').filter((o) => String(o['id']).includes('m'));
    const restriction = account.objects('ip_restriction')[0]!;
    expect((restriction['ip_policies'] as { id: string }[]).map((r) => r.id).sort()).toEqual(
      [String(made!['id']), IPP_1].sort(),
    );
    expect(summary(plan(desired, account.live(desired), NOW, OPTIONS))).toEqual([]);
  });
});

describe('IP policies: a managed policy owns its whole rule set', () => {
  const rules = (...r: Parameters<typeof liveRule>[2][]) => desiredState(withPolicies(policy('office', r)));

  it('adds, removes and changes the description of rules', () => {
    const p = plan(
      rules(['allow', '10.0.0.0/8', 'new text'], ['allow', '192.0.2.0/24']),
      live(
        office([
          ['allow', '10.0.0.0/8', 'old text'],
          ['deny', '198.51.100.0/24'],
        ]),
      ),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual([
      'ip_policies.office/10.0.0.0/8 patch [description changed]',
      'ip_policies.office/192.0.2.0/24 create [not in the account yet]',
      'ip_policies.office/198.51.100.0/24 delete [not in the file]',
    ]);
    // The live policy's ID, not a placeholder: nothing to wait for.
    expect(at(p, 'ip_policies.office/192.0.2.0/24').requests[0]?.body?.['ip_policy_id']).toBe(P1);
  });

  it('a changed CIDR is another rule: a delete and a create', () => {
    const p = plan(rules(['allow', '10.1.0.0/16']), live(office([['allow', '10.0.0.0/8']])), NOW, OPTIONS);
    expect(summary(p)).toEqual([
      'ip_policies.office/10.0.0.0/8 delete [not in the file]',
      'ip_policies.office/10.1.0.0/16 create [not in the account yet]',
    ]);
  });

  it('a flip deletes the old rule first, then creates the new one', () => {
    const p = plan(rules(['deny', '10.0.0.0/8']), live(office([['allow', '10.0.0.0/8']])), NOW, OPTIONS);
    expect(summary(p)).toEqual([
      'ip_policies.office/10.0.0.0/8 create [action cannot be updated: replaces ipr_r1, which is deleted first]',
      'ip_policies.office/10.0.0.0/8#ipr_r1 delete [action cannot be updated: deleted, then created again as ip_policies.office/10.0.0.0/8]',
    ]);
    expect(at(p, 'ip_policies.office/10.0.0.0/8').depends_on).toContain(
      'ip_policies.office/10.0.0.0/8#ipr_r1',
    );
    // A rule deleted by a flip or as `not in the file` counts as destroyed.
    expect(p.safety.destroyed).toBe(1);
  });

  it('deletes an unmarked rule added outside accord, and adopts one the file lists', () => {
    const p = plan(
      rules(['allow', '10.0.0.0/8']),
      live(
        office(
          [
            ['allow', '10.0.0.0/8'],
            ['allow', '0.0.0.0/0'],
          ],
          false,
        ),
      ),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual([
      'ip_policies.office/0.0.0.0/0 delete [not in the file: added outside accord (it carries no marker of this owner)]',
      'ip_policies.office/10.0.0.0/8 adopt [adopts ipr_r1: ip_policies.office lists every one it holds; marker changed]',
    ]);
    // Drift: the rule is the account's alone, every field it shows; a rule accord made and the file
    // dropped is not.
    expect(driftReport(p).changes).toEqual([
      {
        address: 'ip_policies.office/0.0.0.0/0',
        kind: 'ip_policy_rule',
        id: 'ipr_r2',
        fields: [
          { field: 'action', source: 'outside', live: 'allow', file: undefined, accord_wrote: undefined },
          { field: 'cidr', source: 'outside', live: '0.0.0.0/0', file: undefined, accord_wrote: undefined },
        ],
      },
    ]);
    const dropped = plan(rules(), live(office([['allow', '0.0.0.0/0']])), NOW, OPTIONS);
    expect(summary(dropped)).toEqual(['ip_policies.office/0.0.0.0/0 delete [not in the file]']);
    expect(hasDrift(driftReport(dropped))).toBe(false);
  });

  it("leaves the rules of unmanaged and other owners' policies alone", () => {
    const p = plan(
      desiredState(),
      live({
        ip_policy: [livePolicy('ipp_other', { metadata: marker('x', { owner: 'team-b' }) })],
        ip_policy_rule: [liveRule('ipr_o', 'ipp_other', ['allow', '10.0.0.0/8'])],
      }),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual([]);
  });

  it('renaming a policy re-keys its rules', () => {
    const p = plan(
      desiredState(withPolicies(policy('hq', [['allow', '10.0.0.0/8']], { id: P1 }))),
      live(office([['allow', '10.0.0.0/8']])),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual([
      'ip_policies.hq patch [renamed from office]',
      'ip_policies.hq/10.0.0.0/8 patch [renamed from office/10.0.0.0/8]',
    ]);
  });
});

describe('IP policies: adoption', () => {
  it('adopts an unmanaged policy by id: with its rule set, whose difference it shows', () => {
    const p = plan(
      desiredState(
        withPolicies(
          policy(
            'office',
            [
              ['allow', '10.0.0.0/8'],
              ['deny', '10.9.0.0/16'],
            ],
            { id: P1 },
          ),
        ),
      ),
      live({
        ip_policy: [livePolicy(P1)],
        ip_policy_rule: [
          liveRule('ipr_a', P1, ['allow', '10.0.0.0/8']),
          liveRule('ipr_b', P1, ['allow', '172.16.0.0/12']),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual([
      `ip_policies.office adopt [adopts unmanaged ${P1} named by id:; marker changed]`,
      'ip_policies.office/10.0.0.0/8 adopt [adopts ipr_a: ip_policies.office lists every one it holds; marker changed]',
      'ip_policies.office/10.9.0.0/16 create [not in the account yet]',
      'ip_policies.office/172.16.0.0/12 delete [not in the file]',
    ]);
  });
});

describe('IP policies: references', () => {
  it('an ipp_ ID the account does not have is a plan error at its entry', () => {
    const desired = desiredState({ ip_restrictions: [ipr('dash', { ip_policy_ids: ['ipp_nope'] })] });
    expect(() => plan(desired, live(), NOW, OPTIONS)).toThrow(PlanError);
    expect(() => plan(desired, live(), NOW, OPTIONS)).toThrow(
      /ip_restrictions\.dash \(\/w\/accord\.yaml:1:1\): ip_policies names ipp_nope, which the account does not have/,
    );
  });

  it('a key of a policy the account has resolves to its ID', () => {
    const p = plan(
      desiredState({
        ...withPolicies(policy('office', [['allow', '10.0.0.0/8']])),
        ip_restrictions: [ipr('dash', { ip_policy_ids: ['office'] })],
      }),
      live({ ...office([['allow', '10.0.0.0/8']]), ip_restriction: [] }),
      NOW,
      OPTIONS,
    );
    expect(at(p, 'ip_restrictions.dash').after?.['ip_policies']).toEqual([P1]);
  });
});

describe('IP policies: safety', () => {
  it('refuses deleting a policy that a restriction still names after the plan, and warns of endpoints', () => {
    const desired = desiredState({ ip_restrictions: [] });
    const account = live({
      ...office([['allow', '10.0.0.0/8']]),
      ip_restriction: [
        {
          id: 'ipx_u',
          created_at: '2026-01-01T00:00:00Z',
          type: 'api',
          enforced: true,
          ip_policies: [{ id: P1 }],
        },
      ],
    });
    expect(() => plan(desired, account, NOW, OPTIONS)).toThrow(
      new RegExp(
        `ip_policies\\.office: would delete ${P1}, which IP restriction ipx_u \\(api\\) still names after this plan \\(the service refuses to delete a policy an IP restriction names, ERR_NGROK_1420\\)`,
      ),
    );
    const unused = live(office([['allow', '10.0.0.0/8']]));
    const p = plan(desired, unused, NOW, OPTIONS);
    expect(summary(p)).toEqual(['ip_policies.office delete [not in the file]']);
    expect(p.warnings).toContain(
      `ip_policies.office: the endpoints were not listed, so endpoint traffic policies may still name ${P1}; check them before applying`,
    );
  });

  it('refuses a lockout (exit 3) unless --force; an existing one is a warning; allow-all warns', () => {
    const desired = desiredState({
      ...withPolicies(policy('office', [['deny', '10.0.0.0/8']])),
      ip_restrictions: [ipr('dash', { ip_policy_ids: ['office'] })],
    });
    const account = live({ ...office([['allow', '10.0.0.0/8']]), ip_restriction: [] });
    const refused = plan(desired, account, NOW, OPTIONS);
    expect(refused.safe).toBe(false);
    expect(refused.unsafe_reasons).toEqual([
      expect.stringMatching(
        /^would lock out all dashboard traffic: after this plan ip_restrictions\.dash names policies \(ip_policies\.office\) that let no address through, where today it lets through everyone;/,
      ),
    ]);
    const forced = plan(desired, account, NOW, { ...OPTIONS, force: true });
    expect(forced.safe).toBe(true);
    expect(
      forced.warnings.some(
        (w) => w.startsWith('would lock out all dashboard traffic') && w.endsWith('allowed by --force'),
      ),
    ).toBe(true);

    // Already shut out, and unchanged by the plan: a warning only.
    const locked = live({
      ...office([['deny', '10.0.0.0/8']]),
      ip_restriction: [
        {
          id: 'ipx_d',
          created_at: '2026-01-01T00:00:00Z',
          type: 'dashboard',
          enforced: true,
          ip_policies: [{ id: P1 }],
          metadata: marker('dash'),
        },
      ],
    });
    const existing = plan(desired, locked, NOW, OPTIONS);
    expect(existing.safe).toBe(true);
    expect(
      existing.warnings.some((w) =>
        w.startsWith('dashboard: no address is let through, today or after this plan'),
      ),
    ).toBe(true);

    const open = plan(
      desiredState(withPolicies(policy('office', [['allow', '0.0.0.0/0']]))),
      live(),
      NOW,
      OPTIONS,
    );
    expect(open.warnings).toContain('ip_policies.office/0.0.0.0/0: allow 0.0.0.0/0 allows every address');
  });
});
