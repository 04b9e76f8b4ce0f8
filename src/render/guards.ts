// A guard's breach in words (src/traffic/guards.ts finds the breaches, as data).

import { AddressSet } from '../net/cidr-set.js';
import { isEdgeScope } from '../resources/scope.js';
import { isEndpointScope } from '../traffic/endpoint-scopes.js';
import type { GuardBreach } from '../traffic/guards.js';
import { FAMILIES, scopeLabel } from '../traffic/reach.js';
import { cidrsText, countText } from './reach-text.js';

/**
 * A breach as one line: `guards.dashboard (guards.yaml:3): dashboard: only_let_in: 0.0.0.0/1 would be
 * let in (2,147,483,648 addresses)`. `tense` says whether it is the plan's result or the account now.
 */
export function describeBreach(b: GuardBreach, tense: 'would' | 'now'): string {
  const where = `guards.${b.guard} (${b.at.file}:${b.at.line})`;
  const scope = scopeLabel(b.scope);
  if (b.rule === 'enforced') {
    const what = {
      none: 'no restriction',
      'warn-only': 'a warn-only restriction',
      disabled: 'a disabled module',
      enforced: 'an enforced restriction',
      sometimes: 'only a restrict-ips that runs only sometimes',
    }[b.filter ?? 'none'];
    const needed = isEdgeScope(b.scope)
      ? 'an enabled IP restriction module'
      : isEndpointScope(b.scope)
        ? 'an enforced restrict-ips that runs for every connection'
        : 'an enforced restriction';
    return `${where}: ${scope}: enforced: ${tense === 'would' ? 'would have' : 'has'} ${what}, not ${needed}`;
  }
  const verb = b.rule === 'only_let_in' ? 'let in' : 'shut out';
  const be = tense === 'would' ? 'would be' : b.cidrs.length === 1 ? 'is' : 'are';
  const set = AddressSet.of(b.cidrs);
  if (set.isEveryone())
    return `${where}: ${scope}: ${b.rule}: everyone ${tense === 'would' ? 'would be' : 'is'} ${verb}`;
  const noun = b.addresses === '1' ? 'address' : 'addresses';
  return `${where}: ${scope}: ${b.rule}: ${familiesText(set)} ${be} ${verb} (${countText(b.addresses)} ${noun})`;
}

/**
 * A set of addresses as a breach names it, per family: `every IPv6 address` for a whole family, and
 * its CIDRs otherwise (`0.0.0.0/5, 8.0.0.0/7, 11.0.0.0/8 and 5 more, and every IPv6 address`).
 */
function familiesText(set: AddressSet): string {
  const parts = FAMILIES.filter((v) => set.hasAny(v)).map((v) => {
    const part = set.family(v);
    return part.equals(AddressSet.everyone.family(v)) ? `every IPv${v} address` : cidrsText(part.summary());
  });
  return parts.join(', and ');
}
