// Sets of addresses in words, for the plan's reach lines and the guards' messages: a CIDR list shortened
// after a few entries with a count of the rest, and the number of addresses with thousands separators.
import type { AddressSet, AddressSetSummary } from '../net/cidr-set.js';

/** How many CIDRs a line shows before it says how many more there are (the JSON has them all). */
export const SHOWN_CIDRS = 3;

const asSummary = (set: AddressSet | AddressSetSummary): AddressSetSummary =>
  'summary' in set ? set.summary() : set;

/** `1,024` for 1024; exact for counts past 2^53. */
export function countText(addresses: string): string {
  return BigInt(addresses).toLocaleString('en-US');
}

/** `10.0.0.0/8, 192.0.2.0/24 and 4 more`; `everyone`; `no address`. */
export function cidrsText(set: AddressSet | AddressSetSummary, shown = SHOWN_CIDRS): string {
  const { everyone, cidrs } = asSummary(set);
  if (everyone) return 'everyone';
  if (cidrs.length === 0) return 'no address';
  if (cidrs.length <= shown) return cidrs.join(', ');
  return `${cidrs.slice(0, shown).join(', ')} and ${cidrs.length - shown} more`;
}

/** `10.0.0.0/8 (16,777,216 addresses)`; `198.51.100.64/26 (64)` with `unit` false. */
export function setText(set: AddressSet | AddressSetSummary, unit = true): string {
  const summary = asSummary(set);
  if (summary.everyone || summary.cidrs.length === 0) return cidrsText(summary);
  const n = countText(summary.addresses);
  const noun = summary.addresses === '1' ? 'address' : 'addresses';
  return `${cidrsText(summary)} (${unit ? `${n} ${noun}` : n})`;
}
