// IP policy rules (shared/SPEC-ip-policies.md "IP policy rule"): a CIDR with a mask, written with the
// lowest address of its range, at most once per policy whatever the action, at most the account's
// limit per policy; `action` and the policy are fixed at creation (the update schema does not take
// them). The only rule of a policy that the dashboard restriction uses is not deleted (1419). The list
// holds every rule of the account.
import { type Cidr, canonicalCidr, formatCidr } from '../../net/cidr.js';
import { count } from '../../plural.js';
import { readCidr } from '../cidrs.js';
import type { Collection, ServiceContext } from '../collections.js';
import { ServiceError } from '../errors.js';
import { ipPolicyRefs, restrictionsNaming } from './ip_policy.js';

export const ipPolicyRules: Collection = {
  kind: 'ip_policy_rule',
  noun: 'IP policy rule',
  listKey: 'ip_policy_rules',
  route: '/ip_policy_rules',
  owner: { field: 'ip_policy_id', ref: 'ip_policy' },
  createSchema: 'ip_policy_rule.create',
  updateSchema: 'ip_policy_rule.update',
  create: (ctx, body, id) => {
    const policyId = body.ip_policy_id as string;
    const [policy] = ipPolicyRefs(ctx, [policyId]);
    const cidr = body.cidr as string;
    checkCidrFree(ctx, policyId, readCidr(cidr), id);
    const limit = ctx.limits.rulesPerPolicy;
    if (ctx.store.children('ip_policy_rule', policyId).length >= limit) {
      throw new ServiceError(
        'ERR_NGROK_1411',
        `IP policy ${policyId} already has ${count(limit, 'rule')}, the account's limit per policy; delete rules it ` +
          'no longer needs, or put this one in another policy',
      );
    }
    return { fields: { cidr, ip_policy: policy, action: body.action } };
  },
  update: (ctx, current, body, id) => {
    if (body.cidr === undefined) return;
    const cidr = body.cidr as string;
    checkCidrFree(ctx, (current.ip_policy as { id: string }).id, readCidr(cidr), id);
    current.cidr = cidr;
  },
  beforeDelete: (ctx, id) => {
    const policyId = ctx.store.parentOf('ip_policy_rule', id) ?? '';
    if (ctx.store.children('ip_policy_rule', policyId).length !== 1) return;
    const dashboard = restrictionsNaming(ctx, policyId).find((r) => r.type === 'dashboard');
    if (!dashboard) return;
    throw new ServiceError(
      'ERR_NGROK_1419',
      `rule ${id} is the only rule of IP policy ${policyId}, which the dashboard IP restriction ` +
        `${dashboard.id} uses; create the policy's next rule first, or remove the policy from that ` +
        'restriction, before deleting it',
    );
  },
  seed: { within: 'ip_policies', field: 'rules' },
};

/** One CIDR per policy whatever the action, compared in canonical form; `self` is the rule being written. */
function checkCidrFree(ctx: ServiceContext, policyId: string, cidr: Cidr, self: string): void {
  const canonical = formatCidr(cidr);
  for (const json of ctx.store.children('ip_policy_rule', policyId)) {
    const rule = JSON.parse(json) as { id: string; cidr: string };
    if (rule.id !== self && canonicalCidr(rule.cidr) === canonical) {
      throw new ServiceError(
        'ERR_NGROK_1408',
        `IP Policy Rule with CIDR ${canonical} already exists in IP policy ${policyId} (${rule.id}); ` +
          'a policy holds each CIDR once, whatever the action: change or delete that rule instead',
      );
    }
  }
}
