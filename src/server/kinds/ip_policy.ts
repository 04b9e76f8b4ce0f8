// IP policies (shared/SPEC-ip-policies.md "IP policy"): description and metadata, at most the account's
// limit of them. A policy that an IP restriction or an endpoint's traffic policy names is not deleted
// (1420, naming them); any other reference (a TCP edge's module) does not block the delete and then
// counts as a policy with no rules. Its rules go with it (they are stored under it).
import { count } from '../../plural.js';
import { type Collection, refsTo, type ServiceContext } from '../collections.js';
import type { ErrorCode } from '../errors.js';
import { ServiceError } from '../errors.js';
import { endpointsNaming } from '../traffic-policy.js';

export const ipPolicies: Collection = {
  kind: 'ip_policy',
  noun: 'IP policy',
  listKey: 'ip_policies',
  route: '/ip_policies',
  createSchema: 'ip_policy.create',
  updateSchema: 'ip_policy.update',
  create: (ctx) => {
    const limit = ctx.limits.policies;
    if (ctx.store.all('ip_policy').length >= limit) {
      throw new ServiceError(
        'ERR_NGROK_1410',
        `the account already has ${count(limit, 'IP policy', 'IP policies')}, its limit; delete one it no longer needs, or put ` +
          'these rules in a policy it has',
      );
    }
    return { fields: {} };
  },
  beforeDelete: (ctx, id) => {
    const naming = restrictionsNaming(ctx, id);
    if (naming.length === 0) return checkNoEndpointNames(ctx, id);
    const listed = naming.map((r) => `${r.id} (${r.type})`).join(', ');
    throw new ServiceError(
      'ERR_NGROK_1420',
      `IP policy ${id} is used by ${naming.length === 1 ? 'the IP restriction' : 'the IP restrictions'} ${listed}; ` +
        'remove it from their ip_policies (or delete them) before deleting it',
    );
  },
  seed: { section: 'ip_policies' },
};

/**
 * A policy that an endpoint's traffic policy names is not deleted either (the production service does
 * not say; this keeps every `restrict-ips` reference resolvable), naming the endpoints.
 */
function checkNoEndpointNames(ctx: ServiceContext, id: string): void {
  const naming = endpointsNaming(ctx, id);
  if (naming.length === 0) return;
  const listed = naming.map((e) => `${e.id} (${e.url})`).join(', ');
  throw new ServiceError(
    'ERR_NGROK_1420',
    `IP policy ${id} is named by the traffic policy of ${naming.length === 1 ? 'the endpoint' : 'the endpoints'} ` +
      `${listed}; remove it from their restrict-ips ip_policies (PATCH their traffic_policy) or delete them ` +
      'before deleting it',
  );
}

/** The IP restrictions whose `ip_policies` name the policy. */
export function restrictionsNaming(ctx: ServiceContext, policyId: string): { id: string; type: string }[] {
  const naming: { id: string; type: string }[] = [];
  for (const json of ctx.store.all('ip_restriction')) {
    const r = JSON.parse(json) as { id: string; type: string; ip_policies: { id: string }[] };
    if (r.ip_policies.some((p) => p.id === policyId)) naming.push({ id: r.id, type: r.type });
  }
  return naming.sort((a, b) => a.id.localeCompare(b.id));
}

/** Refs `{id, uri}` to IP policies, after checking that each exists (400 with `code` otherwise). */
export function ipPolicyRefs(
  ctx: ServiceContext,
  ids: string[],
  code?: ErrorCode,
): { id: string; uri: string }[] {
  return refsTo(ctx, ipPolicies, ids, code);
}
