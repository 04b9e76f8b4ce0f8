// IP policy rules (shared/SPEC-ip-policies.md "IP policy rule"): a CIDR written with the lowest address
// of its range, at most once per policy whatever the action; `action` and the policy are fixed at
// creation (the update schema does not take them). The list holds every rule of the account.
import { type Cidr, canonicalCidr, formatCidr, isCidrProblem, parseCidr } from '../../net/cidr.js';
import type { Collection, ServiceContext } from '../collections.js';
import { ServiceError } from '../errors.js';
import { ipPolicyRefs } from './ip_policy.js';

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
    return { fields: { cidr, ip_policy: policy, action: body.action } };
  },
  update: (ctx, current, body, id) => {
    if (body.cidr === undefined) return;
    const cidr = body.cidr as string;
    checkCidrFree(ctx, (current.ip_policy as { id: string }).id, readCidr(cidr), id);
    current.cidr = cidr;
  },
  seed: { within: 'ip_policies', field: 'rules' },
};

function readCidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if (!isCidrProblem(parsed)) return parsed;
  throw new ServiceError(
    parsed.kind === 'not-lowest' ? 'ERR_CIDR_NOT_LOWEST_ADDRESS' : 'ERR_INVALID_CIDR',
    `field "cidr": ${parsed.problem}`,
  );
}

/** One CIDR per policy whatever the action, compared in canonical form; `self` is the rule being written. */
function checkCidrFree(ctx: ServiceContext, policyId: string, cidr: Cidr, self: string): void {
  const canonical = formatCidr(cidr);
  for (const json of ctx.store.children('ip_policy_rule', policyId)) {
    const rule = JSON.parse(json) as { id: string; cidr: string };
    if (rule.id !== self && canonicalCidr(rule.cidr) === canonical) {
      throw new ServiceError(
        'ERR_CIDR_EXISTS',
        `IP Policy Rule with CIDR ${canonical} already exists in IP policy ${policyId} (${rule.id}); ` +
          'a policy holds each CIDR once, whatever the action: change or delete that rule instead',
      );
    }
  }
}
