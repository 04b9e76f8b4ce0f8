// The hand-written address reader: exactly node:net's isIPv4 / isIPv6 less zone IDs, as tables and as
// properties on random text (near misses included) and on random well-formed addresses.
import { isIPv4, isIPv6 } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readAddress, readIpv4, readIpv6 } from '../../src/net/address.js';
import { parseCidr } from '../../src/net/cidr.js';

/** What the reader must answer: node:net's verdict, a zone ID refused. */
const nodeAccepts = (text: string) => isIPv4(text) || (isIPv6(text) && !text.includes('%'));

/** An address's value the slow, obvious way: node:net's BlockList-free reading, group by group. */
function expectedValue(text: string): bigint {
  if (isIPv4(text)) return text.split('.').reduce((v, o) => (v << 8n) | BigInt(Number(o)), 0n);
  let body = text;
  let tail: string[] = [];
  const last = body.slice(body.lastIndexOf(':') + 1);
  if (last.includes('.')) {
    const v4 = last.split('.').map(Number);
    tail = [((v4[0]! << 8) | v4[1]!).toString(16), ((v4[2]! << 8) | v4[3]!).toString(16)];
    body = body.slice(0, body.length - last.length);
    if (!body.endsWith('::')) body = body.slice(0, -1);
  }
  const parts = (side: string) => (side === '' ? [] : side.split(':'));
  const [head, rest] = body.includes('::') ? body.split('::') : [body, undefined];
  const left = parts(head!);
  const right = rest === undefined ? [] : parts(rest);
  const all = [...left, ...right, ...tail];
  const groups =
    rest === undefined && !body.includes('::')
      ? all
      : [...left, ...Array<string>(8 - all.length).fill('0'), ...right, ...tail];
  return groups.reduce((v, g) => (v << 16n) | BigInt(`0x${g}`), 0n);
}

describe('readAddress', () => {
  it.each([
    ['0.0.0.0', 4, 0n],
    ['255.255.255.255', 4, 0xffffffffn],
    ['10.1.2.3', 4, 0x0a010203n],
    ['::', 6, 0n],
    ['::1', 6, 1n],
    ['1::', 6, 1n << 112n],
    ['2001:DB8::', 6, 0x20010db8n << 96n],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', 6, (0x20010db8n << 96n) | 1n],
    ['1:2:3:4:5:6:7:8', 6, 0x00010002000300040005000600070008n],
    ['1:2:3:4:5:6:7::', 6, 0x00010002000300040005000600070000n],
    ['::2:3:4:5:6:7:8', 6, 0x00000002000300040005000600070008n],
    ['1::8', 6, 0x00010000000000000000000000000008n],
    ['::ffff:1.2.3.4', 6, 0xffff01020304n],
    ['::1.2.3.4', 6, 0x01020304n],
    ['1:2:3:4:5:6:1.2.3.4', 6, 0x00010002000300040005000601020304n],
    ['1:2:3:4:5::1.2.3.4', 6, 0x00010002000300040005000001020304n],
    ['64:ff9b::192.0.2.33', 6, 0x0064ff9b0000000000000000c0000221n],
  ])('reads %s as IPv%s %s', (text, version, value) => {
    expect(readAddress(text)).toEqual({ version, value });
  });

  it.each([
    '',
    '1.2.3',
    '1.2.3.4.5',
    '01.2.3.4',
    '1.2.3.04',
    '256.0.0.0',
    '1.2.3.4 ',
    ' 1.2.3.4',
    '1..2.3',
    '1.2.3.',
    ':',
    ':::',
    ':1::',
    '1::2:',
    '1:::2',
    '1::2::3',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7:8::',
    '::1:2:3:4:5:6:7:8',
    '12345::',
    'g::',
    '1:2:3:4:5:6:7:1.2.3.4',
    '1:2:3:4:5:6::1.2.3.4',
    '::1.2.3.4:5',
    '::ffff:01.2.3.4',
    '::ffff:1.2.3',
    '::ffff:256.0.0.1',
    '1.2.3.4::',
    'fe80::1%eth0',
    'fe80::1%1',
    '::%1',
    '١.٢.٣.٤',
  ])('refuses %j', (text) => {
    expect(readAddress(text)).toBeUndefined();
    expect(nodeAccepts(text)).toBe(false);
  });

  it('reads an IPv4 address inside a longer text only within the bounds given', () => {
    expect(readIpv4('x10.0.0.1/8', 1, 9)).toBe(0x0a000001);
    expect(readIpv4('x10.0.0.1/8', 1, 10)).toBe(-1);
    expect(readIpv6('1.2.3.4')).toBeUndefined();
  });

  it('keeps parseCidr messages for a zone ID and a bad address as they were', () => {
    expect(parseCidr('fe80::%eth0/64')).toMatchObject({
      problem: '"fe80::%eth0/64" is not a CIDR range: the part before "/" is not an IPv4 or IPv6 address',
    });
    expect(parseCidr('fe80::1%eth0')).toMatchObject({
      problem: '"fe80::1%eth0" is not a CIDR range such as 203.0.113.0/24 or 2001:db8::/32',
    });
    expect(parseCidr('::ffff:1.2.3.4')).toMatchObject({
      suggestion: '::ffff:1.2.3.4/128',
      reason: 'has no prefix length; a single address is /128',
    });
  });
});

/** Near-miss text: the characters addresses are made of, and a few that are not. */
const nearMiss = fc
  .array(fc.constantFrom(...'0123456789abcdefABCDEFg:::...%/ '.split(''), '::', '255', 'ffff', '0000'), {
    maxLength: 24,
  })
  .map((parts) => parts.join(''));

const hex = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'.split('')), minLength, maxLength });

/** A well-formed address (or nearly): groups around an optional `::`, an optional IPv4 tail. */
const shaped = fc
  .record({
    head: fc.array(hex(0, 5), { maxLength: 9 }),
    tail: fc.array(hex(1, 4), { maxLength: 8 }),
    gap: fc.boolean(),
    v4: fc.option(fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 3, maxLength: 5 })),
    zero: fc.boolean(),
  })
  .map(({ head, tail, gap, v4, zero }) => {
    const v4Text = v4 ? v4.map((o, i) => (zero && i === 0 ? `0${o}` : String(o))).join('.') : undefined;
    const right = [...tail, ...(v4Text ? [v4Text] : [])].join(':');
    return gap ? `${head.join(':')}::${right}` : [...head, ...(right ? [right] : [])].join(':');
  });

describe('properties', () => {
  it('accepts exactly what node:net accepts (less zone IDs), with the same value', () => {
    fc.assert(
      fc.property(
        fc.oneof(nearMiss, shaped, fc.string(), fc.ipV4(), fc.ipV6(), fc.ipV4Extended()),
        (text) => {
          const read = readAddress(text);
          expect(read !== undefined).toBe(nodeAccepts(text));
          if (read) {
            expect(read.version).toBe(isIPv4(text) ? 4 : 6);
            expect(read.value).toBe(expectedValue(text));
          }
        },
      ),
      { numRuns: 20_000 },
    );
  });
});
