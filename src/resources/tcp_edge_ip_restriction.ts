// The IP restriction module of a TCP edge (shared/SPEC.md "TCP edge IP restriction module").
import type { DesiredTcpEdgeIpRestriction } from '../config/model.js';
import type { ModuleDescriptor } from './types.js';
import { refIds } from './values.js';

export const tcpEdgeIpRestriction: ModuleDescriptor<DesiredTcpEdgeIpRestriction> = {
  kind: 'tcp_edge_ip_restriction',
  desired: (state) => state.tcp_edge_ip_restrictions,
  address: (d) => `tcp_edges.${d.edge_id}.ip_restriction`,
  key: (d) => d.edge_id,
  id: (d) => d.edge_id,
  path: (d) => `/edges/tcp/${encodeURIComponent(d.edge_id)}/ip_restriction`,
  fields: [
    { name: 'enabled', immutable: false, request: (v) => ['enabled', v] },
    { name: 'ip_policies', immutable: false, request: (v) => ['ip_policy_ids', v] },
  ],
  normalizeLive: (live) => ({ enabled: live['enabled'] !== false, ip_policies: refIds(live['ip_policies']) }),
  normalizeDesired: (d) => ({ enabled: d.enabled, ip_policies: [...d.ip_policy_ids] }),
  putBody: (d) => ({ enabled: d.enabled, ip_policy_ids: [...d.ip_policy_ids] }),
};
