// Never fail open, for an endpoint with two restrict-ips actions (docs/reach.md): a listed endpoint lets
// through what both actions let through, so a rule change that lets more in through one action and one
// that lets fewer in through the other must go narrowing first; the order proves each group of its
// changes with an exact check of their widest and narrowest states (src/traffic/endpoint-order.ts), or
// refuses the plan. After every request of the apply, in any order the plan's DAG allows and with any
// one request failing, the endpoint stays between B ∩ A and B ∪ A.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import { cidrContains, parseCidr } from '../../src/net/cidr.js';
import { PlanError } from '../../src/plan/planner.js';
import type { Plan } from '../../src/plan/types.js';
import { NOW, OPTIONS } from '../plan/fixtures.js';
import type { FakeAccount } from '../support/account.js';
import { ADDRESSES, setUp, staysBetween, UNMANAGED, type World, worldArb } from './traffic-world.js';

const liveId = (key: string) => `ipp_00000000000000000000000${key}p01`.slice(-31);
const NAMES = ['a', 'b', 'c', 'U'];
const actionsArb = fc.tuple(
  fc.subarray(NAMES, { minLength: 1, maxLength: 2 }),
  fc.subarray(NAMES, { minLength: 1, maxLength: 2 }),
);

const cidr = (text: string) => {
  const c = parseCidr(text);
  if ('problem' in c) throw new Error(c.problem);
  return c;
};

/** What one action naming `ids` lets through in `account` now: the model of the service. */
function actionLets(account: FakeAccount, ids: readonly string[]): Set<string> {
  const rules = account
    .objects('ip_policy_rule')
    .filter((r) => ids.includes((r['ip_policy'] as { id: string }).id));
  const matches = (action: string, a: string) =>
    rules.some((r) => r['action'] === action && cidrContains(cidr(String(r['cidr'])), a));
  return new Set(ADDRESSES.filter((a) => matches('allow', a) && !matches('deny', a)));
}

/** The plan of world `w` with the endpoint listed; undefined when it does not plan. */
function planned(w: World, actions: string[][]): { p: Plan; ids: string[][] } | undefined {
  const exists = (n: string) => n === 'U' || (w.policies[n as 'a'].live && w.policies[n as 'a'].wanted);
  if (!actions.every((names) => names.every(exists))) return undefined;
  const ids = actions.map((names) => names.map((n) => (n === 'U' ? UNMANAGED : liveId(n))));
  const document = {
    on_tcp_connect: [
      { actions: ids.map((policies) => ({ type: 'restrict-ips', config: { ip_policies: policies } })) },
    ],
  };
  const endpoints = [
    { id: 'ep_1', type: 'agent', url: 'tls://a.example.com:443', traffic_policy: JSON.stringify(document) },
  ];
  const { account, desired } = setUp(w);
  try {
    const p = plan(desired, { ...account.live(desired), endpoints }, NOW, { ...OPTIONS, force: true });
    return { p, ids };
  } catch (err) {
    if (err instanceof PlanError) return undefined;
    throw err;
  }
}

/** The intersection of what each action lets through: the endpoint's reach. */
const endpointLets = (ids: readonly string[][]) => (account: FakeAccount) => {
  const [first, second] = ids.map((policies) => actionLets(account, policies));
  return new Set([...first!].filter((a) => second!.has(a)));
};

describe('never fail open, for an endpoint with two restrict-ips actions', () => {
  it('shuts an address out through one action before it lets it in through the other', () => {
    const allow = (cidr: string) => ({ action: 'allow' as const, cidr });
    // a gains 10.2.0.0/16 while b loses it: both actions let it through only in between.
    const w: World = {
      policies: {
        a: {
          live: true,
          wanted: true,
          liveRules: [allow('10.1.0.0/16')],
          rules: [allow('10.1.0.0/16'), allow('10.2.0.0/16')],
        },
        b: {
          live: true,
          wanted: true,
          liveRules: [allow('10.1.0.0/16'), allow('10.2.0.0/16')],
          rules: [allow('10.1.0.0/16')],
        },
        c: { live: false, wanted: false, liveRules: [], rules: [] },
      },
      unmanagedRules: [],
      before: { dashboard: undefined, api: undefined, edge: undefined },
      after: { dashboard: undefined, api: undefined, edge: undefined },
      schedule: [0],
      failAt: undefined,
    };
    const made = planned(w, [['a'], ['b']])!;
    const create = made.p.changes.find((c) => c.action === 'create')!;
    const del = made.p.changes.find((c) => c.action === 'delete')!;
    expect(create.depends_on).toContain(del.address);
    for (const schedule of [[0], [1], [0, 1], [1, 0]]) {
      staysBetween(() => setUp(w).account, made.p, { schedule, failAt: undefined }, endpointLets(made.ids));
    }
  });

  it('keeps it between B ∩ A and B ∪ A after every request, any order, any failure', () => {
    let ran = 0;
    fc.assert(
      fc.property(worldArb, actionsArb, (w, actions) => {
        const made = planned(w, actions);
        if (!made) return;
        ran++;
        staysBetween(() => setUp(w).account, made.p, w, endpointLets(made.ids));
      }),
      { numRuns: 1000 },
    );
    expect(ran).toBeGreaterThan(100);
  }, 600_000);
});
