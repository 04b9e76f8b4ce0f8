// Reach and the lockout guard against the model of the service (test/traffic/traffic-world.ts), over random
// policies with nested and overlapping IPv4 and IPv6 CIDRs from /0 to /32 and /128, rules, and
// restrictions and a TCP edge module enforced, warn-only or absent, before and after. Probed at the
// first and last address of every CIDR, one past each end, both ends of each family, and random
// addresses: every range of a reach set starts at one of those, so "lets some through" is exact.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountOf } from '../../src/account/model.js';
import { plan } from '../../src/cli/worded-plan.js';
import { formatAddress, formatCidr, type IpVersion, parseAddress, parseCidr } from '../../src/net/cidr.js';
import { AddressSet } from '../../src/net/cidr-set.js';
import { PlanError } from '../../src/plan/planner.js';
import type { Plan } from '../../src/plan/types.js';
import { reachOf } from '../../src/traffic/reach.js';
import { NOW, OPTIONS } from '../plan/fixtures.js';
import type { FakeAccount } from '../support/account.js';
import { apply, EDGE_PATH, letThrough, setUp, TYPES, type World, worldOf } from './traffic-world.js';

const BITS = { 4: 32, 6: 128 } as const;
const space = (v: IpVersion) => 1n << BigInt(BITS[v]);
const POOL: Record<IpVersion, bigint[]> = {
  4: [0n, 0x0a000000n, 0x0a010200n, 0xc6336440n, 0xffffffffn],
  6: [0n, 0x20010db8n << 96n, (0x20010db8n << 96n) | (1n << 80n), space(6) - 1n],
};
const cidrOf = (v: IpVersion) =>
  fc
    .tuple(
      fc.oneof(fc.constantFrom(...POOL[v]), fc.bigInt(0n, space(v) - 1n)),
      fc.oneof(fc.integer({ min: 0, max: BITS[v] }), fc.constantFrom(8, 16, 24, BITS[v])),
    )
    .map(([base, prefix]) => {
      const host = (1n << BigInt(BITS[v] - prefix)) - 1n;
      return formatCidr({ version: v, address: base & ~host & (space(v) - 1n), prefix });
    });
const worlds = fc.tuple(
  worldOf(fc.oneof(cidrOf(4), cidrOf(6))),
  fc.array(
    fc.oneof(
      fc.bigInt(0n, space(4) - 1n).map((v) => formatAddress(4, v)),
      fc.bigInt(0n, space(6) - 1n).map((v) => formatAddress(6, v)),
    ),
    { maxLength: 4 },
  ),
);

const SCOPES: Record<string, string> = { dashboard: 'dashboard', api: 'api', edge: 'tcp_edges.edgtcp_1' };

function probesOf(w: World, random: readonly string[]): string[] {
  const cidrs = [
    ...w.unmanagedRules,
    ...Object.values(w.policies).flatMap((p) => [...p.liveRules, ...p.rules]),
  ].map((r) => r.cidr);
  const out = new Set(random);
  for (const v of [4, 6] as const) for (const value of [0n, space(v) - 1n]) out.add(formatAddress(v, value));
  for (const text of cidrs) {
    const cidr = parseCidr(text);
    if ('problem' in cidr) throw new Error(cidr.problem);
    const last = cidr.address + (1n << BigInt(BITS[cidr.version] - cidr.prefix)) - 1n;
    for (const value of [cidr.address - 1n, cidr.address, last, last + 1n]) {
      if (value >= 0n && value < space(cidr.version)) out.add(formatAddress(cidr.version, value));
    }
  }
  return [...out];
}

/** Whether each scope (the model's names) is enforced in the account. */
function enforcedIn(account: FakeAccount): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const type of TYPES) {
    out[type] = account.objects('ip_restriction').some((o) => o['type'] === type && o['enforced'] === true);
  }
  const m = account.module(EDGE_PATH);
  out['edge'] = m !== undefined && m['enabled'] !== false;
  return out;
}

function planned(
  w: World,
  force: boolean,
): { account: FakeAccount; p: Plan; live: ReturnType<FakeAccount['live']> } | undefined {
  const { account, desired } = setUp(w);
  const live = account.live(desired);
  try {
    return { account, p: plan(desired, live, NOW, { ...OPTIONS, force }), live };
  } catch (err) {
    if (err instanceof PlanError) return undefined;
    throw err;
  }
}

const family = (address: string) => parseAddress(address)?.version;

describe('reach (property)', () => {
  it('agrees with the model of the service before and after, and the plan shows exactly the differences', () => {
    let checked = 0;
    fc.assert(
      fc.property(worlds, ([w, random]) => {
        const made = planned(w, true);
        if (!made) return;
        checked++;
        const { account, p, live } = made;
        const probes = probesOf(w, random);
        const reach = new Map(reachOf(p.changes, accountOf(live)).map((r) => [r.scope, r]));
        const B = letThrough(account, probes);
        apply(
          account,
          p,
          () => 0,
          () => {},
        );
        const A = letThrough(account, probes);
        const shown = new Map(p.reach.map((r) => [r.scope, r]));
        for (const [model, scope] of Object.entries(SCOPES)) {
          const r = reach.get(scope)!;
          const json = shown.get(scope);
          const set = (summary: { cidrs: string[] }) => AddressSet.of(summary.cidrs);
          for (const a of probes) {
            const [b, after] = [B.get(model)!.has(a), A.get(model)!.has(a)];
            expect(r.before.contains(a), `${scope} before at ${a}`).toBe(b);
            expect(r.after.contains(a), `${scope} after at ${a}`).toBe(after);
            if (json) {
              expect(set(json.let_in).contains(a), `${scope} lets in ${a}`).toBe(after && !b);
              expect(set(json.shut_out).contains(a), `${scope} shuts out ${a}`).toBe(b && !after);
            }
          }
          expect(json === undefined, scope).toBe(r.before.equals(r.after));
          expect(p.reach_unchanged.includes(scope)).toBe(json === undefined);
          for (const summary of json ? [json.before, json.after, json.let_in, json.shut_out] : []) {
            // Minimal and sorted: the list is its own normal form (test/net/cidr-set.test.ts).
            expect(set(summary).cidrs()).toEqual(summary.cidrs);
            expect(set(summary).count()).toBe(summary.addresses);
          }
        }
      }),
      { numRuns: 250 },
    );
    expect(checked).toBeGreaterThan(100);
  }, 600_000);

  it('the lockout guard refuses exactly when a scope, or a family of a scope enforced today, goes from some to none', () => {
    let refused = 0;
    fc.assert(
      fc.property(worlds, ([w, random]) => {
        const made = planned(w, false);
        const forced = planned(w, true);
        if (!made || !forced) return;
        const probes = probesOf(w, random);
        const B = letThrough(forced.account, probes);
        const enforced = enforcedIn(forced.account);
        apply(
          forced.account,
          forced.p,
          () => 0,
          () => {},
        );
        const A = letThrough(forced.account, probes);
        const expected: string[] = [];
        for (const model of Object.keys(SCOPES)) {
          const [b, a] = [[...B.get(model)!], [...A.get(model)!]];
          if (b.length > 0 && a.length === 0) expected.push(`${model}`);
          else if (enforced[model]) {
            for (const v of [4, 6] as const) {
              const some = (list: string[]) => list.some((x) => family(x) === v);
              if (some(b) && !some(a)) expected.push(`${model} IPv${v}`);
            }
          }
        }
        const refusals = made.p.unsafe_reasons.filter((r) => r.startsWith('would lock out'));
        if (refusals.length > 0) refused++;
        expect(refusals.length, `${expected.join(', ')} vs ${refusals.join('\n')}`).toBe(expected.length);
        expect(forced.p.unsafe_reasons.filter((r) => r.startsWith('would lock out'))).toEqual([]);
      }),
      { numRuns: 250 },
    );
    expect(refused).toBeGreaterThan(10);
  }, 600_000);
});
