// The order of traffic changes refuses only what has no safe order (DESIGN §4 "Never fail open"): two
// restrictions that each need the other's order for their phases, when the rules at hand make one of
// those orders needless, plan; a swap of more policies than a restriction may name goes in steps of at
// most 100. Each plan is applied to the in-memory service in any order its DAG allows, with any one
// request failing, and every sampled address of every type stays between B ∩ A and B ∪ A.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import { PlanError } from '../../src/plan/planner.js';
import type { Plan } from '../../src/plan/types.js';
import type { DesiredIpPolicy } from '../../src/resources/ip_policy.js';
import {
  desiredState,
  ipr,
  livePolicy,
  liveRule,
  marker,
  NOW,
  OPTIONS,
  policy,
  withPolicies,
} from '../plan/fixtures.js';
import { FakeAccount } from '../support/account.js';
import { apply, letThrough } from './traffic-world.js';

const id = (key: string) => `ipp_${key.padStart(27, '0')}`;

function restriction(type: string, policies: string[]) {
  return {
    id: `ipx_${type}`,
    created_at: '2026-01-01T00:00:00Z',
    description: '',
    metadata: marker(type),
    type,
    enforced: true,
    ip_policies: policies.map((p) => ({ id: id(p), uri: 'x' })),
  };
}

/** An account of policies (key -> allow CIDRs) and the dashboard and api restrictions. */
function account(policies: Record<string, string[]>, dashboard: string[], api: string[]): FakeAccount {
  const a = new FakeAccount(NOW);
  for (const [key, cidrs] of Object.entries(policies)) {
    a.add('ip_policy', livePolicy(id(key), { metadata: marker(key) }));
    cidrs.forEach((cidr, i) => {
      a.add(
        'ip_policy_rule',
        liveRule(`ipr_${key}x${i}`, id(key), ['allow', cidr], { metadata: marker(`${key}/${cidr}`) }),
      );
    });
  }
  a.add('ip_restriction', restriction('dashboard', dashboard));
  a.add('ip_restriction', restriction('api', api));
  return a;
}

/** Applies `p` to a fresh account from `make`, any order and failure, checking the bounds after each request. */
function holdsThroughout(
  make: () => FakeAccount,
  p: Plan,
  addresses: string[],
  schedule: number[],
  failAt?: number,
) {
  const done = make();
  apply(
    done,
    p,
    () => 0,
    () => {},
  );
  const A = letThrough(done, addresses);
  const start = make();
  const B = letThrough(start, addresses);
  let turn = 0;
  apply(
    start,
    p,
    () => schedule[turn++ % schedule.length]!,
    () => {
      const now = letThrough(start, addresses);
      for (const [scope, before] of B) {
        for (const a of addresses) {
          const after = A.get(scope)!.has(a);
          if (before.has(a) && after) expect(now.get(scope)!.has(a), `${scope} shuts out ${a}`).toBe(true);
          if (!before.has(a) && !after)
            expect(now.get(scope)!.has(a), `${scope} lets ${a} through`).toBe(false);
        }
      }
    },
    failAt,
  );
}

describe('an order the rules at hand allow', () => {
  const make = () => account({ k: ['10.0.0.0/8'], p: ['192.0.2.0/24'] }, ['k', 'p'], ['k']);
  const desired = desiredState({
    ...withPolicies(
      policy('k', [
        ['allow', '10.0.0.0/8'],
        ['allow', '11.0.0.0/8'],
      ]),
      policy('p', [['allow', '198.51.100.0/24']]),
    ),
    ip_restrictions: [
      ipr('dashboard', { type: 'dashboard', ip_policy_ids: [id('k')] }),
      ipr('api', { type: 'api', ip_policy_ids: [id('k'), 'p'] }),
    ],
  });
  const addresses = ['10.1.2.3', '11.1.2.3', '192.0.2.1', '198.51.100.1', '203.0.113.1'];

  it('plans a move of a policy between restrictions while both policies change their rules', () => {
    const a = make();
    const p = plan(desired, a.live(desired), NOW, OPTIONS);
    const dependsOn = (address: string) => p.changes.find((c) => c.address === address)!.depends_on;
    // The api takes p once p is final; the dashboard drops p before p changes (p's new rule is not k's).
    expect(dependsOn('ip_restrictions.api')).toEqual(
      expect.arrayContaining(['ip_policies.p/198.51.100.0/24', 'ip_policies.p/192.0.2.0/24']),
    );
    expect(dependsOn('ip_policies.p/198.51.100.0/24')).toContain('ip_restrictions.dashboard');
  });

  it('keeps every type between B ∩ A and B ∪ A in any order, with any request failing (property)', () => {
    const a = make();
    const p = plan(desired, a.live(desired), NOW, OPTIONS);
    fc.assert(
      fc.property(
        fc.array(fc.nat(), { minLength: 1, maxLength: 20 }),
        fc.option(fc.nat(8), { nil: undefined }),
        (s, f) => holdsThroughout(make, p, addresses, s, f),
      ),
      { numRuns: 150 },
    );
  });

  it('still refuses a cycle that the rules make real', () => {
    // p lets in 11.1.0.0/16 today and will deny it: the dashboard must take k's 11.0.0.0/8 before it
    // drops p, and drop p before p denies; the api must take p once it denies, and k's 11.0.0.0/8 after.
    const real = () => account({ k: ['10.0.0.0/8'], p: ['192.0.2.0/24', '11.1.0.0/16'] }, ['k', 'p'], ['k']);
    const denying = desiredState({
      ...withPolicies(
        policy('k', [
          ['allow', '10.0.0.0/8'],
          ['allow', '11.0.0.0/8'],
        ]),
        policy('p', [
          ['allow', '198.51.100.0/24'],
          ['deny', '11.1.0.0/16'],
        ]),
      ),
      ip_restrictions: [
        ipr('dashboard', { type: 'dashboard', ip_policy_ids: [id('k')] }),
        ipr('api', { type: 'api', ip_policy_ids: [id('k'), 'p'] }),
      ],
    });
    const refused = (() => {
      try {
        plan(denying, real().live(denying), NOW, OPTIONS);
      } catch (err) {
        if (err instanceof PlanError) return err;
        throw err;
      }
      return undefined;
    })();
    const cycle = refused?.problems.find((x) => x.code === 'traffic_cycle');
    expect(cycle?.code).toBe('traffic_cycle');
    // Each change of the cycle where it is written, and one rule change to apply on its own first.
    if (cycle?.code !== 'traffic_cycle') return;
    expect(cycle.at).toHaveLength(cycle.cycle.length);
    expect(cycle.at?.every((at) => at?.file === '/w/accord.yaml')).toBe(true);
    expect(cycle.first).toMatch(/^ip_policies\.[kp]\//);
    const message = refused!.messages.find((m) => m.includes('cannot be ordered'))!;
    expect(message).toContain(`(/w/accord.yaml:${cycle.at![0]!.line})`);
    expect(message).toContain(`accord apply --target ${cycle.first}`);
  });
});

describe('a swap of more policies than a restriction may name', () => {
  const cidr = (i: number) => `10.${i}.0.0/16`;
  // The dashboard names b00..b59 (10.0-59.x); the file names a30..a89 (10.30-89.x): 120 together.
  const keysOf = (prefix: string, from: number, to: number) =>
    Array.from({ length: to - from }, (_, i) => `${prefix}${String(from + i).padStart(2, '0')}`);
  const before = keysOf('b', 0, 60);
  const after = keysOf('a', 30, 90);
  const make = () => account(Object.fromEntries(before.map((k, i) => [k, [cidr(i)]])), before, [before[0]!]);
  const wanted: DesiredIpPolicy[] = [
    ...before.map((k, i) => policy(k, [['allow', cidr(i)]])),
    ...after.map((k, i) => policy(k, [['allow', cidr(30 + i)]])),
  ];
  const desired = desiredState({
    ...withPolicies(...wanted),
    ip_restrictions: [
      ipr('dashboard', { type: 'dashboard', ip_policy_ids: after }),
      ipr('api', { type: 'api', ip_policy_ids: [id('b00')] }),
    ],
  });
  const addresses = [0, 10, 29, 30, 45, 59, 60, 75, 89, 90].map((i) => `10.${i}.1.1`);

  it('goes in steps of at most 100 policies', () => {
    const p = plan(desired, make().live(desired), NOW, OPTIONS);
    const steps = p.changes.filter((c) => c.step === 'union');
    expect(steps.length).toBeGreaterThan(1);
    for (const s of steps) expect((s.after!['ip_policies'] as string[]).length).toBeLessThanOrEqual(100);
    // Each step waits for the one before it; the restriction's own change for the last.
    for (let i = 1; i < steps.length; i++) expect(steps[i]!.depends_on).toContain(steps[i - 1]!.address);
    const final = p.changes.find((c) => c.address === 'ip_restrictions.dashboard')!;
    expect(final.depends_on).toContain(steps.at(-1)!.address);
  });

  it('keeps the dashboard between B ∩ A and B ∪ A, every request accepted by the service (property)', () => {
    const p = plan(desired, make().live(desired), NOW, OPTIONS);
    fc.assert(
      fc.property(
        fc.array(fc.nat(), { minLength: 1, maxLength: 20 }),
        fc.option(fc.nat(130), { nil: undefined }),
        (s, f) => holdsThroughout(make, p, addresses, s, f),
      ),
      { numRuns: 15 },
    );
  }, 120_000);
});

describe('a listed endpoint naming two policies in one restrict-ips', () => {
  // k gives 10.0.0.0/8 to p: the endpoint lets it in before and after, so p's allow comes first.
  const make = () => account({ k: ['10.0.0.0/8', '172.16.0.0/12'], p: ['192.0.2.0/24'] }, ['k'], ['p']);
  const desired = desiredState({
    ...withPolicies(
      policy('k', [['allow', '172.16.0.0/12']]),
      policy('p', [
        ['allow', '192.0.2.0/24'],
        ['allow', '10.0.0.0/8'],
      ]),
    ),
    ip_restrictions: [
      ipr('dashboard', { type: 'dashboard', ip_policy_ids: [id('k')] }),
      ipr('api', { type: 'api', ip_policy_ids: [id('p')] }),
    ],
  });
  const trafficPolicy = JSON.stringify({
    on_http_request: [{ actions: [{ type: 'restrict-ips', config: { ip_policies: [id('k'), id('p')] } }] }],
  });
  const planOf = (endpoints: boolean) => {
    const live = make().live(desired);
    const listed = [
      { id: 'ep_1', type: 'cloud', url: 'https://admin.example.com', traffic_policy: trafficPolicy },
    ];
    return plan(desired, endpoints ? { ...live, endpoints: listed } : live, NOW, OPTIONS);
  };
  const dependsOn = (p: Plan) => p.changes.find((c) => c.address === 'ip_policies.k/10.0.0.0/8')!.depends_on;

  it("orders the new allow of one policy before the other's allow goes, only when the endpoints were listed", () => {
    expect(dependsOn(planOf(true))).toContain('ip_policies.p/10.0.0.0/8');
    expect(dependsOn(planOf(false))).not.toContain('ip_policies.p/10.0.0.0/8');
  });
});
