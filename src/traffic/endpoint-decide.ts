// What decides whether one address reaches an endpoint (`accord reach ADDRESS`): the account-wide
// `endpoints` restriction, else the first enforced `restrict-ips` that shuts it out (its narrowest
// matching deny, or no allow matching), else the last one that lets it in. An action that runs only
// sometimes shuts an address out only sometimes: it is then let through only sometimes.

import { cidrContains, parseCidr } from '../net/cidr.js';
import type { PlannedId } from '../resources/known-after-apply.js';
import { actionLabel, type RestrictAction } from './endpoint-policy.js';
import type { Decision, EndpointActionDecision, TrafficPicture } from './picture.js';

export type { EndpointActionDecision };

interface Candidate {
  action: 'allow' | 'deny';
  cidr: string;
  policy?: PlannedId;
}

function candidates(a: RestrictAction, picture: TrafficPicture): Candidate[] {
  return [
    ...a.allow.map((cidr) => ({ action: 'allow' as const, cidr })),
    ...a.deny.map((cidr) => ({ action: 'deny' as const, cidr })),
    ...a.policies.flatMap((policy) =>
      (picture.rules.get(policy) ?? []).map((r) => ({ action: r.action, cidr: r.cidr, policy })),
    ),
  ];
}

/** What one action decides for `address`. */
export function actionDecision(
  a: RestrictAction,
  picture: TrafficPicture,
  address: string,
): EndpointActionDecision {
  const prefix = (c: Candidate) => Number(c.cidr.slice(c.cidr.indexOf('/') + 1));
  const matching = candidates(a, picture)
    .filter((c) => {
      const cidr = parseCidr(c.cidr);
      return !('problem' in cidr) && cidrContains(cidr, address);
    })
    .sort((x, y) => prefix(y) - prefix(x));
  const decisive = matching.find((c) => c.action === 'deny') ?? matching.find((c) => c.action === 'allow');
  const base = { by: 'restrict-ips' as const, where: actionLabel(a), sometimes: !a.always };
  if (!decisive) return { ...base, let: false, verdict: 'no allow matches' };
  const policy = decisive.policy !== undefined ? { policy: decisive.policy } : {};
  return {
    ...base,
    let: decisive.action === 'allow',
    verdict: decisive.action,
    cidr: decisive.cidr,
    ...policy,
  };
}

/** Whether `address` reaches the endpoint `scope` in `picture`, and what decides. */
export function decideEndpoint(
  picture: TrafficPicture,
  scope: string,
  address: string,
  account: Decision,
): Decision {
  const endpoint = picture.endpoints?.get(scope);
  if (!endpoint) return { let: false, by: 'no endpoint' };
  if (!account.let) return { let: false, by: 'endpoints restriction', inner: account };
  let sometimes: EndpointActionDecision | undefined;
  let last: EndpointActionDecision | undefined;
  for (const a of endpoint.actions) {
    if (!a.enforce) continue;
    const d = actionDecision(a, picture, address);
    if (!d.let && !d.sometimes) return d;
    if (!d.let) sometimes ??= d;
    else if (!last || !d.sometimes) last = d;
  }
  if (sometimes) return { ...sometimes, let: true };
  if (last) return last;
  return account.by === 'no restriction' || account.by === 'warn-only'
    ? { let: true, by: 'no restrict-ips' }
    : { let: true, by: 'endpoints restriction', inner: account };
}
