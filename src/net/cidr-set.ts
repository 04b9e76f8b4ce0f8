// Exact sets of source addresses, for reach (DESIGN §4 "Reach"): IPv4 (32 bits) and IPv6 (128 bits)
// each held as sorted, disjoint, non-touching half-open ranges of bigints, so that union, intersection
// and difference are linear merges and every answer is exact, never sampled. A range decomposes into
// the fewest CIDR blocks that cover it; because no two ranges touch, no two blocks of the whole list
// could merge into one.
import { type Cidr, formatCidr, type IpVersion, isCidrProblem, parseAddress, parseCidr } from './cidr.js';

/** `[first, end)`: the addresses from `first` up to but not including `end`. */
type Range = readonly [first: bigint, end: bigint];
type Ranges = readonly Range[];

const SPACE: Record<IpVersion, bigint> = { 4: 1n << 32n, 6: 1n << 128n };
const BITS: Record<IpVersion, number> = { 4: 32, 6: 128 };

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
  static readonly everyone = new AddressSet([[0n, SPACE[4]]], [[0n, SPACE[6]]]);

  private constructor(
    private readonly v4: Ranges,
    private readonly v6: Ranges,
  ) {}

  /**
   * The addresses of `cidrs` (texts such as `10.0.0.0/8` or `2001:db8::/32`, or parsed ranges). A
   * text that is not a range written with its lowest address is a programming error here: files and
   * answers are validated before their sets are built.
   */
  static of(cidrs: Iterable<string | Cidr>): AddressSet {
    const v4: Range[] = [];
    const v6: Range[] = [];
    for (const item of cidrs) {
      const cidr = typeof item === 'string' ? parsed(item) : item;
      const size = 1n << BigInt(BITS[cidr.version] - cidr.prefix);
      (cidr.version === 4 ? v4 : v6).push([cidr.address, cidr.address + size]);
    }
    return AddressSet.make(normalize(v4), normalize(v6));
  }

  /** The union of many sets at once: one sort instead of a chain of merges. */
  static unionOf(sets: Iterable<AddressSet>): AddressSet {
    const v4: Range[] = [];
    const v6: Range[] = [];
    for (const set of sets) {
      v4.push(...set.v4);
      v6.push(...set.v6);
    }
    return AddressSet.make(normalize(v4), normalize(v6));
  }

  private static make(v4: Ranges, v6: Ranges): AddressSet {
    if (v4.length === 0 && v6.length === 0) return AddressSet.none;
    return new AddressSet(v4, v6);
  }

  union(other: AddressSet): AddressSet {
    return AddressSet.make(normalize([...this.v4, ...other.v4]), normalize([...this.v6, ...other.v6]));
  }

  intersect(other: AddressSet): AddressSet {
    return AddressSet.make(intersect(this.v4, other.v4), intersect(this.v6, other.v6));
  }

  minus(other: AddressSet): AddressSet {
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
    return this.ranges(version).length > 0;
  }

  /** Whether every address of both families is in the set. */
  isEveryone(): boolean {
    return isWhole(this.v4, 4) && isWhole(this.v6, 6);
  }

  /** Whether `address` (its text, or a parsed address) is in the set; a text that is no address is not. */
  contains(address: string | { version: IpVersion; value: bigint }): boolean {
    const one = typeof address === 'string' ? parseAddress(address) : address;
    if (!one) return false;
    const ranges = this.ranges(one.version);
    let low = 0;
    let high = ranges.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const [first, end] = ranges[middle] as Range;
      if (one.value < first) high = middle - 1;
      else if (one.value >= end) low = middle + 1;
      else return true;
    }
    return false;
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
    return sameRanges(this.v4, other.v4) && sameRanges(this.v6, other.v6);
  }

  /** The fewest CIDR blocks that make up the set, sorted by address, IPv4 before IPv6. */
  cidrs(): string[] {
    return [...blocks(this.v4, 4), ...blocks(this.v6, 6)].map(formatCidr);
  }

  /** How many addresses, as a decimal string (IPv6 counts pass 2^53). */
  count(): string {
    return this.size().toString();
  }

  /** How many addresses, as a bigint; of one family when `version` is given. */
  size(version?: IpVersion): bigint {
    const ranges = version === undefined ? [...this.v4, ...this.v6] : this.ranges(version);
    return ranges.reduce((sum, [first, end]) => sum + (end - first), 0n);
  }

  summary(): AddressSetSummary {
    return { everyone: this.isEveryone(), cidrs: this.cidrs(), addresses: this.count() };
  }

  private ranges(version: IpVersion): Ranges {
    return version === 4 ? this.v4 : this.v6;
  }
}

// Reach parses each rule's CIDR for the account and again for the files, and 10,000 rules must reach
// in well under 100 ms: parsed texts are kept, up to a bound that a long-running process never passes.
const PARSED = new Map<string, Cidr>();
const PARSED_LIMIT = 1_000_000;

function parsed(text: string): Cidr {
  const known = PARSED.get(text);
  if (known) return known;
  const cidr = parseCidr(text);
  if (isCidrProblem(cidr)) throw new Error(`AddressSet.of: ${cidr.problem}`);
  if (PARSED.size >= PARSED_LIMIT) PARSED.clear();
  PARSED.set(text, cidr);
  return cidr;
}

/** Sorted, disjoint, and with touching or overlapping ranges merged. */
function normalize(ranges: Range[]): Ranges {
  if (ranges.length < 2) return ranges;
  const sorted = [...ranges].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const out: Range[] = [];
  let [first, end] = sorted[0] as Range;
  for (let i = 1; i < sorted.length; i++) {
    const [nextFirst, nextEnd] = sorted[i] as Range;
    if (nextFirst <= end) {
      if (nextEnd > end) end = nextEnd;
    } else {
      out.push([first, end]);
      first = nextFirst;
      end = nextEnd;
    }
  }
  out.push([first, end]);
  return out;
}

function intersect(a: Ranges, b: Ranges): Ranges {
  const out: Range[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const [aFirst, aEnd] = a[i] as Range;
    const [bFirst, bEnd] = b[j] as Range;
    const first = aFirst > bFirst ? aFirst : bFirst;
    const end = aEnd < bEnd ? aEnd : bEnd;
    if (first < end) out.push([first, end]);
    if (aEnd < bEnd) i++;
    else j++;
  }
  return out;
}

function subtract(a: Ranges, b: Ranges): Ranges {
  const out: Range[] = [];
  let j = 0;
  for (const [aFirst, aEnd] of a) {
    let first = aFirst;
    while (j < b.length && (b[j] as Range)[1] <= first) j++;
    let k = j;
    while (k < b.length && first < aEnd) {
      const [bFirst, bEnd] = b[k] as Range;
      if (bFirst >= aEnd) break;
      if (bFirst > first) out.push([first, bFirst]);
      first = bEnd;
      k++;
    }
    if (first < aEnd) out.push([first, aEnd]);
  }
  return out;
}

/** The index of the last range of `ranges` that starts at or before `value`; -1 when none does. */
function lastStartingBy(ranges: Ranges, value: bigint): number {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((ranges[middle] as Range)[0] <= value) low = middle + 1;
    else high = middle - 1;
  }
  return high;
}

/** Each range of `a` lies within one range of `b` (ranges of `b` never touch, so one must hold it). */
function within(a: Ranges, b: Ranges): boolean {
  return a.every(([first, end]) => {
    const holder = b[lastStartingBy(b, first)];
    return holder !== undefined && end <= holder[1];
  });
}

function meets(a: Ranges, b: Ranges): boolean {
  const [small, large] = a.length <= b.length ? [a, b] : [b, a];
  return small.some(([first, end]) => {
    const before = large[lastStartingBy(large, first)];
    if (before !== undefined && before[1] > first) return true;
    const next = large[lastStartingBy(large, first) + 1];
    return next !== undefined && next[0] < end;
  });
}

function isWhole(ranges: Ranges, version: IpVersion): boolean {
  const only = ranges[0];
  return ranges.length === 1 && only !== undefined && only[0] === 0n && only[1] === SPACE[version];
}

function sameRanges(a: Ranges, b: Ranges): boolean {
  return a.length === b.length && a.every(([first, end], i) => first === b[i]?.[0] && end === b[i]?.[1]);
}

/** Each range as its fewest CIDR blocks: at each step the largest aligned block that fits. */
function blocks(ranges: Ranges, version: IpVersion): Cidr[] {
  const bits = BITS[version];
  const out: Cidr[] = [];
  for (const [rangeFirst, end] of ranges) {
    let first = rangeFirst;
    while (first < end) {
      const alignment = first === 0n ? bits : bitLength(first & -first) - 1;
      const fits = bitLength(end - first) - 1;
      const hostBits = Math.min(alignment, fits);
      out.push({ version, address: first, prefix: bits - hostBits });
      first += 1n << BigInt(hostBits);
    }
  }
  return out;
}

function bitLength(value: bigint): number {
  return value === 0n ? 0 : value.toString(2).length;
}
