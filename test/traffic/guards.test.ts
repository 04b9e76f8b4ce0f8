// Guards on reach in the planner (DESIGN §1 "Guards"): each kind refuses a plan whose result breaks
// it, --force or not; a breach only of the account that the plan mends is a warning; `all` covers
// every type and every TCP edge.
import { describe, expect, it } from 'vitest';
import { accountOf, type LiveState } from '../../src/account/model.js';
import { plan } from '../../src/cli/worded-plan.js';
import type { DesiredGuard } from '../../src/config/guard-model.js';
import { describeDecision, policyNames } from '../../src/traffic/governance.js';
import { guardBreaches, planScopeStates } from '../../src/traffic/guards.js';
import { decide, picturesOf, planCalculators } from '../../src/traffic/reach.js';
import {
  desiredState,
  emptyLive,
  emptyManaged,
  ipr,
  liveIpr,
  livePolicy,
  liveRule,
  marker,
  NOW,
  OPTIONS,
  policy,
  tcpModule,
  withPolicies,
} from '../plan/fixtures.js';

const P1 = 'ipp_000000000000000000000000p01';
const EDGE = 'edgtcp_000000000000000000000001';
const loc = { file: 'guards.yaml', line: 3, col: 3 };

const guard = (scope: string, g: Partial<DesiredGuard>): DesiredGuard => ({
  scope,
  enforced: false,
  always_let_in: [],
  loc,
  ...g,
});

/** The account: the office policy (managed) with `rules`, and a dashboard restriction naming it. */
function account(rules: [string, string][], enforced = true): LiveState {
  const managed = emptyManaged();
  managed.ip_policy.push(livePolicy(P1, { metadata: marker('office') }));
  managed.ip_policy_rule.push(
    ...rules.map(([action, cidr], i) =>
      liveRule(`ipr_r${i + 1}`, P1, [action as 'allow', cidr], { metadata: marker(`office/${cidr}`) }),
    ),
  );
  managed.ip_restriction.push(liveIpr('ipx_dash', { metadata: marker('dash'), enforced }, [P1]));
  return { managed, modules: {} };
}

/** The files: the office policy with `rules`, the dashboard restriction naming it, and `guards`. */
function files(rules: [string, string][], guards: DesiredGuard[], enforced = true) {
  return desiredState({
    ...withPolicies(policy('office', rules as ['allow' | 'deny', string][])),
    ip_restrictions: [ipr('dash', { ip_policy_ids: ['office'], enforced })],
    guards,
  });
}

const OFFICE: [string, string][] = [['allow', '198.51.100.0/24']];

describe('a guard refuses a plan whose result breaks it, with or without --force', () => {
  const cases: {
    name: string;
    rules: [string, string][];
    enforced?: boolean;
    guard: DesiredGuard;
    reason: string;
  }[] = [
    {
      name: 'enforced: the restriction would only warn',
      rules: OFFICE,
      enforced: false,
      guard: guard('dashboard', { enforced: true }),
      reason:
        'guards.dashboard (guards.yaml:3): dashboard: enforced: would have a warn-only restriction, not an enforced restriction',
    },
    {
      name: 'always_let_in: a deny shuts out part of it',
      rules: [...OFFICE, ['deny', '198.51.100.64/26']],
      guard: guard('dashboard', { always_let_in: ['198.51.100.0/24'] }),
      reason:
        'guards.dashboard (guards.yaml:3): dashboard: always_let_in: 198.51.100.64/26 would be shut out (64 addresses)',
    },
    {
      name: 'only_let_in: an allow reaches past it',
      rules: [['allow', '0.0.0.0/0']],
      guard: guard('all', { only_let_in: ['128.0.0.0/1', '::/0'] }),
      reason:
        'guards.all (guards.yaml:3): dashboard: only_let_in: 0.0.0.0/1 would be let in (2,147,483,648 addresses)',
    },
    {
      name: 'only_let_in: a type with no restriction lets everyone in',
      rules: OFFICE,
      guard: guard('api', { only_let_in: ['10.0.0.0/8'] }),
      reason: `guards.api (guards.yaml:3): api: only_let_in: 0.0.0.0/5, 8.0.0.0/7, 11.0.0.0/8 and 5 more, and every IPv6 address would be let in (${(2n ** 32n - 2n ** 24n + 2n ** 128n).toLocaleString('en-US')} addresses)`,
    },
    {
      name: 'only_let_in: none, and the type with no restriction lets everyone in',
      rules: OFFICE,
      guard: guard('api', { only_let_in: [] }),
      reason: 'guards.api (guards.yaml:3): api: only_let_in: everyone would be let in',
    },
    {
      name: 'only_let_in: an IPv4 allow of everyone, with IPv6 inside the guard',
      rules: [['allow', '0.0.0.0/0']],
      guard: guard('dashboard', { only_let_in: ['::/0'] }),
      reason:
        'guards.dashboard (guards.yaml:3): dashboard: only_let_in: every IPv4 address would be let in (4,294,967,296 addresses)',
    },
  ];
  for (const c of cases) {
    for (const force of [false, true]) {
      it(`${c.name}${force ? ' (--force)' : ''}`, () => {
        const p = plan(files(c.rules, [c.guard], c.enforced ?? true), account(OFFICE), NOW, {
          ...OPTIONS,
          force,
        });
        expect(p.safe).toBe(false);
        const reason = p.unsafe_reasons.find((r) => r.startsWith('guards.'));
        expect(reason).toBeDefined();
        expect(reason).toBe(
          `${c.reason}; --force does not lift a guard: change the rules, or the guard in its file`,
        );
      });
    }
  }

  it('guards that hold leave the plan safe, and the same guard with --force is no different', () => {
    const guards = [
      guard('dashboard', {
        enforced: true,
        always_let_in: ['198.51.100.0/25'],
        only_let_in: ['198.51.100.0/24', '2001:db8::/32'],
      }),
    ];
    const p = plan(files(OFFICE, guards), account(OFFICE), NOW, OPTIONS);
    expect([p.safe, p.unsafe_reasons, p.warnings]).toEqual([true, [], []]);
  });

  it('all covers a TCP edge: a disabled module breaks enforced', () => {
    const desired = files(OFFICE, [guard('all', { enforced: true })]);
    desired.tcp_edge_ip_restrictions = [tcpModule(EDGE, { enabled: false, ip_policy_ids: ['office'] })];
    const live = account(OFFICE);
    live.modules[`tcp_edges.${EDGE}.ip_restriction`] = null;
    const p = plan(desired, live, NOW, OPTIONS);
    expect(p.unsafe_reasons.filter((r) => r.startsWith('guards.'))).toEqual([
      'guards.all (guards.yaml:3): api: enforced: would have no restriction, not an enforced restriction; --force does not lift a guard: change the rules, or the guard in its file',
      'guards.all (guards.yaml:3): agent: enforced: would have no restriction, not an enforced restriction; --force does not lift a guard: change the rules, or the guard in its file',
      'guards.all (guards.yaml:3): endpoints: enforced: would have no restriction, not an enforced restriction; --force does not lift a guard: change the rules, or the guard in its file',
      `guards.all (guards.yaml:3): TCP edge ${EDGE}: enforced: would have a disabled module, not an enabled IP restriction module; --force does not lift a guard: change the rules, or the guard in its file`,
    ]);
  });

  it('all covers a listed TCP edge the files do not name when it has a module, not one with none', () => {
    const desired = files(OFFICE, [guard('all', { always_let_in: ['203.0.113.0/24'] })]);
    const live = account(OFFICE);
    live.tcpEdges = [
      { id: EDGE, ip_restriction: { enabled: false, ip_policies: [{ id: P1 }] } },
      { id: 'edgtcp_000000000000000000000002', ip_restriction: null },
      { id: 'edgtcp_000000000000000000000003', ip_restriction: { enabled: true, ip_policies: [{ id: P1 }] } },
    ];
    const scopes = planScopeStates(
      ...planCalculators(plan(desired, live, NOW, OPTIONS).changes, accountOf(live)),
    );
    expect(scopes.map((s) => s.scope)).toEqual([
      'dashboard',
      'api',
      'agent',
      'endpoints',
      `tcp_edges.${EDGE}`,
      'tcp_edges.edgtcp_000000000000000000000003',
    ]);
    expect(guardBreaches(desired.guards ?? [], scopes, 'after').map((b) => `${b.scope} ${b.rule}`)).toEqual([
      'dashboard always_let_in',
      'tcp_edges.edgtcp_000000000000000000000003 always_let_in',
    ]);
  });

  it('a breach of the account alone does not block the plan that mends it: a warning says so', () => {
    const g = guard('dashboard', { only_let_in: ['198.51.100.0/24'] });
    const live = account([['allow', '0.0.0.0/0']]);
    const p = plan(files(OFFICE, [g]), live, NOW, OPTIONS);
    expect(p.safe).toBe(true);
    expect(p.warnings).toEqual([
      'guards.dashboard (guards.yaml:3): dashboard: only_let_in: 0.0.0.0/1, 128.0.0.0/2, 192.0.0.0/6 and 21 more are let in (4,294,967,040 addresses) in the account; this plan mends it',
    ]);
  });

  it('a policy the plan creates is named by its key, and its rules count', () => {
    const desired = desiredState({
      ...withPolicies(
        policy('vpn', [
          ['allow', '10.0.0.0/8'],
          ['deny', '10.9.0.0/16'],
        ]),
      ),
      ip_restrictions: [ipr('dash', { ip_policy_ids: ['vpn'] })],
      guards: [guard('dashboard', { always_let_in: ['10.9.1.0/24'] })],
    });
    const p = plan(desired, emptyLive(), NOW, OPTIONS);
    expect(p.unsafe_reasons).toEqual([
      'guards.dashboard (guards.yaml:3): dashboard: always_let_in: 10.9.1.0/24 would be shut out (256 addresses); --force does not lift a guard: change the rules, or the guard in its file',
    ]);
    const { before, after } = picturesOf(p.changes, accountOf(emptyLive()));
    const names = policyNames(p.changes);
    const why = (picture: typeof after, address: string) =>
      describeDecision(decide(picture, 'dashboard', address), names);
    expect(why(after, '10.9.1.1')).toBe('deny 10.9.0.0/16 of vpn');
    expect(why(after, '10.1.1.1')).toBe('allow 10.0.0.0/8 of vpn');
    expect(why(after, '192.0.2.1')).toBe('no allow matches');
    expect(why(before, '10.1.1.1')).toBe('no restriction');
  });
});
