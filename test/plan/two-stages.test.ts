// A plan is made once, in two stages: matching says whether the rest could depend on the TCP edges the
// account lists (a policy deleted, or the rules of one the account has changed), the caller lists them
// only then, and the second stage orders, selects and judges with them. `planAccount` is both stages
// on the account as given.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountOf, type LiveState } from '../../src/account/model.js';
import type { DesiredState } from '../../src/config/model.js';
import { finishPlan, matchAccount, planAccount } from '../../src/plan/planner.js';
import {
  desiredState,
  emptyLive,
  ipr,
  liveIpr,
  livePolicy,
  liveRule,
  marker,
  NOW,
  OPTIONS,
  policy,
  type RuleSpec,
  withPolicies,
} from './fixtures.js';

const P1 = 'ipp_000000000000000000000000p01';
const EDGE = 'edgtcp_000000000000000000000000e1';

/** The policy `office` (P1) with these rules, and a warn-only dashboard restriction `dash` naming it. */
function account(rules: RuleSpec[]): LiveState {
  const live = emptyLive();
  live.managed.ip_policy = [...live.managed.ip_policy, livePolicy(P1, { metadata: marker('office') })];
  live.managed.ip_policy_rule = [
    ...live.managed.ip_policy_rule,
    ...rules.map((r, i) => liveRule(`ipr_o${i}`, P1, r, { metadata: marker(`office/${r[1]}`) })),
  ];
  live.managed.ip_restriction = [liveIpr('ipx_d', { enforced: false, metadata: marker('dash') }, [P1])];
  return live;
}

const files = (parts: Partial<DesiredState>) =>
  desiredState({ ip_restrictions: [ipr('dash', { ip_policy_ids: ['office'], enforced: false })], ...parts });

const needsEdges = (desired: DesiredState, live: LiveState) =>
  matchAccount(desired, accountOf(live), NOW, OPTIONS).needsEdges;

describe('the first stage asks for the TCP edges', () => {
  const live = account([['allow', '10.0.0.0/8']]);

  it('when the plan changes the rules of a policy the account has', () => {
    const added = files(
      withPolicies(
        policy('office', [
          ['allow', '10.0.0.0/8'],
          ['allow', '192.0.2.0/24'],
        ]),
      ),
    );
    expect(needsEdges(added, live)).toBe(true);
    const dropped = files({
      ...withPolicies(policy('office', [['allow', '192.0.2.0/24']])),
    });
    expect(needsEdges(dropped, live)).toBe(true);
  });

  it('when the plan deletes a policy', () => {
    expect(needsEdges(desiredState({ ip_restrictions: [] }), live)).toBe(true);
  });

  it('not when the plan changes no rules and deletes no policy, nor makes rules of a new policy only', () => {
    expect(needsEdges(files(withPolicies(policy('office', [['allow', '10.0.0.0/8']]))), live)).toBe(false);
    const described = withPolicies(policy('office', [['allow', '10.0.0.0/8', 'the office']]));
    expect(needsEdges(files(described), live)).toBe(false);
    const fresh = withPolicies(
      policy('office', [['allow', '10.0.0.0/8']]),
      policy('new', [['allow', '192.0.2.0/24']]),
    );
    expect(needsEdges(files(fresh), live)).toBe(false);
  });

  it('not when the account given already holds them, nor when the plan cannot be made', () => {
    const gone = desiredState({ ip_restrictions: [] });
    expect(needsEdges(gone, { ...live, tcpEdges: [] })).toBe(false);
    expect(needsEdges(gone, { ...live, tcpEdges: 'unavailable' })).toBe(false);
    // An entry naming a policy ID the account does not have: a problem of the first stage, thrown by
    // the second, which the edges cannot change.
    const unknown = 'ipp_000000000000000000000000zz9';
    const broken = files({ ip_restrictions: [ipr('dash', { ip_policy_ids: [unknown], enforced: false })] });
    expect(needsEdges(broken, live)).toBe(false);
  });
});

const needsEndpoints = (desired: DesiredState, live: LiveState) =>
  matchAccount(desired, accountOf(live), NOW, OPTIONS).needsEndpoints;

describe('the first stage asks for the endpoints', () => {
  const live = account([['allow', '10.0.0.0/8']]);

  it('when the plan changes the rules of a policy the account has, or deletes one', () => {
    const added = withPolicies(
      policy('office', [
        ['allow', '10.0.0.0/8'],
        ['allow', '192.0.2.0/24'],
      ]),
    );
    expect(needsEndpoints(files(added), live)).toBe(true);
    expect(needsEndpoints(desiredState({ ip_restrictions: [] }), live)).toBe(true);
  });

  it('when the plan changes the account-wide endpoints restriction, whatever its policies', () => {
    const same = withPolicies(policy('office', [['allow', '10.0.0.0/8']]));
    const endpoints = ipr('eps', { type: 'endpoints', ip_policy_ids: ['office'], enforced: true });
    expect(
      needsEndpoints(
        files({
          ...same,
          ip_restrictions: [ipr('dash', { ip_policy_ids: ['office'], enforced: false }), endpoints],
        }),
        live,
      ),
    ).toBe(true);
    // The dashboard's restriction changes only the dashboard's reach.
    const enforced = ipr('dash', { ip_policy_ids: ['office'], enforced: true });
    expect(needsEndpoints(desiredState({ ...same, ip_restrictions: [enforced] }), live)).toBe(false);
  });

  it('not when the plan changes no rules, deletes no policy and leaves the endpoints restriction', () => {
    expect(needsEndpoints(files(withPolicies(policy('office', [['allow', '10.0.0.0/8']]))), live)).toBe(
      false,
    );
    const described = withPolicies(policy('office', [['allow', '10.0.0.0/8', 'the office']]));
    expect(needsEndpoints(files(described), live)).toBe(false);
  });

  it('not when the account given already holds them', () => {
    const gone = desiredState({ ip_restrictions: [] });
    expect(needsEndpoints(gone, { ...live, endpoints: [] })).toBe(false);
    expect(needsEndpoints(gone, { ...live, endpoints: 'unavailable' })).toBe(false);
  });
});

describe('the second stage', () => {
  const edge = (policies: string[]) => ({
    id: EDGE,
    ip_restriction: { enabled: true, ip_policies: policies.map((id) => ({ id })) },
  });

  it('plans as planAccount does on the account it is given, whatever the rules and the edges', () => {
    const cidrs = ['10.0.0.0/8', '192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24'];
    const rules = fc.subarray(cidrs).map((cs) => cs.map((c): RuleSpec => ['allow', c]));
    fc.assert(
      fc.property(rules, rules, fc.boolean(), (before, after, named) => {
        const live = account(before.length > 0 ? before : [['allow', '10.0.0.0/8']]);
        const desired = files(
          withPolicies(policy('office', after.length > 0 ? after : [['allow', cidrs[0]!]])),
        );
        const matched = matchAccount(desired, accountOf(live), NOW, OPTIONS);
        const listed = accountOf({ ...live, tcpEdges: [edge(named ? [P1] : [])] });
        expect(finishPlan(matched, listed)).toEqual(planAccount(desired, listed, NOW, OPTIONS));
      }),
      { numRuns: 30 },
    );
  });
});
