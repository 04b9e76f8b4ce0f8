// The guard check agrees with the service's evaluation address by address: for random policies,
// rules and restrictions (enforced, warn-only, absent) and random guards, an address is named by an
// only_let_in breach exactly when it is let through and outside the guard's CIDRs, and by an
// always_let_in breach exactly when it is inside them and not let through; enforced is broken exactly
// when no enforced restriction decides the scope. Probed at the first and last address of every CIDR
// involved, one past each end, and random addresses of both families.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DesiredGuard } from '../../src/config/guard-model.js';
import { type Cidr, formatAddress, type IpVersion, parseCidr } from '../../src/net/cidr.js';
import { AddressSet } from '../../src/net/cidr-set.js';
import { scopeStates } from '../../src/traffic/governance.js';
import { guardBreaches } from '../../src/traffic/guards.js';
import { decide, type TrafficPicture, type TrafficRule } from '../../src/traffic/reach.js';

const BITS: Record<IpVersion, number> = { 4: 32, 6: 128 };

/** A CIDR written with its lowest address: IPv4 /0../32 or IPv6 /0../128, nested often (few high bits). */
const cidrArb = fc.oneof(
  fc
    .record({ prefix: fc.integer({ min: 0, max: 32 }), high: fc.integer({ min: 0, max: 15 }), low: fc.nat() })
    .map(({ prefix, high, low }) => cidrText(4, (BigInt(high) << 28n) | BigInt(low % 2 ** 28), prefix)),
  fc
    .record({
      prefix: fc.integer({ min: 0, max: 128 }),
      high: fc.integer({ min: 0, max: 15 }),
      low: fc.bigInt({ min: 0n, max: (1n << 124n) - 1n }),
    })
    .map(({ prefix, high, low }) => cidrText(6, (BigInt(high) << 124n) | low, prefix)),
);

function cidrText(version: IpVersion, value: bigint, prefix: number): string {
  const bits = BigInt(BITS[version]);
  const mask = ((1n << bits) - 1n) ^ ((1n << (bits - BigInt(prefix))) - 1n);
  return `${formatAddress(version, value & mask)}/${prefix}`;
}

const ruleArb = fc.record({ action: fc.constantFrom('allow' as const, 'deny' as const), cidr: cidrArb });
const worldArb = fc.record({
  policies: fc.array(fc.array(ruleArb, { maxLength: 5 }), { minLength: 1, maxLength: 3 }),
  binding: fc.constantFrom('enforced', 'warn-only', 'absent'),
  enforced: fc.boolean(),
  always: fc.array(cidrArb, { maxLength: 3 }),
  only: fc.option(fc.array(cidrArb, { maxLength: 3 }), { nil: undefined }),
  random: fc.array(
    fc.oneof(
      fc.nat().map((n) => formatAddress(4, BigInt(n) * 2n)),
      fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map((n) => formatAddress(6, n)),
    ),
    { maxLength: 8 },
  ),
});

/** The first and last address of `cidr`, and one past each end where there is one. */
function probes(text: string): string[] {
  const c = parseCidr(text) as Cidr;
  const top = (1n << BigInt(BITS[c.version])) - 1n;
  const last = c.address + (1n << BigInt(BITS[c.version] - c.prefix)) - 1n;
  return [c.address - 1n, c.address, last, last + 1n]
    .filter((v) => v >= 0n && v <= top)
    .map((v) => formatAddress(c.version, v));
}

describe('guards agree with the service, address by address', () => {
  it('only_let_in, always_let_in and enforced breaches are exactly what the rules let through', () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const rules = new Map<string, TrafficRule[]>();
        w.policies.forEach((list, i) => {
          // One CIDR once per policy, as the service keeps it.
          const seen = new Set<string>();
          const kept = list.filter((r) => !seen.has(r.cidr) && seen.add(r.cidr));
          rules.set(
            `p${i}`,
            kept.map((r) => ({ id: null, policy: `p${i}`, ...r })),
          );
        });
        const bindings = new Map(
          w.binding === 'absent'
            ? []
            : [['dashboard', { enforced: w.binding === 'enforced', policies: [...rules.keys()] }] as const],
        );
        const picture: TrafficPicture = { bindings, rules, edges: new Set() };
        const guard: DesiredGuard = {
          scope: 'dashboard',
          enforced: w.enforced,
          always_let_in: w.always,
          ...(w.only !== undefined ? { only_let_in: w.only } : {}),
          loc: { file: 'g.yaml', line: 1, col: 1 },
        };
        const states = scopeStates(picture, picture, ['dashboard']);
        const breaches = guardBreaches([guard], states, 'after');
        const named = (rule: string) =>
          AddressSet.of(breaches.filter((b) => b.rule === rule).flatMap((b) => b.cidrs));
        const onlyBreach = named('only_let_in');
        const alwaysBreach = named('always_let_in');
        const only = AddressSet.of(w.only ?? []);
        const always = AddressSet.of(w.always);
        const cidrs = [...w.policies.flat().map((r) => r.cidr), ...w.always, ...(w.only ?? [])];
        for (const address of [...cidrs.flatMap(probes), ...w.random]) {
          const through = decide(picture, 'dashboard', address).let;
          const outside = w.only !== undefined && through && !only.contains(address);
          expect(onlyBreach.contains(address), `only_let_in at ${address}`).toBe(outside);
          expect(alwaysBreach.contains(address), `always_let_in at ${address}`).toBe(
            always.contains(address) && !through,
          );
        }
        expect(breaches.some((b) => b.rule === 'enforced')).toBe(w.enforced && w.binding !== 'enforced');
        // Minimal and sorted: the CIDRs of each breach are the set's own minimal list.
        for (const b of breaches) expect(AddressSet.of(b.cidrs).cidrs()).toEqual(b.cidrs);
      }),
      { numRuns: 300 },
    );
  });
});
