// Exact address sets: table cases, and properties against a brute-force model that asks each CIDR
// whether it holds an address, probed at the first and last address of every CIDR, one past each
// end and random addresses.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Cidr, cidrContains, formatCidr, type IpVersion, parseCidr } from '../../src/net/cidr.js';
import { AddressSet, CidrBlocks } from '../../src/net/cidr-set.js';

const set = (...cidrs: string[]) => AddressSet.of(cidrs);

describe('AddressSet', () => {
  it.each([
    [['10.0.0.0/9', '10.128.0.0/9'], ['10.0.0.0/8'], '16777216'],
    [['10.0.0.0/8', '10.1.0.0/16'], ['10.0.0.0/8'], '16777216'],
    [['10.0.0.1/32', '10.0.0.2/32'], ['10.0.0.1/32', '10.0.0.2/32'], '2'],
    [['10.0.0.2/32', '10.0.0.1/32', '10.0.0.3/32'], ['10.0.0.1/32', '10.0.0.2/31'], '3'],
    [
      ['2001:db8::/33', '2001:db8:8000::/33', '10.0.0.0/8'],
      ['10.0.0.0/8', '2001:db8::/32'],
      (2n ** 96n + 2n ** 24n).toString(),
    ],
    [['0.0.0.0/1', '128.0.0.0/1'], ['0.0.0.0/0'], '4294967296'],
    // IPv4-mapped blocks are written with the IPv4 address dotted (RFC 5952 §5); their neighbours not.
    [['::ffff:a00:0/105', '::ffff:a80:0/105'], ['::ffff:10.0.0.0/104'], '16777216'],
    [['::fffe:ffff:ffff/128', '::ffff:0:0/127'], ['::fffe:ffff:ffff/128', '::ffff:0.0.0.0/127'], '3'],
    [[], [], '0'],
  ])('of(%j) is %j with %s addresses', (input, cidrs, count) => {
    const built = AddressSet.of(input);
    expect(built.cidrs()).toEqual(cidrs);
    expect(built.count()).toBe(count);
  });

  it('subtracts a hole as the fewest blocks around it', () => {
    const left = set('198.51.100.0/24').minus(set('198.51.100.64/26'));
    expect(left.cidrs()).toEqual(['198.51.100.0/26', '198.51.100.128/25']);
    expect(left.count()).toBe('192');
    expect(set('0.0.0.0/0').minus(set('0.0.0.0/1')).cidrs()).toEqual(['128.0.0.0/1']);
    expect(set('10.0.0.0/8').minus(set('10.0.0.0/8')).isEmpty()).toBe(true);
  });

  it('intersects per family', () => {
    const both = set('10.0.0.0/8', '2001:db8::/32').intersect(set('10.2.0.0/16', '192.0.2.0/24', '::/0'));
    expect(both.cidrs()).toEqual(['10.2.0.0/16', '2001:db8::/32']);
    expect(set('10.0.0.0/8').intersect(set('::/0')).isEmpty()).toBe(true);
  });

  it('knows everyone, each family and membership', () => {
    expect(AddressSet.everyone.isEveryone()).toBe(true);
    expect(AddressSet.everyone.cidrs()).toEqual(['0.0.0.0/0', '::/0']);
    expect(AddressSet.everyone.count()).toBe((2n ** 32n + 2n ** 128n).toString());
    expect(set('0.0.0.0/0', '::/0').equals(AddressSet.everyone)).toBe(true);
    expect(set('0.0.0.0/0').isEveryone()).toBe(false);
    const v6only = set('2001:db8::/32');
    expect([v6only.hasAny(4), v6only.hasAny(6)]).toEqual([false, true]);
    expect(set('10.0.0.0/8', '::1/128').family(4).cidrs()).toEqual(['10.0.0.0/8']);
    expect(set('10.0.0.0/8').contains('10.255.255.255')).toBe(true);
    expect(set('10.0.0.0/8').contains('11.0.0.0')).toBe(false);
    expect(set('10.0.0.0/8').contains('::ffff:10.0.0.1')).toBe(false);
    expect(set('10.0.0.0/8').contains('not an address')).toBe(false);
    expect(set('10.1.0.0/16').isSubsetOf(set('10.0.0.0/8'))).toBe(true);
    expect(set('10.0.0.0/8').isSubsetOf(set('10.1.0.0/16'))).toBe(false);
    expect(AddressSet.none.isSubsetOf(set('10.1.0.0/16'))).toBe(true);
  });

  it('sums whole unions at once', () => {
    const all = AddressSet.unionOf([set('10.0.0.0/9'), set('10.128.0.0/9'), set('::/1')]);
    expect(all.cidrs()).toEqual(['10.0.0.0/8', '::/1']);
    expect(all.summary()).toEqual({
      everyone: false,
      cidrs: ['10.0.0.0/8', '::/1'],
      addresses: (2n ** 24n + 2n ** 127n).toString(),
    });
  });

  it('rejects a text that is not a range', () => {
    expect(() => set('10.0.0.1/8')).toThrow(/not the lowest address/);
  });
});

const BITS = { 4: 32, 6: 128 } as const;
const space = (version: IpVersion) => 1n << BigInt(BITS[version]);

// Bases from a small pool as well as anywhere, so that CIDRs nest, overlap and touch often.
const POOL: Record<IpVersion, bigint[]> = {
  4: [0n, 0x0a000000n, 0x0a010000n, 0xc6336440n, 0xc6336400n, 0xffffffffn],
  6: [0n, 0x20010db8n << 96n, (0x20010db8n << 96n) | (1n << 80n), space(6) - 1n],
};

const cidrOf = (version: IpVersion): fc.Arbitrary<Cidr> =>
  fc
    .tuple(
      fc.oneof(fc.constantFrom(...POOL[version]), fc.bigInt(0n, space(version) - 1n)),
      fc.oneof(fc.integer({ min: 0, max: BITS[version] }), fc.constantFrom(BITS[version] - 2, 8, 16)),
    )
    .map(([base, prefix]) => {
      const host = (1n << BigInt(BITS[version] - prefix)) - 1n;
      return { version, address: base & ~host & (space(version) - 1n), prefix };
    });

const cidrs = fc.array(fc.oneof(cidrOf(4), cidrOf(6)), { maxLength: 8 });
const randomAddress = fc.oneof(
  fc.bigInt(0n, space(4) - 1n).map((value) => ({ version: 4 as const, value })),
  fc.bigInt(0n, space(6) - 1n).map((value) => ({ version: 6 as const, value })),
);

type Address = { version: IpVersion; value: bigint };
const inModel = (list: Cidr[], address: Address) => list.some((cidr) => cidrContains(cidr, address));

function probes(lists: Cidr[][], random: Address[]): Address[] {
  const out = [...random];
  for (const cidr of lists.flat()) {
    const last = cidr.address + (1n << BigInt(BITS[cidr.version] - cidr.prefix)) - 1n;
    for (const value of [cidr.address - 1n, cidr.address, last, last + 1n]) {
      if (value >= 0n && value < space(cidr.version)) out.push({ version: cidr.version, value });
    }
  }
  return out;
}

/** No block's parent lies wholly in the set (else the two halves could merge), and blocks are sorted. */
function expectMinimalSorted(result: AddressSet): void {
  const blocks = result.cidrs().map((text) => parseCidr(text) as Cidr);
  expect(AddressSet.of(blocks).equals(result)).toBe(true);
  for (const [i, block] of blocks.entries()) {
    if (block.prefix > 0) {
      const parentPrefix = block.prefix - 1;
      const host = (1n << BigInt(BITS[block.version] - parentPrefix)) - 1n;
      const parent = { version: block.version, address: block.address & ~host, prefix: parentPrefix };
      expect(AddressSet.of([parent]).isSubsetOf(result), `${formatCidr(block)} could merge`).toBe(false);
    }
    const next = blocks[i + 1];
    if (next) {
      const ordered =
        block.version < next.version || (block.version === next.version && block.address < next.address);
      expect(ordered, `${formatCidr(block)} before ${formatCidr(next)}`).toBe(true);
      expect(
        AddressSet.of([block])
          .intersect(AddressSet.of([next]))
          .isEmpty(),
      ).toBe(true);
    }
  }
}

describe('AddressSet properties', () => {
  it('agrees with the model on union, intersection and difference, and stays minimal and sorted', () => {
    fc.assert(
      fc.property(cidrs, cidrs, fc.array(randomAddress, { maxLength: 6 }), (a, b, random) => {
        const setA = AddressSet.of(a);
        const setB = AddressSet.of(b);
        const results = {
          a: [setA, (x: Address) => inModel(a, x)],
          union: [setA.union(setB), (x: Address) => inModel(a, x) || inModel(b, x)],
          intersect: [setA.intersect(setB), (x: Address) => inModel(a, x) && inModel(b, x)],
          minus: [setA.minus(setB), (x: Address) => inModel(a, x) && !inModel(b, x)],
        } as const;
        for (const address of probes([a, b], random)) {
          for (const [name, [result, model]] of Object.entries(results)) {
            expect(result.contains(address), `${name} at ${address.version}:${address.value}`).toBe(
              model(address),
            );
          }
        }
        for (const [result] of Object.values(results)) expectMinimalSorted(result);
        expect(setA.minus(setB).union(setA.intersect(setB)).equals(setA)).toBe(true);
        expect(setA.intersect(setB).isSubsetOf(setA)).toBe(true);
        expect(setA.isSubsetOf(setB)).toBe(setA.minus(setB).isEmpty());
        expect(setA.intersects(setB)).toBe(!setA.intersect(setB).isEmpty());
        expect(AddressSet.unionOf([setA, setB]).equals(setA.union(setB))).toBe(true);
        const sizes = setA.minus(setB).size() + setA.intersect(setB).size();
        expect(sizes).toBe(setA.size());
        expect(setA.size(4) + setA.size(6)).toBe(setA.size());
        for (const version of [4, 6] as const) {
          expect(setA.hasAny(version)).toBe(a.some((cidr) => cidr.version === version));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reads texts (IPv4 on numbers) as it reads parsed ranges (bigints), and unites lists as sets', () => {
    fc.assert(
      fc.property(fc.array(cidrs, { maxLength: 5 }), (lists) => {
        const sets = lists.map((list) => AddressSet.of(list));
        const texts = lists.map((list) => list.map(formatCidr));
        for (const [i, list] of texts.entries()) expect(AddressSet.of(list).equals(sets[i]!)).toBe(true);
        const union = AddressSet.unionOf(sets);
        expect(AddressSet.ofBlocks(texts.map((list) => CidrBlocks.of(list))).equals(union)).toBe(true);
        expect(AddressSet.ofBlocks(lists.map((list) => CidrBlocks.of(list))).equals(union)).toBe(true);
        const model = lists.flat();
        expect(union.cidrs()).toEqual(AddressSet.of(model).cidrs());
        for (const address of probes(lists, []))
          expect(union.contains(address)).toBe(inModel(model, address));
      }),
      { numRuns: 300 },
    );
  });
});
