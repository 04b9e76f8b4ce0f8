// A model world for the properties about traffic (never fail open, reach, the lockout guard): an
// account of policies (managed and one unmanaged), rules, two restrictions and a TCP edge module, a
// desired state, and the model of how the service evaluates them: an enforced restriction or enabled
// module lets an address through when an allow rule of its policies matches and no deny rule does;
// anything else lets everything through. Also an applier that sends a plan's requests one at a time in
// any order its DAG allows, with an optional failed request.
import fc from 'fast-check';
import { expect } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { type Cidr, cidrContains, isCidrProblem, parseCidr } from '../../src/net/cidr.js';
import { fillKnownAfterApply } from '../../src/plan/references.js';
import type { Plan, PlanChange, PlannedRequest } from '../../src/plan/types.js';
import { descriptorFor, isManaged } from '../../src/resources/index.js';
import type { DesiredIpPolicy } from '../../src/resources/ip_policy.js';
import type { LiveObject } from '../../src/resources/values.js';
import {
  desiredState,
  ipr,
  livePolicy,
  liveRule,
  marker,
  NOW,
  policy,
  type RuleSpec,
  tcpModule,
  withPolicies,
} from '../plan/fixtures.js';
import { FakeAccount } from '../support/account.js';

export const CIDRS = [
  '0.0.0.0/0',
  '10.0.0.0/8',
  '10.1.0.0/16',
  '10.1.2.0/24',
  '10.1.2.128/25',
  '10.1.2.3/32',
  '10.2.0.0/16',
  '::/0',
  '2001:db8::/32',
  '2001:db8:1::/48',
  '2001:db8:1::1/128',
];
export const ADDRESSES = [
  '10.1.2.3',
  '10.1.2.200',
  '10.1.5.5',
  '10.2.3.4',
  '10.9.9.9',
  '192.0.2.1',
  '2001:db8:1::1',
  '2001:db8:1::2',
  '2001:db8:2::5',
  '3fff::1',
];
const PARSED = new Map<string, Cidr>();
function parsed(text: string): Cidr {
  let cidr = PARSED.get(text);
  if (!cidr) {
    const read = parseCidr(text);
    if (isCidrProblem(read)) throw new Error(`bad CIDR in the world: ${read.problem}`);
    cidr = read;
    PARSED.set(text, cidr);
  }
  return cidr;
}
export const KEYS = ['a', 'b', 'c'] as const;
export const UNMANAGED = 'ipp_000000000000000000000000u01';
const liveId = (key: string) => `ipp_00000000000000000000000${key}p01`.slice(-31);
export const TYPES = ['dashboard', 'api'] as const;
export const EDGE_PATH = '/edges/tcp/edgtcp_1/ip_restriction';

const rulesOf = (cidr: fc.Arbitrary<string>) =>
  fc.uniqueArray(fc.record({ cidr, action: fc.constantFrom('allow' as const, 'deny' as const) }), {
    selector: (r) => r.cidr,
    maxLength: 4,
  });
/** A restriction or module: absent, or enforced/enabled (or not) with some policies. */
const bindingArb = (names: readonly string[]) =>
  fc.option(fc.record({ on: fc.boolean(), policies: fc.subarray([...names], { minLength: 1 }) }), {
    nil: undefined,
    freq: 3,
  });

/** Worlds whose rules take their CIDRs from `cidr`. */
export const worldOf = (cidr: fc.Arbitrary<string>) => {
  const rulesArb = rulesOf(cidr);
  return fc.record({
    policies: fc.record({
      a: fc.record({ live: fc.boolean(), wanted: fc.boolean(), liveRules: rulesArb, rules: rulesArb }),
      b: fc.record({ live: fc.boolean(), wanted: fc.boolean(), liveRules: rulesArb, rules: rulesArb }),
      c: fc.record({ live: fc.boolean(), wanted: fc.boolean(), liveRules: rulesArb, rules: rulesArb }),
    }),
    unmanagedRules: rulesArb,
    before: fc.record({
      dashboard: bindingArb([...KEYS, 'U']),
      api: bindingArb([...KEYS, 'U']),
      edge: bindingArb([...KEYS, 'U']),
    }),
    after: fc.record({
      dashboard: bindingArb([...KEYS, 'U']),
      api: bindingArb([...KEYS, 'U']),
      edge: bindingArb([...KEYS, 'U']),
    }),
    schedule: fc.array(fc.nat(), { minLength: 1, maxLength: 40 }),
    failAt: fc.option(fc.nat(60), { nil: undefined }),
  });
};
export const worldArb = worldOf(fc.constantFrom(...CIDRS));
export type World = typeof worldArb extends fc.Arbitrary<infer T> ? T : never;

/** The account before the apply, and the desired state; undefined when the world is not one. */
export function setUp(w: World) {
  const account = new FakeAccount(NOW);
  const exists = (name: string) => name === 'U' || w.policies[name as 'a'].live;
  account.add('ip_policy', livePolicy(UNMANAGED));
  w.unmanagedRules.forEach((r, i) => {
    account.add('ip_policy_rule', liveRule(`ipr_u${i}`, UNMANAGED, [r.action, r.cidr]));
  });
  for (const key of KEYS) {
    const p = w.policies[key];
    if (!p.live) continue;
    account.add('ip_policy', livePolicy(liveId(key), { metadata: marker(key) }));
    p.liveRules.forEach((r, i) => {
      account.add(
        'ip_policy_rule',
        liveRule(`ipr_${key}${i}`, liveId(key), [r.action, r.cidr], { metadata: marker(`${key}/${r.cidr}`) }),
      );
    });
  }
  const idOf = (name: string) => (name === 'U' ? UNMANAGED : liveId(name));
  for (const type of TYPES) {
    const b = w.before[type];
    if (!b?.policies.every(exists)) continue;
    account.add('ip_restriction', {
      id: `ipx_${type}`,
      created_at: '2026-01-01T00:00:00Z',
      description: '',
      metadata: marker(type),
      type,
      enforced: b.on,
      ip_policies: b.policies.map((n) => ({ id: idOf(n), uri: 'x' })),
    });
  }
  const edge = w.before.edge;
  if (edge?.policies.every(exists)) {
    account.setModule(EDGE_PATH, {
      enabled: edge.on,
      ip_policies: edge.policies.map((n) => ({ id: idOf(n) })),
    });
  }
  const wanted = (name: string) => name === 'U' || w.policies[name as 'a'].wanted;
  const policies: DesiredIpPolicy[] = KEYS.filter((k) => w.policies[k].wanted).map((k) =>
    policy(
      k,
      w.policies[k].rules.map((r): RuleSpec => [r.action, r.cidr]),
    ),
  );
  const ref = (name: string) => (name === 'U' ? UNMANAGED : name);
  const restrictions = TYPES.flatMap((type) => {
    const a = w.after[type];
    return a?.policies.every(wanted)
      ? [ipr(type, { type, enforced: a.on, ip_policy_ids: a.policies.map(ref) })]
      : [];
  });
  const edgeAfter = w.after.edge;
  const modules = [
    edgeAfter?.policies.every(wanted)
      ? tcpModule('edgtcp_1', { enabled: edgeAfter.on, ip_policy_ids: edgeAfter.policies.map(ref) })
      : tcpModule('edgtcp_1', { state: 'absent' }),
  ];
  const desired = desiredState({
    ...withPolicies(...policies),
    ip_restrictions: restrictions,
    tcp_edge_ip_restrictions: modules,
  });
  return { account, desired };
}

/** Per scope (each type, the edge), the sampled addresses it lets through now. */
export function letThrough(
  account: FakeAccount,
  addresses: readonly string[] = ADDRESSES,
): Map<string, Set<string>> {
  const rules = account.objects('ip_policy_rule');
  const lets = (enforced: boolean, policyIds: string[]) => {
    const inForce = rules.filter((r) => policyIds.includes((r['ip_policy'] as { id: string }).id));
    const matches = (action: string, a: string) =>
      inForce.some((r) => r['action'] === action && cidrContains(parsed(String(r['cidr'])), a));
    return new Set(addresses.filter((a) => !enforced || (matches('allow', a) && !matches('deny', a))));
  };
  const ids = (o: LiveObject) => (o['ip_policies'] as { id: string }[]).map((r) => r.id);
  const out = new Map<string, Set<string>>();
  for (const type of TYPES) {
    const r = account.objects('ip_restriction').find((o) => o['type'] === type);
    out.set(type, r ? lets(r['enforced'] === true, ids(r)) : new Set(addresses));
  }
  const m = account.module(EDGE_PATH);
  out.set('edge', m ? lets(m['enabled'] !== false, ids(m)) : new Set(addresses));
  return out;
}

/**
 * Applies `p` as the applier may: one request at a time, a change once all it depends on are done,
 * `pick` choosing among what may go next. The `failAt`-th request fails: its change stops, what
 * depends on it is skipped, the rest goes on. `check` runs after every request that is sent.
 */
export function apply(
  account: FakeAccount,
  p: Plan,
  pick: (runnable: { c: PlanChange; next: number }[]) => number,
  check: () => void,
  failAt?: number,
  ignoreOrder = false,
): void {
  const done = new Set<string>();
  const dead = new Set<string>();
  const made = new Map<string, string>();
  const pending = p.changes.filter((c) => c.requests.length > 0).map((c) => ({ c, next: 0 }));
  const acting = new Set(pending.map((x) => x.c.address));
  let sent = 0;
  while (pending.length > 0) {
    // What depends on a change that failed or was skipped is skipped, however deep.
    for (let skipped = true; skipped; ) {
      skipped = false;
      for (const item of [...pending]) {
        if (item.next === 0 && item.c.depends_on.some((a) => dead.has(a))) {
          dead.add(item.c.address);
          pending.splice(pending.indexOf(item), 1);
          skipped = true;
        }
      }
    }
    const ready = (item: { c: PlanChange; next: number }) =>
      item.next > 0 ||
      item.c.depends_on.every((a) => done.has(a) || !acting.has(a)) ||
      (ignoreOrder && item.c.requests[0]!.method === 'DELETE');
    const runnable = pending.filter(ready);
    if (runnable.length === 0) break;
    const item = runnable[pick(runnable) % runnable.length]!;
    if (sent++ === failAt) {
      dead.add(item.c.address);
      pending.splice(pending.indexOf(item), 1);
      continue;
    }
    const filled = fillKnownAfterApply(item.c.requests[item.next]!, (a) => made.get(a)) as PlannedRequest;
    // As the applier sends it (a traffic policy as text).
    const d = descriptorFor(item.c.kind);
    const r =
      isManaged(d) && d.wireBody && filled.body ? { ...filled, body: d.wireBody(filled.body) } : filled;
    let answer: LiveObject | undefined;
    try {
      answer = account.send(r);
    } catch (err) {
      // Out of the plan's order the service may refuse a request (a policy still in use): that change
      // fails as one the applier sees fail. In the plan's order no request is refused.
      if (!(ignoreOrder && err instanceof ApiError)) throw err;
      dead.add(item.c.address);
      pending.splice(pending.indexOf(item), 1);
      continue;
    }
    if (r.method === 'POST' && answer) made.set(item.c.address, String(answer['id']));
    check();
    item.next++;
    if (item.next === item.c.requests.length) {
      done.add(item.c.address);
      pending.splice(pending.indexOf(item), 1);
    }
  }
}

/**
 * Never fail open for one scope: `p` applied whole to `start()` gives B (before) and A (after) of what
 * `lets` reads; applied again to a fresh `start()` in the world's order with its failure, after every
 * request every address of B ∩ A is let through and none outside B ∪ A.
 */
export function staysBetween(
  start: () => FakeAccount,
  p: Plan,
  w: Pick<World, 'schedule' | 'failAt'>,
  lets: (account: FakeAccount) => ReadonlySet<string>,
): void {
  const whole = start();
  const B = lets(whole);
  apply(
    whole,
    p,
    () => 0,
    () => {},
  );
  const A = lets(whole);
  const account = start();
  let turn = 0;
  apply(
    account,
    p,
    () => w.schedule[turn++ % w.schedule.length]!,
    () => {
      const now = lets(account);
      for (const a of ADDRESSES) {
        if (B.has(a) && A.has(a)) expect(now.has(a), `shuts out ${a}`).toBe(true);
        if (!B.has(a) && !A.has(a)) expect(now.has(a), `lets ${a} through`).toBe(false);
      }
    },
    w.failAt,
  );
}
