// Reach as tables: the pictures of a plan (what the account decides, and after the plan's changes),
// each scope's set, and what decides one address.
import { describe, expect, it } from 'vitest';
import { accountOf } from '../../src/account/model.js';
import { plan } from '../../src/cli/worded-plan.js';
import { judgeReach } from '../../src/traffic/lockout.js';
import { decide, picturesOf, reachOf, type TrafficPicture } from '../../src/traffic/reach.js';
import {
  desiredState,
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

const OFFICE = 'ipp_00000000000000000000office1';
const OTHER = 'ipp_000000000000000000000other1';

const picture: TrafficPicture = {
  bindings: new Map([
    ['dashboard', { enforced: true, policies: [OFFICE, OTHER] }],
    ['api', { enforced: false, policies: [OFFICE] }],
    ['tcp_edges.edgtcp_1', { enforced: false, policies: [OFFICE] }],
  ]),
  rules: new Map([
    [
      OFFICE,
      [
        { id: 'ipr_1', policy: OFFICE, action: 'allow', cidr: '10.0.0.0/8' },
        { id: 'ipr_2', policy: OFFICE, action: 'allow', cidr: '10.1.0.0/16' },
      ],
    ],
    [OTHER, [{ id: 'ipr_3', policy: OTHER, action: 'deny', cidr: '10.1.2.0/24' }]],
  ]),
  edges: new Set(['tcp_edges.edgtcp_1']),
};

describe('decide', () => {
  it.each([
    ['dashboard', '10.1.5.5', { let: true, by: 'allow', rule: { id: 'ipr_2', cidr: '10.1.0.0/16' } }],
    ['dashboard', '10.9.9.9', { let: true, by: 'allow', rule: { id: 'ipr_1', cidr: '10.0.0.0/8' } }],
    ['dashboard', '10.1.2.3', { let: false, by: 'deny', rule: { id: 'ipr_3', cidr: '10.1.2.0/24' } }],
    ['dashboard', '192.0.2.1', { let: false, by: 'no allow matches' }],
    ['dashboard', '2001:db8::1', { let: false, by: 'no allow matches' }],
    ['api', '192.0.2.1', { let: true, by: 'warn-only' }],
    ['tcp_edges.edgtcp_1', '192.0.2.1', { let: true, by: 'disabled' }],
    ['agent', '192.0.2.1', { let: true, by: 'no restriction' }],
  ])('%s, %s: %j', (scope, address, expected) => {
    expect(decide(picture, scope, address)).toMatchObject(expected);
  });

  it('refuses what is not an address', () => {
    expect(() => decide(picture, 'dashboard', '10.0.0.0/8')).toThrow(
      '10.0.0.0/8 is not an IPv4 or IPv6 address',
    );
  });
});

describe('reachOf', () => {
  it('takes the account, then the plan changes: a type moved between keys, a policy swapped, an edge', () => {
    const account = new FakeAccount(NOW);
    account.add('ip_policy', livePolicy(OFFICE, { metadata: marker('office') }));
    account.add(
      'ip_policy_rule',
      liveRule('ipr_o1', OFFICE, ['allow', '10.0.0.0/8'], { metadata: marker('office/10.0.0.0/8') }),
    );
    for (const [key, type] of [
      ['one', 'dashboard'],
      ['two', 'api'],
    ] as const) {
      account.add('ip_restriction', {
        id: `ipx_${key}`,
        created_at: '2026-01-01T00:00:00Z',
        description: '',
        metadata: marker(key),
        type,
        enforced: true,
        ip_policies: [{ id: OFFICE }],
      });
    }
    const desired = desiredState({
      ...withPolicies(
        policy('office', [['allow', '10.0.0.0/8']]),
        policy('vpn', [['allow', '2001:db8::/32']]),
      ),
      ip_restrictions: [
        ipr('one', { type: 'api', ip_policy_ids: ['office'] }),
        ipr('two', { type: 'dashboard', ip_policy_ids: ['vpn'] }),
      ],
      tcp_edge_ip_restrictions: [tcpModule('edgtcp_1', { ip_policy_ids: ['office', 'vpn'] })],
    });
    const live = account.live(desired);
    const p = plan(desired, live, NOW, { ...OPTIONS, force: true });
    const reach = reachOf(p.changes, accountOf(live));
    expect(reach.map((r) => [r.scope, r.before.cidrs(), r.after.cidrs()])).toEqual([
      ['dashboard', ['10.0.0.0/8'], ['2001:db8::/32']],
      ['api', ['10.0.0.0/8'], ['10.0.0.0/8']],
      ['agent', ['0.0.0.0/0', '::/0'], ['0.0.0.0/0', '::/0']],
      ['endpoints', ['0.0.0.0/0', '::/0'], ['0.0.0.0/0', '::/0']],
      ['tcp_edges.edgtcp_1', ['0.0.0.0/0', '::/0'], ['10.0.0.0/8', '2001:db8::/32']],
    ]);
    const { after } = picturesOf(p.changes, accountOf(live));
    expect(decide(after, 'dashboard', '2001:db8::5')).toMatchObject({
      let: true,
      by: 'allow',
      rule: { id: null },
    });
    expect(after.bindings.get('dashboard')?.source).toBe('ip_restrictions.two');
  });
});

describe('judgeReach: rules that do nothing', () => {
  it('warns of a rule the plan keeps as it is, made idle by a rule the plan adds to its policy', () => {
    const account = new FakeAccount(NOW);
    account.add('ip_policy', livePolicy(OFFICE, { metadata: marker('office') }));
    for (const [id, cidr] of [
      ['ipr_o1', '10.0.0.0/8'],
      ['ipr_o2', '10.1.0.0/16'],
    ] as const) {
      account.add(
        'ip_policy_rule',
        liveRule(id, OFFICE, ['allow', cidr], { metadata: marker(`office/${cidr}`) }),
      );
    }
    account.add('ip_restriction', {
      id: 'ipx_one',
      created_at: '2026-01-01T00:00:00Z',
      description: '',
      metadata: marker('one'),
      type: 'dashboard',
      enforced: true,
      ip_policies: [{ id: OFFICE }],
    });
    const desired = desiredState({
      ...withPolicies(
        policy('office', [
          ['allow', '10.0.0.0/8'],
          ['allow', '10.1.0.0/16'],
          ['deny', '10.0.0.0/9'],
        ]),
      ),
      ip_restrictions: [ipr('one', { type: 'dashboard', ip_policy_ids: ['office'] })],
    });
    const live = account.live(desired);
    const p = plan(desired, live, NOW, { ...OPTIONS, force: true });
    expect(p.changes.find((c) => c.id === 'ipr_o2')?.action).toBe('no-op');
    const idle = judgeReach(p.changes, accountOf(live)).warnings.filter((w) => w.code === 'idle_rule');
    expect(idle).toEqual([
      expect.objectContaining({ action: 'allow', cidr: '10.1.0.0/16', scopes: ['dashboard'] }),
    ]);
  });
});
