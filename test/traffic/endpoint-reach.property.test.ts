// Endpoint reach (src/traffic/endpoint-policy.ts) against an independent evaluator written here: for one
// source address, walk the phases, rules and actions of a random traffic policy, taking every branch a
// connection may take (a rule's expressions true or false, an action that may end the processing
// ending it or not), and say whether some run lets the address through and whether every run does.
// The bounds must be exactly those: at_least holds the addresses every run lets through, at_most those
// some run does. Probed at every CIDR's ends and one past them, both ends of each family, and random
// addresses, IPv4 and IPv6, with and without expressions and phase-ending actions.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAddress, formatCidr, type IpVersion, parseAddress, parseCidr } from '../../src/net/cidr.js';
import { AddressSet, CidrBlocks } from '../../src/net/cidr-set.js';
import type { PlannedId } from '../../src/resources/known-after-apply.js';
import { actionSet, endpointBounds, restrictActions } from '../../src/traffic/endpoint-policy.js';

const BITS = { 4: 32, 6: 128 } as const;
const space = (v: IpVersion) => 1n << BigInt(BITS[v]);
const POOL: Record<IpVersion, bigint[]> = {
  4: [0n, 0x0a000000n, 0x0a010200n, 0xc6336440n, 0xffffffffn],
  6: [0n, 0x20010db8n << 96n, space(6) - 1n],
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
const cidr = fc.oneof(cidrOf(4), cidrOf(6));
const cidrs = fc.array(cidr, { maxLength: 3 });

const POLICIES = ['ipp_a', 'ipp_b', 'ipp_c'] as const;
type Rules = Record<string, readonly { action: 'allow' | 'deny'; cidr: string }[]>;
const policyRules = fc.record({
  ipp_a: fc.array(fc.record({ action: fc.constantFrom('allow' as const, 'deny' as const), cidr }), {
    maxLength: 3,
  }),
  ipp_b: fc.array(fc.record({ action: fc.constantFrom('allow' as const, 'deny' as const), cidr }), {
    maxLength: 3,
  }),
  ipp_c: fc.constant([]),
});

const restrictIps = fc
  .record(
    {
      enforce: fc.boolean(),
      allow: cidrs,
      deny: cidrs,
      ip_policies: fc.subarray([...POLICIES]),
    },
    { requiredKeys: ['allow'] },
  )
  .map((config) => ({ type: 'restrict-ips', config }));
const action = fc.oneof(
  { weight: 4, arbitrary: restrictIps },
  fc.constantFrom(
    { type: 'deny' },
    { type: 'custom-response', config: { status_code: 403 } },
    { type: 'add-headers', config: { headers: { x: 'y' } } },
    { type: 'rate-limit', config: { capacity: 10 } },
    { type: 'forward-internal', config: { url: 'https://x.internal' } },
    { type: 'forward-internal', config: { url: 'https://x.internal', on_error: 'continue' } },
  ),
);
const rule = fc.record(
  {
    name: fc.constantFrom('one', 'two'),
    expressions: fc.constantFrom(
      [],
      ["req.url.path.startsWith('/admin')"],
      ['conn.geo.country_code != "US"'],
    ),
    actions: fc.array(action, { minLength: 1, maxLength: 3 }),
  },
  { requiredKeys: ['actions'] },
);
const phase = fc.array(rule, { maxLength: 3 });
const documents = fc.record(
  { on_tcp_connect: phase, on_http_request: phase, on_http_response: phase },
  { requiredKeys: [] },
);
const account = fc.option(fc.record({ enforced: fc.boolean(), allow: cidrs, deny: cidrs }), {
  nil: undefined,
});

// The independent evaluator: CIDR membership on bigints, and every branch of a run.
function inCidr(text: string, address: string): boolean {
  const c = parseCidr(text);
  const a = parseAddress(address);
  if ('problem' in c || !a || a.version !== c.version) return false;
  const size = 1n << BigInt(BITS[c.version] - c.prefix);
  return a.value >= c.address && a.value < c.address + size;
}

type Config = { enforce?: boolean; allow?: string[]; deny?: string[]; ip_policies?: string[] };
function actionPasses(config: Config, rules: Rules, address: string): boolean {
  const policy = (config.ip_policies ?? []).flatMap((p) => rules[p] ?? []);
  const allow = [...(config.allow ?? []), ...policy.filter((r) => r.action === 'allow').map((r) => r.cidr)];
  const deny = [...(config.deny ?? []), ...policy.filter((r) => r.action === 'deny').map((r) => r.cidr)];
  return allow.some((c) => inCidr(c, address)) && !deny.some((c) => inCidr(c, address));
}

interface Outcome {
  some: boolean;
  every: boolean;
}
const either = (a: Outcome, b: Outcome): Outcome => ({ some: a.some || b.some, every: a.every && b.every });
const PASS: Outcome = { some: true, every: true };
const SHUT: Outcome = { some: false, every: false };

type Doc = Record<string, { expressions?: string[]; actions: { type: string; config?: unknown }[] }[]>;
function walk(doc: Doc, rules: Rules, address: string): Outcome {
  const flat = [...(doc['on_tcp_connect'] ?? []), ...(doc['on_http_request'] ?? [])];
  const fromRule = (i: number): Outcome => {
    if (i === flat.length) return PASS;
    const r = flat[i]!;
    const fromAction = (j: number): Outcome => {
      if (j === r.actions.length) return fromRule(i + 1);
      const a = r.actions[j]!;
      const config = (a.config ?? {}) as Config & { on_error?: string };
      if (a.type === 'restrict-ips') {
        const shut = config.enforce !== false && !actionPasses(config, rules, address);
        return shut ? SHUT : fromAction(j + 1);
      }
      const ends =
        ['deny', 'custom-response'].includes(a.type) ||
        (a.type === 'forward-internal' && config.on_error !== 'continue');
      if (ends) return PASS;
      if (a.type === 'rate-limit' || a.type === 'forward-internal') return either(PASS, fromAction(j + 1));
      return fromAction(j + 1);
    };
    const ran = fromAction(0);
    return (r.expressions ?? []).length > 0 ? either(ran, fromRule(i + 1)) : ran;
  };
  return fromRule(0);
}

/**
 * The bounds as SPEC-endpoints.md defines them, walked here on their own: an action that may run is
 * one no earlier action always ends the processing before; one that runs always has no expressions
 * and nothing before it that may end the processing.
 */
function definedBounds(doc: Doc, rules: Rules, address: string): { least: boolean; most: boolean } {
  const flat = [...(doc['on_tcp_connect'] ?? []), ...(doc['on_http_request'] ?? [])];
  let least = true;
  let most = true;
  let mayHaveEnded = false;
  for (const r of flat) {
    const conditional = (r.expressions ?? []).length > 0;
    let endedInRule = false;
    for (const a of r.actions) {
      const config = (a.config ?? {}) as Config & { on_error?: string };
      if (a.type === 'restrict-ips' && config.enforce !== false && !actionPasses(config, rules, address)) {
        least = false;
        if (!conditional && !mayHaveEnded) most = false;
      }
      const always =
        ['deny', 'custom-response'].includes(a.type) ||
        (a.type === 'forward-internal' && config.on_error !== 'continue');
      if (always && !conditional) return { least, most };
      if (always) {
        endedInRule = true;
        break;
      }
      if (a.type === 'rate-limit' || a.type === 'forward-internal') mayHaveEnded = true;
    }
    if (endedInRule) mayHaveEnded = true;
  }
  return { least, most };
}

function probes(texts: readonly string[], random: readonly string[]): string[] {
  const out = new Set(random);
  for (const v of [4, 6] as const) for (const value of [0n, space(v) - 1n]) out.add(formatAddress(v, value));
  for (const text of texts) {
    const c = parseCidr(text);
    if ('problem' in c) throw new Error(c.problem);
    const last = c.address + (1n << BigInt(BITS[c.version] - c.prefix)) - 1n;
    for (const value of [c.address - 1n, c.address, last, last + 1n]) {
      if (value >= 0n && value < space(c.version)) out.add(formatAddress(c.version, value));
    }
  }
  return [...out];
}

const setsOf = (rules: Rules) => (p: PlannedId) => ({
  allow: CidrBlocks.of((rules[String(p)] ?? []).filter((r) => r.action === 'allow').map((r) => r.cidr)),
  deny: CidrBlocks.of((rules[String(p)] ?? []).filter((r) => r.action === 'deny').map((r) => r.cidr)),
});

describe('endpoint reach', () => {
  it('at_least is what every run lets through and at_most what some run does, address by address', () => {
    const random = fc.array(
      fc.oneof(
        fc.bigInt(0n, space(4) - 1n).map((v) => formatAddress(4, v)),
        fc.bigInt(0n, space(6) - 1n).map((v) => formatAddress(6, v)),
      ),
      { maxLength: 3 },
    );
    fc.assert(
      fc.property(documents, policyRules, account, random, (doc, rules, acct, extra) => {
        const wide = acct?.enforced
          ? AddressSet.of(acct.allow).minus(AddressSet.of(acct.deny))
          : AddressSet.everyone;
        const bounds = endpointBounds(restrictActions(doc), (a) => actionSet(a, setsOf(rules)), wide);
        const exact = bounds.atLeast.equals(bounds.atMost);
        expect(bounds.atMost.isSubsetOf(AddressSet.everyone)).toBe(true);
        expect(bounds.atLeast.isSubsetOf(bounds.atMost)).toBe(true);
        const texts = JSON.stringify(doc).match(/"[0-9a-f:.]+\/\d+"/g) ?? [];
        const all = [
          ...texts.map((t) => JSON.parse(t) as string),
          ...Object.values(rules).flatMap((l) => l.map((r) => r.cidr)),
          ...(acct ? [...acct.allow, ...acct.deny] : []),
        ];
        for (const address of probes(all, extra)) {
          const byAccount = !acct?.enforced || actionPasses(acct, {}, address);
          const run = walk(doc as Doc, rules, address);
          const in_ = bounds.atLeast.contains(address);
          const ctx = `${address} in ${JSON.stringify(doc)} with ${JSON.stringify(rules)}`;
          // Bracketing: what at_least holds every run lets through; what some run lets through at_most holds.
          if (bounds.atLeast.contains(address)) expect(byAccount && run.every, `at least: ${ctx}`).toBe(true);
          if (byAccount && run.some) expect(bounds.atMost.contains(address), `at most: ${ctx}`).toBe(true);
          // Exact when every enforced action runs always: then every run agrees with the bounds.
          if (exact)
            expect([byAccount && run.every, byAccount && run.some], `exact: ${ctx}`).toEqual([in_, in_]);
          if (exact) continue;
          // The bounds are the spec's: every action that may run (a run taking every rule and ending
          // nowhere it may not), and only those that run always.
          const model = definedBounds(doc as Doc, rules, address);
          expect(bounds.atLeast.contains(address), `defined least: ${ctx}`).toBe(byAccount && model.least);
          expect(bounds.atMost.contains(address), `defined most: ${ctx}`).toBe(byAccount && model.most);
        }
      }),
      { numRuns: 300 },
    );
  });
});
