// IP restrictions (shared/SPEC.md "IP restrictions"): one per type (1802), at least one IP policy
// (1804, in the request schemas: an update that sets them sets at least one), each of which the
// account has (1801).
import type { Collection } from '../collections.js';
import { ServiceError } from '../errors.js';
import { ipPolicyRefs } from './ip_policy.js';

export const ipRestrictions: Collection = {
  kind: 'ip_restriction',
  noun: 'IP restriction',
  listKey: 'ip_restrictions',
  route: '/ip_restrictions',
  createSchema: 'ip_restriction.create',
  updateSchema: 'ip_restriction.update',
  create: (ctx, body) => {
    const type = body.type as string;
    const policies = ipPolicyRefs(ctx, body.ip_policy_ids as string[], 'ERR_NGROK_1801');
    for (const json of ctx.store.all('ip_restriction')) {
      const other = JSON.parse(json) as { id: string; type: string };
      if (other.type === type) {
        throw new ServiceError(
          'ERR_NGROK_1802',
          `the account already has an IP restriction of type "${type}" (${other.id}); only one per type is allowed, update or delete that one`,
        );
      }
    }
    return { fields: { enforced: body.enforced ?? false, type, ip_policies: policies } };
  },
  update: (ctx, current, body) => {
    if (body.enforced !== undefined) current.enforced = body.enforced;
    if (body.ip_policy_ids !== undefined)
      current.ip_policies = ipPolicyRefs(ctx, body.ip_policy_ids as string[], 'ERR_NGROK_1801');
  },
};
