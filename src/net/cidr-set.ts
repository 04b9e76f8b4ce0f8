// Exact sets of source addresses, for reach (DESIGN §4 "Reach"): IPv4 (32 bits) and IPv6 (128 bits)
// each held as sorted, disjoint, non-touching half-open ranges, so that union, intersection and
// difference are linear merges and every answer is exact, never sampled. A range decomposes into the
// fewest CIDR blocks that cover it; because no two ranges touch, no two blocks of the whole list could
// merge into one. IPv4 bounds are numbers (up to 2^32, exact in a double) and IPv6 bounds bigints: a
// reach of 10,000 rules, most of them IPv4, must take well under 100 ms, and a bigint is an allocation.
import {
  type Cidr,
  formatAddress,
  type IpVersion,
  ipv4CidrKey,
  ipv6CidrBlock,
  parseAddress,
  parseCidr,
} from './cidr.js';

type Bound = number | bigint;
/** Ranges laid flat, `[first0, end0, first1, end1, ...]`: each from `first` up to but not including `end`. */
type Flat<T extends Bound> = readonly T[];

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

/**
 * CIDR blocks read but not yet merged (a policy's allow rules, say): a scope's set is the union of
 * its policies' lists, and sorting all their blocks at once is fewer steps than merging set by set.
 * IPv4 blocks are numbers, `first * 64 + host bits` (exact: under 2^38), so that a typed array sorts
 * them natively.
 */
export class CidrBlocks {
  private constructor(
    readonly v4: Float64Array,
    /** Sorted by first address: a set of several lists merges them, never sorting bigints again. */
    readonly v6: readonly (readonly [bigint, bigint])[],
  ) {}

  static of(cidrs: Iterable<string | Cidr>): CidrBlocks {
    const blocks = [...cidrs].map((item) => (typeof item === 'string' ? blockOfText(item) : blockOf(item)));
    return CidrBlocks.ofBlocks(blocks);
  }

  /** The blocks of CIDR texts (a policy's rules): the one loop per rule that reach runs, kept lean. */
  static ofTexts(texts: readonly string[]): CidrBlocks {
    const v4 = new Float64Array(texts.length);
    let n = 0;
    const v6: (readonly [bigint, bigint])[] = [];
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i] as string;
      // Most rules are IPv4: read without a call further down, and without a bigint.
      const key = ipv4CidrKey(text);
      if (key >= 0) v4[n++] = key;
      else {
        const block = otherBlockOfText(text);
        if (typeof block === 'number') v4[n++] = block;
        else v6.push(block);
      }
    }
    return new CidrBlocks(n === texts.length ? v4 : v4.subarray(0, n), v6.sort(byFirst));
  }

  private static ofBlocks(blocks: readonly Block[]): CidrBlocks {
    const v4 = new Float64Array(blocks.length);
    let n = 0;
    const v6: (readonly [bigint, bigint])[] = [];
    for (const block of blocks) {
      if (typeof block === 'number') v4[n++] = block;
      else v6.push(block);
    }
    return new CidrBlocks(v4.subarray(0, n), v6.sort(byFirst));
  }
}

type Block = number | readonly [bigint, bigint];

function blockOf(cidr: Cidr): Block {
  if (cidr.version === 4) return Number(cidr.address) * 64 + (32 - cidr.prefix);
  return [cidr.address, cidr.address + (1n << BigInt(128 - cidr.prefix))];
}

// IPv4 texts are read afresh by `ipv4CidrKey` (a few steps on numbers); the others take bigints, so
// each is read once and kept, up to a bound that a long-running process never passes.
const READ = new Map<string, Block>();
const READ_LIMIT = 100_000;

function blockOfText(text: string): Block {
  const key = ipv4CidrKey(text);
  return key >= 0 ? key : otherBlockOfText(text);
}

/** The block of a text `ipv4CidrKey` does not read: an IPv6 range, read once. */
function otherBlockOfText(text: string): Block {
  const known = READ.get(text);
  if (known !== undefined) return known;
  let block: Block | undefined = ipv6CidrBlock(text);
  if (block === undefined) {
    const cidr = parseCidr(text);
    if ('problem' in cidr) throw new Error(`AddressSet.of: ${cidr.problem}`);
    block = blockOf(cidr);
  }
  if (READ.size >= READ_LIMIT) READ.clear();
  READ.set(text, block);
  return block;
}

/** IPv4 blocks as ranges: all sorted natively at once, then touching ones merged. */
function v4Ranges(lists: readonly Float64Array[]): Flat<number> {
  let total = 0;
  for (let i = 0; i < lists.length; i++) total += (lists[i] as Float64Array).length;
  // One list (a policy's own set) is sorted in a copy; several are laid side by side first.
  const sorted = lists.length === 1 ? (lists[0] as Float64Array).slice() : new Float64Array(total);
  if (lists.length > 1) {
    let at = 0;
    for (let i = 0; i < lists.length; i++) {
      const list = lists[i] as Float64Array;
      sorted.set(list, at);
      at += list.length;
    }
  }
  sorted.sort();
  // The merge is written out on numbers, not left to the generic `add`: this is reach's longest loop.
  const out: number[] = [];
  let first = -1;
  let end = -1;
  for (let i = 0; i < total; i++) {
    const block = sorted[i] as number;
    const hostBits = block % 64;
    const blockFirst = (block - hostBits) / 64;
    const blockEnd = blockFirst + (POWERS[hostBits] as number);
    if (blockFirst <= end) {
      if (blockEnd > end) end = blockEnd;
    } else {
      if (end >= 0) out.push(first, end);
      first = blockFirst;
      end = blockEnd;
    }
  }
  if (end >= 0) out.push(first, end);
  return out;
}

const POWERS = Float64Array.from({ length: 33 }, (_, bits) => 2 ** bits);

/** IPv6 blocks as ranges: the lists, each sorted, merged by always taking the lowest next block. */
function v6Ranges(lists: readonly (readonly (readonly [bigint, bigint])[])[]): Flat<bigint> {
  const at = new Int32Array(lists.length);
  const out: bigint[] = [];
  for (;;) {
    let lowest = -1;
    let first = 0n;
    for (let l = 0; l < lists.length; l++) {
      const next = (lists[l] as readonly (readonly [bigint, bigint])[])[at[l] as number];
      if (next !== undefined && (lowest < 0 || next[0] < first)) {
        lowest = l;
        first = next[0];
      }
    }
    if (lowest < 0) return out;
    const block = (lists[lowest] as readonly (readonly [bigint, bigint])[])[
      (at[lowest] as number)++
    ] as readonly [bigint, bigint];
    add(out, block[0], block[1]);
  }
}

const byFirst = (a: readonly [bigint, bigint], b: readonly [bigint, bigint]) =>
  a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;

/** Appends `[first, end)` to sorted ranges whose last starts at or before `first`, merging if they meet. */
function add<T extends Bound>(out: T[], first: T, end: T): void {
  const last = out.length - 1;
  if (last > 0 && first <= (out[last] as T)) {
    if (end > (out[last] as T)) out[last] = end;
  } else out.push(first, end);
}

function merge<T extends Bound>(a: Flat<T>, b: Flat<T>): Flat<T> {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && (a[i] as T) <= (b[j] as T))) {
      add(out, a[i] as T, a[i + 1] as T);
      i += 2;
    } else {
      add(out, b[j] as T, b[j + 1] as T);
      j += 2;
    }
  }
  return out;
}

/** The union of sorted lists, merged in pairs (each range is copied about log2(lists) times). */
function unionAll<T extends Bound>(lists: Flat<T>[]): Flat<T> {
  let level = lists.filter((list) => list.length > 0);
  while (level.length > 1) {
    const next: Flat<T>[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const a = level[i] as Flat<T>;
      const b = level[i + 1];
      next.push(b === undefined ? a : merge(a, b));
    }
    level = next;
  }
  return level[0] ?? [];
}

function intersect<T extends Bound>(a: Flat<T>, b: Flat<T>): Flat<T> {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const aFirst = a[i] as T;
    const aEnd = a[i + 1] as T;
    const bFirst = b[j] as T;
    const bEnd = b[j + 1] as T;
    const first = aFirst > bFirst ? aFirst : bFirst;
    const end = aEnd < bEnd ? aEnd : bEnd;
    if (first < end) out.push(first, end);
    if (aEnd < bEnd) i += 2;
    else j += 2;
  }
  return out;
}

function subtract<T extends Bound>(a: Flat<T>, b: Flat<T>): Flat<T> {
  if (a.length === 0 || b.length === 0) return a;
  const out: T[] = [];
  let j = 0;
  for (let i = 0; i < a.length; i += 2) {
    let first = a[i] as T;
    const aEnd = a[i + 1] as T;
    while (j < b.length && (b[j + 1] as T) <= first) j += 2;
    for (let k = j; k < b.length && first < aEnd; k += 2) {
      const bFirst = b[k] as T;
      if (bFirst >= aEnd) break;
      if (bFirst > first) out.push(first, bFirst);
      first = b[k + 1] as T;
    }
    if (first < aEnd) out.push(first, aEnd);
  }
  return out;
}

/** The index of the last range of `ranges` that starts at or before `value`; -1 when none does. */
function lastStartingBy<T extends Bound>(ranges: Flat<T>, value: T): number {
  let low = 0;
  let high = ranges.length / 2 - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((ranges[2 * middle] as T) <= value) low = middle + 1;
    else high = middle - 1;
  }
  return high;
}

function holds<T extends Bound>(ranges: Flat<T>, value: T): boolean {
  const at = lastStartingBy(ranges, value);
  return at >= 0 && value < (ranges[2 * at + 1] as T);
}

/** Each range of `a` lies within one range of `b` (ranges of `b` never touch, so one must hold it). */
function within<T extends Bound>(a: Flat<T>, b: Flat<T>): boolean {
  for (let i = 0; i < a.length; i += 2) {
    const holder = lastStartingBy(b, a[i] as T);
    if (holder < 0 || (a[i + 1] as T) > (b[2 * holder + 1] as T)) return false;
  }
  return true;
}

function meets<T extends Bound>(a: Flat<T>, b: Flat<T>): boolean {
  const small = a.length <= b.length ? a : b;
  const large = small === a ? b : a;
  for (let i = 0; i < small.length; i += 2) {
    const first = small[i] as T;
    const end = small[i + 1] as T;
    const before = lastStartingBy(large, first);
    if (before >= 0 && (large[2 * before + 1] as T) > first) return true;
    const next = large[2 * before + 2];
    if (next !== undefined && next < end) return true;
  }
  return false;
}

function sameRanges<T extends Bound>(a: Flat<T>, b: Flat<T>): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
