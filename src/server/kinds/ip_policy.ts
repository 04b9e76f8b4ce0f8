// IP policies (shared/SPEC-ip-policies.md "IP policy"): description and metadata. A policy still
// referenced may be deleted; its references then count as a policy with no rules, and its rules go
// with it (they are stored under it).
import { type Collection, refsTo, type ServiceContext } from '../collections.js';

export const ipPolicies: Collection = {
  kind: 'ip_policy',
  noun: 'IP policy',
  listKey: 'ip_policies',
  route: '/ip_policies',
  createSchema: 'ip_policy.create',
  updateSchema: 'ip_policy.update',
  create: () => ({ fields: {} }),
  seed: { section: 'ip_policies' },
};

/** Refs `{id, uri}` to IP policies, after checking that each exists. */
export function ipPolicyRefs(ctx: ServiceContext, ids: string[]): { id: string; uri: string }[] {
  return refsTo(ctx, ipPolicies, ids);
}
