// For any account and file, and any --target/--exclude drawn from the plan's own addresses: the part
// kept is the full plan's changes unchanged, applying it succeeds in any order the DAG allows, and the
// next full plan shows exactly the changes that were left out.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import { matchesPattern, selectChanges } from '../../src/plan/select.js';
import type { PlanChange } from '../../src/plan/types.js';
import { FakeAccount, serviceId } from '../support/account.js';
import {
  cert,
  desiredState,
  emptyLive,
  IPP_1,
  ipr,
  KEY_A,
  KEY_B,
  liveCert,
  liveIpr,
  livePolicy,
  liveRule,
  marker,
  NOW,
  OPTIONS,
  policy,
  type RuleSpec,
  tcpModule,
  withPolicies,
} from './fixtures.js';

/** The policy the file may hold, named by key: its changes give the plan real dependencies. */
const OFFICE = serviceId('ip_policy', 'office');
const RULES: RuleSpec[] = [
  ['allow', '203.0.113.0/24'],
  ['deny', '203.0.113.66/32'],
  ['allow', '198.51.100.0/24'],
];

const TYPES = ['dashboard', 'api', 'agent', 'endpoints'] as const;
const KEYS = ['a', 'b', 'c', 'd'];

const world = fc.record({
  // Per type: no restriction, or one of this owner's under some key, enforced or not.
  liveIprs: fc.tuple(
    ...TYPES.map(() =>
      fc.option(fc.record({ key: fc.constantFrom(...KEYS), enforced: fc.boolean() }), { nil: undefined }),
    ),
  ),
  iprs: fc.uniqueArray(
    fc.record({
      key: fc.constantFrom(...KEYS),
      type: fc.constantFrom(...TYPES),
      enforced: fc.boolean(),
      office: fc.boolean(),
    }),
    { selector: (e) => e.key, maxLength: 4 },
  ),
  // The office policy: in the account (this owner's, with some rules) or not, in the file (some rules) or not.
  policyLive: fc.option(fc.subarray(RULES), { nil: undefined }),
  policyWanted: fc.option(fc.subarray(RULES, { minLength: 1 }), { nil: undefined }),
  liveCerts: fc.array(
    fc.record({
      key: fc.constantFrom(...KEYS),
      pub: fc.constantFrom(KEY_A, KEY_B),
      created: fc.constantFrom('2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z'),
    }),
    { maxLength: 5 },
  ),
  certs: fc.uniqueArray(fc.record({ key: fc.constantFrom(...KEYS), pub: fc.constantFrom(KEY_A, KEY_B) }), {
    selector: (e) => e.key,
    maxLength: 4,
  }),
  tcp: fc.constantFrom('none', 'present', 'absent'),
  tcpLive: fc.boolean(),
  picks: fc.array(fc.nat(), { minLength: 1, maxLength: 10 }),
  choose: fc.array(fc.tuple(fc.nat(), fc.boolean()), { minLength: 1, maxLength: 3 }),
});

/** Every change's dependencies are among the changes (what selecting must keep true). */
function expectClosedUnderDependencies(changes: readonly PlanChange[]): void {
  const addresses = new Set(changes.map((c) => c.address));
  for (const c of changes) {
    for (const d of c.depends_on) expect(addresses, `${c.address} depends on ${d}`).toContain(d);
  }
}

/** What a change is across plans: a duplicate's address may change once another copy is gone, its ID not. */
const identity = (c: PlanChange) => `${c.kind} ${c.id ?? c.address} ${c.action}`;

describe('--target/--exclude against an in-memory account', () => {
  it('applies exactly the part kept; the next full plan shows exactly what was left out', () => {
    let withEdges = 0;
    fc.assert(
      fc.property(world, (w) => {
        const account = new FakeAccount(NOW);
        w.liveIprs.forEach((l, i) => {
          if (l)
            account.add(
              'ip_restriction',
              liveIpr(`ipx_${i}`, { type: TYPES[i], enforced: l.enforced, metadata: marker(l.key) }),
            );
        });
        w.liveCerts.forEach((l, i) => {
          account.add(
            'ssh_host_certificate',
            liveCert(`shcrt_${i}`, {
              public_key: `${l.pub} c`,
              // One host per key: a certificate is never the rename of another key's (a part applied
              // could turn an ambiguous rename into a unique one; test/plan/slots.test.ts covers those).
              principals: [`${l.key}.example`],
              created_at: l.created,
              metadata: marker(l.key),
            }),
          );
        });
        if (w.policyLive) {
          account.add('ip_policy', livePolicy(OFFICE, { metadata: marker('office') }));
          w.policyLive.forEach((r, i) => {
            const rule = serviceId('ip_policy_rule', `office${i}`);
            account.add('ip_policy_rule', liveRule(rule, OFFICE, r, { metadata: marker(`office/${r[1]}`) }));
          });
        }
        if (w.tcpLive)
          account.setModule('/edges/tcp/edgtcp_1/ip_restriction', {
            enabled: true,
            ip_policies: [{ id: IPP_1 }],
          });
        const iprs = w.iprs.filter((e, i) => w.iprs.findIndex((x) => x.type === e.type) === i);
        const desired = desiredState({
          ...(w.policyWanted ? withPolicies(policy('office', w.policyWanted)) : {}),
          ip_restrictions: iprs.map((e) =>
            ipr(e.key, {
              type: e.type,
              enforced: e.enforced,
              ...(w.policyWanted && e.office ? { ip_policy_ids: ['office'] } : {}),
            }),
          ),
          ssh_host_certificates: w.certs.map((e) =>
            cert(e.key, {
              public_key: `${e.pub} h`,
              public_key_canonical: e.pub,
              principals: [`${e.key}.example`],
            }),
          ),
          tcp_edge_ip_restrictions:
            w.tcp === 'none' ? [] : [tcpModule('edgtcp_1', { state: w.tcp as 'present' | 'absent' })],
        });
        const options = { ...OPTIONS, force: true };
        const full = plan(desired, account.live(desired), NOW, options);
        if (full.changes.some((c) => c.depends_on.length > 0)) withEdges++;

        // Patterns the plan's own addresses and sections give, each matching something.
        const pool = [
          ...new Set([
            ...full.changes.map((c) => c.address),
            ...full.changes.map((c) => c.address.slice(0, c.address.indexOf('.'))),
            '*.a',
            'ssh_host_certificates.*',
            'tcp_edges.*',
          ]),
        ].filter((p) => full.changes.some((c) => matchesPattern(p, c)));
        if (pool.length === 0) return;
        const target: string[] = [];
        const exclude: string[] = [];
        for (const [n, isTarget] of w.choose) (isTarget ? target : exclude).push(pool[n % pool.length]!);

        const part = plan(desired, account.live(desired), NOW, {
          ...options,
          selection: { target, exclude },
        });
        const fullByAddress = new Map(full.changes.map((c) => [c.address, c]));
        for (const c of part.changes) expect(c).toEqual(fullByAddress.get(c.address));
        expectClosedUnderDependencies(part.changes);
        const kept = new Set(part.changes.map((c) => c.address));
        const leftOut = full.changes.filter((c) => !kept.has(c.address) && c.action !== 'no-op');
        expect(part.selection?.left_out).toEqual(leftOut.map((c) => c.address));
        if (!part.safe) return;

        let turn = 0;
        account.execute(part, (n) => w.picks[turn++ % w.picks.length]! % n);
        const next = plan(desired, account.live(desired), NOW, options);
        const pending = next.changes
          .filter((c) => c.action !== 'no-op')
          .map(identity)
          .sort();
        expect(pending).toEqual(leftOut.map(identity).sort());
      }),
      { numRuns: 400 },
    );
    // Policies and the restrictions naming them by key give real dependencies to keep closed.
    expect(withEdges).toBeGreaterThan(50);
    // A fixed amount of work against the in-memory service; the bound is for a busy machine.
  }, 120_000);

  it('keeps what a kept change depends on, and drops what depends on a dropped one, over any DAG', () => {
    // The planner's changes of these kinds have no dependencies; any acyclic graph of them must be
    // closed just the same: each change depends on some of those before it.
    const template: PlanChange = plan(
      desiredState({ ip_restrictions: [ipr('t')] }),
      emptyLive(),
      NOW,
      OPTIONS,
    ).changes[0]!;
    const graph = fc
      .array(fc.array(fc.nat(), { maxLength: 3 }), { minLength: 1, maxLength: 12 })
      .chain((edges) =>
        fc.record({
          edges: fc.constant(edges),
          target: fc.array(fc.nat({ max: edges.length - 1 }), { maxLength: 2 }),
          exclude: fc.array(fc.nat({ max: edges.length - 1 }), { maxLength: 2 }),
        }),
      );
    fc.assert(
      fc.property(graph, ({ edges, target, exclude }) => {
        const address = (i: number) => `ip_restrictions.k${i}`;
        const changes = edges.map((to, i) => ({
          ...template,
          key: `k${i}`,
          address: address(i),
          depends_on: i === 0 ? [] : [...new Set(to.map((n) => address(n % i)))],
        }));
        const { kept, leftOut } = selectChanges(changes, {
          target: target.map(address),
          exclude: exclude.map(address),
        });
        expectClosedUnderDependencies(kept);
        const keptAddresses = new Set(kept.map((c) => c.address));
        for (const n of exclude) expect(keptAddresses).not.toContain(address(n));
        if (exclude.length === 0) for (const n of target) expect(keptAddresses).toContain(address(n));
        expect(kept.length + leftOut.length).toBe(changes.length);
      }),
      { numRuns: 300 },
    );
  });
});
