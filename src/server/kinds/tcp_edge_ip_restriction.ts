// The IP restriction module of a TCP edge (shared/SPEC.md "TCP edge IP restriction module"), also
// carried inline by the edge object (`ip_restriction`), as on the production service.
import { notFound } from '../collections.js';
import type { ModuleKind } from '../modules.js';
import { ipPolicyRefs } from './ip_policy.js';

export const tcpEdgeIpRestriction: ModuleKind = {
  route: '/edges/tcp/:id/ip_restriction',
  schema: 'tcp_edge_ip_restriction.replace',
  noun: 'IP restriction module',
  locate: (ctx, { id }) => {
    if (!ctx.store.get('tcp_edge', id!)) throw notFound('TCP edge', id!);
    return { key: `tcp_ip_restriction:${id}`, owner: id! };
  },
  keyOf: (owner) => `tcp_ip_restriction:${owner}`,
  inline: { kind: 'tcp_edge', field: 'ip_restriction' },
  build: (ctx, body) => ({
    enabled: body.enabled ?? true,
    ip_policies: ipPolicyRefs(ctx, body.ip_policy_ids as string[]),
  }),
};
