// CIDR blocks read from texts but not yet merged into a set (src/net/cidr-set.ts): IPv4 blocks as
// numbers in a typed array that sorts natively, IPv6 blocks as pairs of bigints kept sorted.
import { type Cidr, ipv4CidrKey, ipv6CidrBlock, parseCidr } from './cidr.js';
import { add, type Flat } from './ranges.js';

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

  /**
   * The blocks of a policy's rules, its allows and its denies apart: the one loop per rule that reach
   * runs, kept in one function so that it is compiled once, with the reading of each CIDR in it.
   */
  static ofRules(rules: readonly { action: 'allow' | 'deny'; cidr: string }[]): {
    allow: CidrBlocks;
    deny: CidrBlocks;
  } {
    const sides = [new BlocksBuilder(rules.length), new BlocksBuilder(rules.length)] as const;
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i] as { action: 'allow' | 'deny'; cidr: string };
      const side = sides[rule.action === 'allow' ? 0 : 1];
      // Most rules are IPv4: read here, without a bigint; the others after the loop, so that the
      // loop compiled is this one step alone.
      const key = ipv4CidrKey(rule.cidr);
      if (key >= 0) side.v4[side.n++] = key;
      else side.others.push(rule.cidr);
    }
    return { allow: sides[0].build(), deny: sides[1].build() };
  }

  /** Blocks gathered one by one (`ofRules`), as a list. */
  static built(v4: Float64Array, v6: (readonly [bigint, bigint])[]): CidrBlocks {
    return new CidrBlocks(v4, v6.sort(byFirst));
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

/** The blocks of one side of `CidrBlocks.ofRules`, gathered in room for every rule. */
class BlocksBuilder {
  readonly v4: Float64Array;
  n = 0;
  readonly v6: (readonly [bigint, bigint])[] = [];
  /** Texts `ipv4CidrKey` did not read, read by `build`. */
  readonly others: string[] = [];

  constructor(room: number) {
    this.v4 = new Float64Array(room);
  }

  build(): CidrBlocks {
    for (let i = 0; i < this.others.length; i++) {
      const block = otherBlockOfText(this.others[i] as string);
      if (typeof block === 'number') this.v4[this.n++] = block;
      else this.v6.push(block);
    }
    return CidrBlocks.built(this.v4.subarray(0, this.n), this.v6);
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
export function v4Ranges(lists: readonly Float64Array[]): Flat<number> {
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

type V6Blocks = readonly (readonly [bigint, bigint])[];

/**
 * IPv6 blocks as ranges: the lists, each sorted, merged in pairs (each block is copied about
 * log2(lists) times, however many policies a scope names), then touching blocks joined.
 */
export function v6Ranges(lists: readonly V6Blocks[]): Flat<bigint> {
  let level = lists.filter((list) => list.length > 0);
  while (level.length > 1) {
    const next: V6Blocks[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const a = level[i] as V6Blocks;
      const b = level[i + 1];
      next.push(b === undefined ? a : mergeBlocks(a, b));
    }
    level = next;
  }
  const blocks = level[0] ?? [];
  const out: bigint[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i] as readonly [bigint, bigint];
    add(out, block[0], block[1]);
  }
  return out;
}

/** Two sorted lists of blocks as one. */
function mergeBlocks(a: V6Blocks, b: V6Blocks): V6Blocks {
  const out: (readonly [bigint, bigint])[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as readonly [bigint, bigint];
    const y = b[j] as readonly [bigint, bigint];
    if (x[0] <= y[0]) {
      out.push(x);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  for (; i < a.length; i++) out.push(a[i] as readonly [bigint, bigint]);
  for (; j < b.length; j++) out.push(b[j] as readonly [bigint, bigint]);
  return out;
}

const byFirst = (a: readonly [bigint, bigint], b: readonly [bigint, bigint]) =>
  a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
