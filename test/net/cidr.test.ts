// CIDR ranges: strict parsing, the lowest-address rule with its suggestion, canonical form and
// containment, as tables and as properties against node:net's BlockList.
import { BlockList } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Cidr,
  canonicalCidr,
  cidrContains,
  cidrLineProblem,
  formatAddress,
  formatCidr,
  ipv4CidrKey,
  ipv6CidrBlock,
  isCidrProblem,
  parseAddress,
  parseCidr,
} from '../../src/net/cidr.js';

const ok = (text: string): Cidr => {
  const parsed = parseCidr(text);
  if (isCidrProblem(parsed)) throw new Error(parsed.problem);
  return parsed;
};

describe('parseCidr', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['203.0.113.7/32', '203.0.113.7/32'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['2001:DB8::/32', '2001:db8::/32'],
    ['2001:0db8:0000:0000:0000:0000:0000:0000/32', '2001:db8::/32'],
    ['::/0', '::/0'],
    ['::1/128', '::1/128'],
    ['2001:db8:0:0:1:0:0:0/80', '2001:db8:0:0:1::/80'],
    ['2001:db8:0:0:1:0:0:1/128', '2001:db8::1:0:0:1/128'],
    ['2001:db8:0:1:0:0:0:0/64', '2001:db8:0:1::/64'],
    ['1:0:2:0:3:0:4:0/128', '1:0:2:0:3:0:4:0/128'],
    // IPv4-mapped (::ffff:0:0/96): the last 32 bits dotted (RFC 5952 §5), however they were written.
    ['::ffff:192.0.2.128/128', '::ffff:192.0.2.128/128'],
    ['::ffff:c000:280/128', '::ffff:192.0.2.128/128'],
    ['::FFFF:a00:0/104', '::ffff:10.0.0.0/104'],
    ['0:0:0:0:0:ffff:0a00:0000/104', '::ffff:10.0.0.0/104'],
    ['::ffff:0:0/96', '::ffff:0.0.0.0/96'],
    ['::ffff:255.255.255.255/128', '::ffff:255.255.255.255/128'],
    // Next to the mapped range, and the other ranges with an IPv4 address inside: hexadecimal.
    ['::fffe:ffff:ffff/128', '::fffe:ffff:ffff/128'],
    ['::1:0:0:0/128', '::1:0:0:0/128'],
    ['1::ffff:a00:0/128', '1::ffff:a00:0/128'],
    ['::ffff:0:a00:0/128', '::ffff:0:a00:0/128'],
    ['64:ff9b::a00:0/120', '64:ff9b::a00:0/120'],
    ['::10.0.0.0/104', '::a00:0/104'],
  ])('reads %s as %s', (text, canonical) => {
    expect(canonicalCidr(text)).toBe(canonical);
  });

  it.each([
    ['10.1.2.3/16', '10.1.0.0/16'],
    ['192.168.1.1/24', '192.168.1.0/24'],
    ['2001:db8::1/32', '2001:db8::/32'],
    ['0.0.0.1/0', '0.0.0.0/0'],
  ])('refuses %s, which is not the lowest address of its range, suggesting %s', (text, suggestion) => {
    const parsed = parseCidr(text);
    expect(parsed).toEqual({
      kind: 'not-lowest',
      problem: `${JSON.stringify(text)} is not the lowest address of its range; write ${suggestion}`,
      reason: `is not the lowest address of its range; write ${suggestion}`,
      suggestion,
      writesSuggestion: true,
    });
  });

  it.each([
    ['10.0.0.0', 'has no prefix length; a single address is /32'],
    ['2001:db8::1', 'has no prefix length; a single address is /128'],
    ['10.0.0.0/33', 'prefix length must be a number from 0 to 32'],
    ['::/129', 'prefix length must be a number from 0 to 128'],
    ['10.0.0.0/08', 'prefix length must be a number'],
    ['10.0.0.0/', 'prefix length must be a number'],
    ['10.0.0.0/-1', 'prefix length must be a number'],
    ['010.0.0.0/8', 'not an IPv4 or IPv6 address'],
    ['10.0.0/8', 'not an IPv4 or IPv6 address'],
    [' 10.0.0.0/8', 'not an IPv4 or IPv6 address'],
    ['fe80::%eth0/64', 'not an IPv4 or IPv6 address'],
    ['office', 'is not a CIDR range such as 203.0.113.0/24'],
    ['', 'is not a CIDR range'],
  ])('refuses %j: %s', (text, problem) => {
    const parsed = parseCidr(text);
    expect(isCidrProblem(parsed) && parsed.kind).toBe('not-a-cidr');
    expect(isCidrProblem(parsed) && parsed.problem).toContain(problem);
  });

  it('suggests the /32 or /128 of a single address', () => {
    expect(parseCidr('10.0.0.1')).toMatchObject({ kind: 'not-a-cidr', suggestion: '10.0.0.1/32' });
    expect(parseCidr('2001:DB8::1')).toMatchObject({ suggestion: '2001:db8::1/128' });
  });
});

describe('cidrContains', () => {
  it.each([
    ['10.0.0.0/8', '10.255.1.2', true],
    ['10.0.0.0/8', '11.0.0.0', false],
    ['0.0.0.0/0', '203.0.113.9', true],
    ['0.0.0.0/0', '::1', false],
    ['2001:db8::/32', '2001:db8:ffff::1', true],
    ['2001:db8::/32', '2001:db9::', false],
    ['::/0', '10.0.0.1', false],
    ['10.0.0.0/8', 'not an address', false],
  ])('%s contains %s: %s', (cidr, address, expected) => {
    expect(cidrContains(ok(cidr), address)).toBe(expected);
  });
});

const ipv4 = fc.bigInt({ min: 0n, max: (1n << 32n) - 1n });
const ipv6 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });
/** IPv6 values with long zero runs, where compression has choices to make. */
const sparseIpv6 = fc
  .array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 })
  .map((groups) => groups.reduce((v, g) => (v << 16n) | BigInt(g), 0n));
/** IPv4-mapped IPv6 values (::ffff:0:0/96), and values one group away from being one. */
const MAPPED = 0xffffn << 32n;
const mappedIpv6 = fc.oneof(
  ipv4.map((v4) => MAPPED | v4),
  fc
    .tuple(ipv4, fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 0xffff }))
    .map(
      ([v4, group, g]) =>
        ((MAPPED | v4) & ~(0xffffn << BigInt(112 - 16 * group))) | (BigInt(g) << BigInt(112 - 16 * group)),
    ),
);
const address = fc.oneof(
  ipv4.map((value) => ({ version: 4 as const, value })),
  fc.oneof(ipv6, sparseIpv6, mappedIpv6).map((value) => ({ version: 6 as const, value })),
);
const isMapped = (value: bigint) => value >> 32n === 0xffffn;

/** The full, uncompressed, upper-case spelling of an IPv6 value. */
function longForm(value: bigint): string {
  return Array.from({ length: 8 }, (_, i) =>
    ((value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16).toUpperCase().padStart(4, '0'),
  ).join(':');
}

describe('properties', () => {
  it('an address reads back from its canonical text, and node:net agrees it is one', () => {
    fc.assert(
      fc.property(address, ({ version, value }) => {
        const text = formatAddress(version, value);
        expect(parseAddress(text)).toEqual({ version, value });
        if (version === 6 && isMapped(value)) {
          // RFC 5952 §5: an IPv4-mapped address is ::ffff: and the IPv4 address it maps, dotted.
          expect(text).toBe(`::ffff:${formatAddress(4, value & 0xffffffffn)}`);
        } else if (version === 6) {
          expect(text).not.toContain('.');
          expect(parseAddress(longForm(value))).toEqual({ version, value });
          // RFC 5952: lower case, no "::" for a single zero group, at most one "::".
          expect(text).toBe(text.toLowerCase());
          expect(text.split('::').length).toBeLessThanOrEqual(2);
          expect(text).not.toMatch(/(^|:)0[0-9a-f]/);
          // The longest run of zero groups is the one compressed (and never a single group).
          const explicit = text.split('::').map((side) => (side === '' ? [] : side.split(':')));
          const elided = text.includes('::') ? 8 - explicit.flat().length : 0;
          const runs = explicit.flatMap((side) => side.join(',').split(/,?[1-9a-f][0-9a-f]*,?/));
          const longest = Math.max(0, ...runs.map((r) => (r === '' ? 0 : r.split(',').length)));
          if (text.includes('::')) expect(elided).toBeGreaterThanOrEqual(Math.max(2, longest));
          else expect(longest).toBeLessThan(2);
        }
      }),
    );
  });

  it('a range is refused exactly when host bits are set, and the suggestion holds the address', () => {
    fc.assert(
      fc.property(address, fc.integer({ min: 0, max: 128 }), ({ version, value }, p) => {
        const prefix = version === 4 ? p % 33 : p;
        const text = `${formatAddress(version, value)}/${prefix}`;
        const bits = version === 4 ? 32n : 128n;
        const hostBits = value & ((1n << (bits - BigInt(prefix))) - 1n);
        const parsed = parseCidr(text);
        if (hostBits === 0n) {
          expect(parsed).toEqual({ version, address: value, prefix });
        } else {
          if (!isCidrProblem(parsed)) throw new Error(`${text} was accepted`);
          const suggested = ok(parsed.suggestion!);
          expect(suggested.prefix).toBe(prefix);
          expect(cidrContains(suggested, formatAddress(version, value))).toBe(true);
        }
      }),
    );
  });

  it('containment agrees with node:net BlockList', () => {
    fc.assert(
      fc.property(address, address, fc.integer({ min: 0, max: 128 }), (net, probe, p) => {
        const prefix = net.version === 4 ? p % 33 : p;
        const bits = net.version === 4 ? 32n : 128n;
        const mask = ((1n << bits) - 1n) ^ ((1n << (bits - BigInt(prefix))) - 1n);
        const cidr: Cidr = { version: net.version, address: net.value & mask, prefix };
        const list = new BlockList();
        const family = net.version === 4 ? 'ipv4' : 'ipv6';
        list.addSubnet(formatAddress(cidr.version, cidr.address), prefix, family);
        const probeText = formatAddress(probe.version, probe.value);
        const expected =
          probe.version === net.version && list.check(probeText, probe.version === 4 ? 'ipv4' : 'ipv6');
        expect(cidrContains(cidr, probeText)).toBe(expected);
      }),
    );
  });

  it('ipv4CidrKey reads an IPv4 range exactly as parseCidr does, and gives up on anything else', () => {
    const valid = fc
      .tuple(ipv4, fc.integer({ min: 0, max: 32 }))
      .map(([value, prefix]) => `${formatAddress(4, value & ~((1n << BigInt(32 - prefix)) - 1n))}/${prefix}`);
    // Near misses: a valid range with a character dropped, doubled or replaced, and loose texts.
    const mutated = fc
      .tuple(valid, fc.nat(), fc.constantFrom('', '0', '00', '.', '/', '9', '3', '256', ':', ' ', 'x'))
      .chain(([text, at, piece]) => {
        const i = at % (text.length + 1);
        return fc.constantFrom(
          text.slice(0, i) + piece + text.slice(i + 1),
          text.slice(0, i) + piece + text.slice(i),
        );
      });
    const loose = fc
      .array(fc.constantFrom('0', '1', '2', '5', '9', '.', '/', '3'), { maxLength: 20 })
      .map((chars) => chars.join(''));
    fc.assert(
      fc.property(fc.oneof(valid, mutated, loose), (text) => {
        const parsed = parseCidr(text);
        const expected = !isCidrProblem(parsed) && parsed.version === 4;
        const key = ipv4CidrKey(text);
        expect(key >= 0, text).toBe(expected);
        if (expected) {
          expect(key).toBe(Number(parsed.address) * 64 + 32 - parsed.prefix);
          // What it reads is written canonically already: canonicalCidr gives it back as it is.
          expect(formatCidr(parsed)).toBe(text);
          expect(canonicalCidr(text)).toBe(text);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('ipv6CidrBlock reads an IPv6 range exactly as parseCidr does, and gives up on anything else', () => {
    const valid = fc
      .tuple(ipv6, fc.integer({ min: 0, max: 128 }), fc.boolean())
      .map(([value, prefix, mapped]) => {
        const first = value & ~((1n << BigInt(128 - prefix)) - 1n);
        // Written canonically, or in full with leading zeros, or with its last 32 bits dotted.
        const full = first.toString(16).padStart(32, '0').match(/.{4}/g)!.join(':');
        const low = Number(first & 0xffffffffn);
        const dotted = `${full.slice(0, 30)}${low >>> 24}.${(low >>> 16) & 255}.${(low >>> 8) & 255}.${low & 255}`;
        return `${mapped ? dotted : formatAddress(6, first)}/${prefix}`;
      });
    const mutated = fc
      .tuple(valid, fc.nat(), fc.constantFrom('', '0', '00', '.', '/', ':', '::', 'f', 'g', '%1', '129', ' '))
      .chain(([text, at, piece]) => {
        const i = at % (text.length + 1);
        return fc.constantFrom(
          text.slice(0, i) + piece + text.slice(i + 1),
          text.slice(0, i) + piece + text.slice(i),
        );
      });
    fc.assert(
      fc.property(fc.oneof(valid, mutated), (text) => {
        const parsed = parseCidr(text);
        const expected = !isCidrProblem(parsed) && parsed.version === 6;
        const block = ipv6CidrBlock(text);
        expect(block !== undefined, text).toBe(expected);
        if (expected && block) {
          expect(block).toEqual([parsed.address, parsed.address + (1n << BigInt(128 - parsed.prefix))]);
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describe('a line of a file of CIDRs: the reason is a field, never cut from the sentence', () => {
  it.each([
    ['1.2.3.4"x/8', 'is not a CIDR range: the part before "/" is not an IPv4 or IPv6 address'],
    ['10.0.0.1', 'has no prefix length; a single address is /32; write 10.0.0.1/32'],
    ['10.1.2.3/16', 'is not the lowest address of its range; write 10.1.0.0/16'],
  ])('%s: says why without its text, and writes the suggestion once', (text, said) => {
    const parsed = parseCidr(text);
    if (!isCidrProblem(parsed)) throw new Error('a problem was expected');
    const line = cidrLineProblem('file "c.txt"', 3, parsed);
    expect(line.startsWith(`file "c.txt" line 3 ${said}`)).toBe(true);
    expect(line).not.toContain(JSON.stringify(text));
  });
});
