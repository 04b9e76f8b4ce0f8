// CIDR ranges of IP policy rules (shared/SPEC-ip-policies.md), for the local service and the file's
// validation alike: IPv4 and IPv6, parsed strictly (node:net's address syntax, no zone IDs), written
// with the lowest address of the range, and compared in one canonical form: IPv4 dotted decimal, IPv6
// as RFC 5952 section 4 says (lower case, no leading zeros, the longest run of two or more zero groups
// compressed, the first such run on a tie), and an IPv4-mapped address (::ffff:0:0/96) as section 5
// recommends, its last 32 bits dotted (::ffff:10.0.0.0).
import { groupsValue, type IpVersion, readAddress, readIpv6Groups } from './address.js';

export type { IpVersion };

/** A range: its first address as a number and the length of its prefix. */
export interface Cidr {
  version: IpVersion;
  /** The lowest address of the range (the host bits are zero). */
  address: bigint;
  prefix: number;
}

/** Why a text is not a usable CIDR, and for a range not written with its lowest address, that one. */
export interface CidrProblem {
  /** `not-a-cidr`: no range can be read; `not-lowest`: a range, not written with its lowest address. */
  kind: 'not-a-cidr' | 'not-lowest';
  /** The sentence: the text, quoted, and `reason`. */
  problem: string;
  /** The sentence without the text it quotes (a file's content is never echoed): `has no prefix length...`. */
  reason: string;
  /** The same range written with its lowest address (`10.1.0.0/16` for `10.1.2.3/16`). */
  suggestion?: string;
  /** Whether `reason` already says to write `suggestion`. */
  writesSuggestion?: boolean;
}

/** A problem of the text `shown` (quoted): the sentence and its reason apart. */
function cidrProblem(
  shown: string,
  kind: CidrProblem['kind'],
  reason: string,
  more: Pick<CidrProblem, 'suggestion' | 'writesSuggestion'> = {},
): CidrProblem {
  return { kind, problem: `${shown} ${reason}`, reason, ...more };
}

const BITS: Record<IpVersion, number> = { 4: 32, 6: 128 };

/** The address `text` names, as a number; undefined when it is not an IPv4 or IPv6 address. */
export function parseAddress(text: string): { version: IpVersion; value: bigint } | undefined {
  return readAddress(text);
}

/**
 * The prefix length `text` ends with from `from`: 0, or one to three digits without a leading zero;
 * -1 for any other text.
 */
function prefixOf(text: string, from: number): number {
  const length = text.length - from;
  if (length <= 0 || length > 3 || (length > 1 && text.charCodeAt(from) === 48)) return -1;
  let value = 0;
  for (let i = from; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * `text` as a range, or why it is not one: not `ADDRESS/PREFIX`, a prefix out of range, or an address
 * that is not the lowest of its range (then with the suggestion the service makes).
 */
export function parseCidr(text: string): Cidr | CidrProblem {
  const slash = text.indexOf('/');
  const address = slash < 0 ? undefined : parseAddress(text.slice(0, slash));
  const prefix = slash < 0 ? -1 : prefixOf(text, slash + 1);
  if (address && prefix >= 0 && prefix <= BITS[address.version]) {
    const lowest = address.value & networkMask(address.version, prefix);
    if (lowest === address.value) return { version: address.version, address: lowest, prefix };
  }
  return cidrProblemOf(text, slash, address);
}

/** Why `text` is not a range written with its lowest address (`slash`: where its `/` is, or -1). */
function cidrProblemOf(text: string, slash: number, address: ReturnType<typeof parseAddress>): CidrProblem {
  const shown = JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}...` : text);
  if (slash < 0) {
    const single = parseAddress(text);
    return single
      ? cidrProblem(
          shown,
          'not-a-cidr',
          `has no prefix length; a single address is /${BITS[single.version]}`,
          {
            suggestion: `${formatAddress(single.version, single.value)}/${BITS[single.version]}`,
          },
        )
      : cidrProblem(shown, 'not-a-cidr', 'is not a CIDR range such as 203.0.113.0/24 or 2001:db8::/32');
  }
  if (!address) {
    return cidrProblem(
      shown,
      'not-a-cidr',
      'is not a CIDR range: the part before "/" is not an IPv4 or IPv6 address',
    );
  }
  const bits = BITS[address.version];
  const prefix = prefixOf(text, slash + 1);
  if (prefix < 0 || prefix > bits) {
    return cidrProblem(
      shown,
      'not-a-cidr',
      `is not a CIDR range: the prefix length must be a number from 0 to ${bits}`,
    );
  }
  const lowest = address.value & networkMask(address.version, prefix);
  const suggestion = formatCidr({ version: address.version, address: lowest, prefix });
  return cidrProblem(shown, 'not-lowest', `is not the lowest address of its range; write ${suggestion}`, {
    suggestion,
    writesSuggestion: true,
  });
}

/**
 * An IPv4 range written as `parseCidr` accepts it (dotted decimal without leading zeros, a prefix of 0
 * to 32, the lowest address of the range), read without bigints into one number, `address * 64 + host
 * bits` (exact: under 2^38): reach reads thousands of rules, most of them IPv4. -1 for any other text,
 * which `parseCidr` then reads or explains: never a different answer from it.
 */
export function ipv4CidrKey(text: string): number {
  // Summed in the key's own units (the first octet times 2^30), so that from a first octet of 2 up the
  // sum leaves the small-integer range at once: compiled code never meets an overflow it did not expect.
  let key = 0;
  let at = 0;
  for (let octet = 0; octet < 4; octet++) {
    const start = at;
    let value = 0;
    while (at < text.length && at - start < 4) {
      const digit = text.charCodeAt(at) - 48;
      if (digit < 0 || digit > 9) break;
      value = value * 10 + digit;
      at++;
    }
    const length = at - start;
    if (length === 0 || length > 3 || value > 255 || (length > 1 && text.charCodeAt(start) === 48)) return -1;
    if (text.charCodeAt(at) !== (octet < 3 ? 46 : 47)) return -1;
    key += value * (KEY_UNITS[octet] as number);
    at++;
  }
  // A prefix of one or two digits, no leading zero, up to 32.
  const tens = text.charCodeAt(at) - 48;
  const ones = text.charCodeAt(at + 1) - 48;
  const two = text.length === at + 2 && tens > 0 && tens <= 3 && ones >= 0 && ones <= 9;
  if (!two && !(text.length === at + 1 && tens >= 0 && tens <= 9)) return -1;
  const hostBits = 32 - (two ? tens * 10 + ones : tens);
  if (hostBits < 0 || key % (64 * 2 ** hostBits) !== 0) return -1;
  return key + hostBits;
}

const KEY_UNITS = [64 * 2 ** 24, 64 * 2 ** 16, 64 * 2 ** 8, 64];

const BLOCK_GROUPS = new Uint16Array(8);
/** 2^bits as bigints, per number of host bits, made on first use. */
const V6_SIZES: bigint[] = [];

/**
 * An IPv6 range written as `parseCidr` accepts it, as its first address and the address after its
 * last: its host bits checked on the groups, numbers, so that only a usable range makes bigints (a
 * few). Undefined for any other text, which `parseCidr` then reads or explains: never a different
 * answer from it.
 */
export function ipv6CidrBlock(text: string): readonly [bigint, bigint] | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const prefix = prefixOf(text, slash + 1);
  if (prefix < 0 || prefix > 128 || !readIpv6Groups(text, slash, BLOCK_GROUPS)) return undefined;
  const whole = prefix >>> 4;
  const partial = prefix & 15;
  if (partial !== 0 && ((BLOCK_GROUPS[whole] as number) & (0xffff >>> partial)) !== 0) return undefined;
  for (let i = partial !== 0 ? whole + 1 : whole; i < 8; i++) if (BLOCK_GROUPS[i] !== 0) return undefined;
  const first = groupsValue(BLOCK_GROUPS);
  const hostBits = 128 - prefix;
  let size = V6_SIZES[hostBits];
  if (size === undefined) {
    size = 1n << BigInt(hostBits);
    V6_SIZES[hostBits] = size;
  }
  return [first, first + size];
}

export function isCidrProblem(parsed: Cidr | CidrProblem): parsed is CidrProblem {
  return 'problem' in parsed;
}

/** The canonical text of a range; two spellings of one range have the same. */
export function formatCidr(cidr: Cidr): string {
  return `${formatAddress(cidr.version, cidr.address)}/${cidr.prefix}`;
}

/** The canonical text of `text`'s range, or undefined when it is not a usable CIDR. */
export function canonicalCidr(text: string): string | undefined {
  // An IPv4 range `ipv4CidrKey` reads is written canonically already: no bigint, no new text.
  if (ipv4CidrKey(text) >= 0) return text;
  const parsed = parseCidr(text);
  return isCidrProblem(parsed) ? undefined : formatCidr(parsed);
}

/** Whether `address` (a parsed address or its text) is in the range. Other IP versions never are. */
export function cidrContains(cidr: Cidr, address: string | { version: IpVersion; value: bigint }): boolean {
  const parsed = typeof address === 'string' ? parseAddress(address) : address;
  if (!parsed || parsed.version !== cidr.version) return false;
  return (parsed.value & networkMask(cidr.version, cidr.prefix)) === cidr.address;
}

/** The canonical text of an address: two spellings of one address have the same. */
export function formatAddress(version: IpVersion, value: bigint): string {
  if (version === 4) {
    const v = Number(value);
    return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
  }
  // Eight 16-bit groups, read from four 32-bit numbers (a reach plan writes thousands of these).
  const groups: number[] = [];
  for (let shift = 96n; shift >= 0n; shift -= 32n) {
    const word = Number((value >> shift) & 0xffffffffn);
    groups.push(word >>> 16, word & 0xffff);
  }
  // RFC 5952 §5: an IPv4-mapped address ends in the IPv4 address it maps, dotted (::ffff:10.0.0.0).
  if (isIpv4Mapped(groups)) {
    const high = groups[6] as number;
    const low = groups[7] as number;
    return `::ffff:${high >>> 8}.${high & 255}.${low >>> 8}.${low & 255}`;
  }
  // The longest run of two or more zero groups (the first on a tie) becomes "::".
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    let end = i;
    while (end < 8 && groups[end] === 0) end++;
    if (end - i > bestLength) {
      bestStart = i;
      bestLength = end - i;
    }
    i = end === i ? i + 1 : end;
  }
  const hex = (from: number, to: number) => {
    let text = '';
    for (let i = from; i < to; i++) text += (i > from ? ':' : '') + (groups[i] as number).toString(16);
    return text;
  };
  if (bestStart < 0) return hex(0, 8);
  return `${hex(0, bestStart)}::${hex(bestStart + bestLength, 8)}`;
}

/** Whether eight groups are an IPv4-mapped address: five zero groups, then ffff (RFC 4291 §2.5.5.2). */
function isIpv4Mapped(groups: readonly number[]): boolean {
  // The ffff group first: almost no other address has it, so the check costs one comparison.
  return (
    groups[5] === 0xffff &&
    groups[0] === 0 &&
    groups[1] === 0 &&
    groups[2] === 0 &&
    groups[3] === 0 &&
    groups[4] === 0
  );
}

/** The masks of every prefix length, per version, made on first use (a bigint each). */
const MASKS: Record<IpVersion, bigint[]> = { 4: [], 6: [] };

function networkMask(version: IpVersion, prefix: number): bigint {
  const masks = MASKS[version];
  let mask = masks[prefix];
  if (mask === undefined) {
    const bits = BigInt(BITS[version]);
    const all = (1n << bits) - 1n;
    mask = (all << (bits - BigInt(prefix))) & all;
    masks[prefix] = mask;
  }
  return mask;
}

/**
 * The CIDRs of a file of them (`allow_file`, `always_let_in_file`): one per line, blank lines and
 * everything after `#` ignored, CRLF accepted; each with its 1-based line number, not yet parsed.
 */
export function cidrLines(text: string): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  text.split('\n').forEach((raw, n) => {
    // A comment runs to the line's end, past the CR of a CRLF file (where a regex `.` would stop).
    const hash = raw.indexOf('#');
    const line = (hash === -1 ? raw : raw.slice(0, hash)).trim();
    if (line !== '') found.push({ line: n + 1, text: line });
  });
  return found;
}

/**
 * Why line `line` of a file of CIDRs (`label`: `file "cidrs/ci.txt"`) is not one, never quoting it (a
 * file's content is never echoed): the reason an inline CIDR would get, and what would be valid.
 */
export function cidrLineProblem(label: string, line: number, parsed: CidrProblem): string {
  const write = parsed.suggestion && !parsed.writesSuggestion ? `; write ${parsed.suggestion}` : '';
  const format = parsed.suggestion ? '' : ' (one CIDR per line, # comments)';
  return `${label} line ${line} ${parsed.reason}${write}${format}`;
}
