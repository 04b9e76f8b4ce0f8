// IPv4 and IPv6 addresses read by hand, character by character, accepting exactly what node:net's
// isIPv4 and isIPv6 accept, less zone IDs (`%eth0`): IPv4 as four decimal octets without leading
// zeros; IPv6 as eight groups of one to four hex digits, or fewer around one `::` that stands for at
// least one zero group, the last two groups possibly written as an IPv4 address. Reach reads
// thousands of CIDRs, a fifth of them IPv6: node:net's pattern is a long regular expression whose
// compilation and backtracking cost more than the whole reading here, and this takes no bigint
// until the value is known.

export type IpVersion = 4 | 6;

/** An address as a number: IPv4 in 32 bits, IPv6 in 128. */
export interface Address {
  version: IpVersion;
  value: bigint;
}

/**
 * The IPv4 address `text[from, to)` as a number below 2^32; -1 when it is not four octets of 0 to 255
 * written without leading zeros, separated by dots.
 */
export function readIpv4(text: string, from: number, to: number): number {
  let value = 0;
  let at = from;
  for (let octet = 0; octet < 4; octet++) {
    if (octet > 0) {
      if (at >= to || text.charCodeAt(at) !== 46) return -1;
      at++;
    }
    const start = at;
    let part = 0;
    while (at < to && at - start < 4) {
      const digit = text.charCodeAt(at) - 48;
      if (digit < 0 || digit > 9) break;
      part = part * 10 + digit;
      at++;
    }
    const length = at - start;
    if (length === 0 || length > 3 || part > 255 || (length > 1 && text.charCodeAt(start) === 48)) return -1;
    value = value * 256 + part;
  }
  return at === to ? value : -1;
}

/** Groups read so far by `readIpv6Groups`, before the zero groups of a `::` are put in. */
const READ_GROUPS = new Uint16Array(8);

/**
 * The IPv6 address `text[0, end)` as its eight 16-bit groups, written into `groups`; false (and
 * `groups` left in any state) when it is not one, or carries a zone ID. The groups before `::` fill
 * from the left, those after it are moved to the right at the end.
 */
export function readIpv6Groups(text: string, end: number, groups: Uint16Array): boolean {
  let count = 0;
  let gap = -1;
  let at = 0;
  if (end >= 2 && text.charCodeAt(0) === 58 && text.charCodeAt(1) === 58) {
    gap = 0;
    at = 2;
  }
  while (at < end) {
    if (count === 8) return false;
    const start = at;
    let group = 0;
    // Hex digits, at most five read (a fifth makes the group too long); the check of each is written
    // out here: this loop runs for every character of thousands of rules, mostly before it is compiled.
    for (; at < end && at - start < 5; at++) {
      const code = text.charCodeAt(at);
      const lower = code | 32;
      if (code >= 48 && code <= 57) group = group * 16 + (code - 48);
      else if (lower >= 97 && lower <= 102) group = group * 16 + (lower - 87);
      else break;
    }
    if (at < end && text.charCodeAt(at) === 46) {
      // The last 32 bits as an IPv4 address (the count is checked with the others below).
      const v4 = readIpv4(text, start, end);
      if (v4 < 0 || count > 6) return false;
      READ_GROUPS[count++] = v4 >>> 16;
      READ_GROUPS[count++] = v4 & 0xffff;
      break;
    }
    if (at === start || at - start > 4) return false;
    READ_GROUPS[count++] = group;
    if (at === end) break;
    if (text.charCodeAt(at) !== 58) return false;
    at++;
    if (at < end && text.charCodeAt(at) === 58) {
      if (gap >= 0) return false;
      gap = count;
      at++;
    } else if (at === end) return false;
  }
  // The loop ends at the text's end after a group, an IPv4 address or a `::`, or with nothing read.
  if (gap < 0 ? count !== 8 : count > 7) return false;
  const tail = gap < 0 ? 0 : count - gap;
  for (let i = 0; i < count - tail; i++) groups[i] = READ_GROUPS[i] as number;
  for (let i = count - tail; i < 8 - tail; i++) groups[i] = 0;
  for (let i = 0; i < tail; i++) groups[8 - tail + i] = READ_GROUPS[count - tail + i] as number;
  return true;
}

/**
 * Eight groups as one number: three parts of at most 43 bits each (exact in a double), so that an
 * address takes at most five bigint steps, fewer when a part is zero (a range's low bits mostly are).
 */
export function groupsValue(g: Uint16Array): bigint {
  const g2 = g[2] as number;
  const g5 = g[5] as number;
  const high = (g[0] as number) * 2 ** 27 + (g[1] as number) * 2 ** 11 + (g2 >>> 5);
  const middle = (g2 & 31) * 2 ** 38 + (g[3] as number) * 2 ** 22 + (g[4] as number) * 2 ** 6 + (g5 >>> 10);
  const low = (g5 & 1023) * 2 ** 32 + (g[6] as number) * 2 ** 16 + (g[7] as number);
  let value = high === 0 ? 0n : BigInt(high) << 85n;
  if (middle !== 0) value |= BigInt(middle) << 42n;
  if (low !== 0) value |= BigInt(low);
  return value;
}

const GROUPS = new Uint16Array(8);

/** The IPv6 address `text` as a number below 2^128; undefined when it is not one (or carries a zone). */
export function readIpv6(text: string): bigint | undefined {
  return readIpv6Groups(text, text.length, GROUPS) ? groupsValue(GROUPS) : undefined;
}

/** The address `text` names; undefined when it is not an IPv4 or IPv6 address (a zone ID is not). */
export function readAddress(text: string): Address | undefined {
  const v4 = readIpv4(text, 0, text.length);
  if (v4 >= 0) return { version: 4, value: BigInt(v4) };
  const v6 = readIpv6(text);
  return v6 === undefined ? undefined : { version: 6, value: v6 };
}
