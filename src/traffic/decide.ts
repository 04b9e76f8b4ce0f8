// What decides whether one address gets through a scope (`accord reach ADDRESS`): the narrowest deny of
// its restriction's or module's policies, else the narrowest allow; an endpoint's, by
// src/traffic/endpoint-decide.ts.
import { parseAddress } from '../net/cidr.js';
import { AddressSet } from '../net/cidr-set.js';
import { isEdgeScope } from '../resources/scope.js';
import { decideEndpoint } from './endpoint-decide.js';
import { isEndpointScope } from './endpoint-scopes.js';
import type { Decision, TrafficPicture } from './picture.js';

export type { Decision } from './picture.js';

/**
 * Whether `address` gets through `scope` in `picture`, and the rule (or its absence) that decides: a
 * matching deny wins over any allow (the most specific deny is named); else the most specific allow.
 */
export function decide(picture: TrafficPicture, scope: string, address: string): Decision {
  const parsed = parseAddress(address);
  if (!parsed) throw new Error(`${address} is not an IPv4 or IPv6 address`);
  if (isEndpointScope(scope))
    return decideEndpoint(picture, scope, address, decide(picture, 'endpoints', address));
  const binding = picture.bindings.get(scope);
  if (!binding) return { let: true, by: 'no restriction' };
  if (!binding.enforced) return { let: true, by: isEdgeScope(scope) ? 'disabled' : 'warn-only' };
  const matching = binding.policies
    .flatMap((p) => picture.rules.get(p) ?? [])
    .filter((r) => AddressSet.of([r.cidr]).contains(parsed))
    .sort((a, b) => prefixOf(b.cidr) - prefixOf(a.cidr));
  const deny = matching.find((r) => r.action === 'deny');
  if (deny) return { let: false, by: 'deny', rule: deny };
  const allow = matching.find((r) => r.action === 'allow');
  return allow ? { let: true, by: 'allow', rule: allow } : { let: false, by: 'no allow matches' };
}

const prefixOf = (cidr: string) => Number(cidr.slice(cidr.indexOf('/') + 1));
