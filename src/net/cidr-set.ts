// Exact sets of source addresses, for reach (DESIGN §4 "Reach"): IPv4 (32 bits) and IPv6 (128 bits)
// each held as sorted, disjoint, non-touching half-open ranges, so that union, intersection and
// difference are linear merges and every answer is exact, never sampled. A range decomposes into the
// fewest CIDR blocks that cover it; because no two ranges touch, no two blocks of the whole list could
// merge into one. IPv4 bounds are numbers (up to 2^32, exact in a double) and IPv6 bounds bigints: a
// reach of 10,000 rules, most of them IPv4, must take well under 100 ms, and a bigint is an allocation.
import { type Cidr, formatAddress, type IpVersion, parseAddress } from './cidr.js';
import { CidrBlocks, v4Ranges, v6Ranges } from './cidr-blocks.js';
import {
  type Flat,
  holds,
  intersect,
  meets,
  merge,
  sameRanges,
  subtract,
  unionAll,
  within,
} from './ranges.js';

export { CidrBlocks };

const V4_SPACE = 2 ** 32;
const V6_SPACE = 1n << 128n;

/** A set as the plan's JSON shows it: whole, with its address count as a decimal string. */
export interface AddressSetSummary {
  /** Every IPv4 and every IPv6 address. */
  everyone: boolean;
  /** The minimal sorted CIDR list, IPv4 first. */
  cidrs: string[];
  addresses: string;
}

/** An immutable set of IPv4 and IPv6 addresses. */
export class AddressSet {
  static readonly none = new AddressSet([], []);
  static readonly everyone = new AddressSet([0, V4_SPACE], [0n, V6_SPACE]);

  private constructor(
    private readonly v4: Flat<number>,
    private readonly v6: Flat<bigint>,
  ) {}

  /**
   * The addresses of `cidrs` (texts such as `10.0.0.0/8` or `2001:db8::/32`, or parsed ranges). A
   * text that is not a range written with its lowest address is a programming error here: files and
   * answers are validated before their sets are built.
   */
  static of(cidrs: Iterable<string | Cidr>): AddressSet {
    return AddressSet.ofBlocks([CidrBlocks.of(cidrs)]);
  }

  /** The addresses of all the lists: one sort of every block, then one pass that merges them. */
  static ofBlocks(lists: readonly CidrBlocks[]): AddressSet {
    return AddressSet.make(v4Ranges(lists.map((l) => l.v4)), v6Ranges(lists.map((l) => l.v6)));
  }

  /** The union of many sets at once: pairwise merges of sorted lists, never a sort. */
  static unionOf(sets: Iterable<AddressSet>): AddressSet {
    const v4: Flat<number>[] = [];
    const v6: Flat<bigint>[] = [];
    for (const set of sets) {
      v4.push(set.v4);
      v6.push(set.v6);
    }
    return AddressSet.make(unionAll(v4), unionAll(v6));
  }

  private static make(v4: Flat<number>, v6: Flat<bigint>): AddressSet {
    if (v4.length === 0 && v6.length === 0) return AddressSet.none;
    return new AddressSet(v4, v6);
  }

  union(other: AddressSet): AddressSet {
    return AddressSet.make(merge(this.v4, other.v4), merge(this.v6, other.v6));
  }

  intersect(other: AddressSet): AddressSet {
    return AddressSet.make(intersect(this.v4, other.v4), intersect(this.v6, other.v6));
  }

  minus(other: AddressSet): AddressSet {
    if (other.isEmpty()) return this;
    return AddressSet.make(subtract(this.v4, other.v4), subtract(this.v6, other.v6));
  }

  /** Only the addresses of one family. */
  family(version: IpVersion): AddressSet {
    return version === 4 ? AddressSet.make(this.v4, []) : AddressSet.make([], this.v6);
  }

  isEmpty(): boolean {
    return this.v4.length === 0 && this.v6.length === 0;
  }

  /** Whether some address of `version` is in the set. */
  hasAny(version: IpVersion): boolean {
    return (version === 4 ? this.v4 : this.v6).length > 0;
  }

  /** Whether every address of both families is in the set. */
  isEveryone(): boolean {
    const v4 = this.v4;
    const v6 = this.v6;
    return (
      v4.length === 2 &&
      v4[0] === 0 &&
      v4[1] === V4_SPACE &&
      v6.length === 2 &&
      v6[0] === 0n &&
      v6[1] === V6_SPACE
    );
  }

  /** Whether `address` (its text, or a parsed address) is in the set; a text that is no address is not. */
  contains(address: string | { version: IpVersion; value: bigint }): boolean {
    const one = typeof address === 'string' ? parseAddress(address) : address;
    if (!one) return false;
    return one.version === 4 ? holds(this.v4, Number(one.value)) : holds(this.v6, one.value);
  }

  /** Whether every address of the set is in `other`; a search per range of this set. */
  isSubsetOf(other: AddressSet): boolean {
    return within(this.v4, other.v4) && within(this.v6, other.v6);
  }

  /** Whether some address is in both sets; a search per range of the smaller one. */
  intersects(other: AddressSet): boolean {
    return meets(this.v4, other.v4) || meets(this.v6, other.v6);
  }

  equals(other: AddressSet): boolean {
    return this === other || (sameRanges(this.v4, other.v4) && sameRanges(this.v6, other.v6));
  }

  /** The set's CIDR texts, written once: a plan shows one set on several lines (before, bounds). */
  private texts?: readonly string[];

  /** The fewest CIDR blocks that make up the set, sorted by address, IPv4 before IPv6. */
  cidrs(): string[] {
    if (this.texts === undefined) {
      const out: string[] = [];
      v4Texts(this.v4, out);
      v6Texts(this.v6, out);
      this.texts = out;
    }
    return this.texts.slice();
  }

  /** How many addresses, as a decimal string (IPv6 counts pass 2^53). */
  count(): string {
    return this.size().toString();
  }

  /** How many addresses, as a bigint; of one family when `version` is given. */
  size(version?: IpVersion): bigint {
    let v4 = 0;
    for (let i = 0; i < this.v4.length; i += 2) v4 += (this.v4[i + 1] as number) - (this.v4[i] as number);
    let v6 = 0n;
    for (let i = 0; i < this.v6.length; i += 2) v6 += (this.v6[i + 1] as bigint) - (this.v6[i] as bigint);
    return version === 4 ? BigInt(v4) : version === 6 ? v6 : BigInt(v4) + v6;
  }

  summary(): AddressSetSummary {
    return { everyone: this.isEveryone(), cidrs: this.cidrs(), addresses: this.count() };
  }
}

/** Each range as its fewest CIDR blocks, written out: at each step the largest aligned block that fits. */
function v4Texts(ranges: Flat<number>, out: string[]): void {
  for (let i = 0; i < ranges.length; i += 2) {
    let first = ranges[i] as number;
    const end = ranges[i + 1] as number;
    while (first < end) {
      // Trailing zero bits of `first` (ToInt32 keeps its low 32 bits), and the largest power of 2 in
      // what is left; 2^32 itself is the whole space.
      const alignment = first === 0 ? 32 : 31 - Math.clz32(first & -first);
      const left = end - first;
      const fits = left >= V4_SPACE ? 32 : 31 - Math.clz32(left);
      const hostBits = Math.min(alignment, fits);
      out.push(
        `${first >>> 24}.${(first >>> 16) & 255}.${(first >>> 8) & 255}.${first & 255}/${32 - hostBits}`,
      );
      first += 2 ** hostBits;
    }
  }
}

function v6Texts(ranges: Flat<bigint>, out: string[]): void {
  for (let i = 0; i < ranges.length; i += 2) {
    let first = ranges[i] as bigint;
    const end = ranges[i + 1] as bigint;
    while (first < end) {
      const alignment = first === 0n ? 128 : bitLength(first & -first) - 1;
      const fits = bitLength(end - first) - 1;
      const hostBits = Math.min(alignment, fits);
      out.push(`${formatAddress(6, first)}/${128 - hostBits}`);
      first += 1n << BigInt(hostBits);
    }
  }
}

/** How many bits `value` takes (0 for 0): four per hex digit, less the first digit's leading zeros. */
function bitLength(value: bigint): number {
  if (value === 0n) return 0;
  const hex = value.toString(16);
  return hex.length * 4 - (Math.clz32(Number.parseInt(hex[0] as string, 16)) - 28);
}
