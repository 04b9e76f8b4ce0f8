// The IP restriction module of a TCP edge (shared/SPEC.md "TCP edge IP restriction module").

import { ID_PREFIXES } from '../ids.js';
import { plannedIds } from './known-after-apply.js';
import { mappingEntries, readReferences } from './reading.js';
import { edgeScope } from './scope.js';
import { edgeModulePlace } from './shapes/edge_module.js';
import type { ModuleDescriptorOf, ModuleEntry, ModuleIdentity } from './types.js';
import { list, refIds } from './values.js';

export interface DesiredTcpEdgeIpRestriction extends ModuleEntry {
  kind: 'tcp_edge_ip_restriction';
  /** Default true. */
  enabled: boolean;
  /** Keys of ip_policies or ipp_ IDs, as the file writes them; sorted, unique. */
  ip_policy_ids: string[];
}

export const tcpEdgeIpRestriction: ModuleDescriptorOf<
  DesiredTcpEdgeIpRestriction,
  'tcp_edge_ip_restrictions'
> = {
  kind: 'tcp_edge_ip_restriction',
  list: 'tcp_edge_ip_restrictions',
  nouns: { one: 'TCP edge IP restriction module', many: 'TCP edge IP restriction modules' },
  read: (file, reader) =>
    mappingEntries(file.tcp_edges).map(([edgeId, e]): DesiredTcpEdgeIpRestriction => {
      const module = e.ip_restriction;
      const loc = reader.loc(['tcp_edges', edgeId, 'ip_restriction']);
      if (module === 'absent' || typeof module !== 'object' || module === null) {
        return {
          kind: 'tcp_edge_ip_restriction',
          edge_id: edgeId,
          state: 'absent',
          enabled: true,
          ip_policy_ids: [],
          loc,
        };
      }
      return {
        kind: 'tcp_edge_ip_restriction',
        edge_id: edgeId,
        state: 'present',
        enabled: module.enabled ?? true,
        ip_policy_ids: readReferences(
          reader,
          ['tcp_edges', edgeId, 'ip_restriction', 'ip_policies'],
          'ip_policies',
          module.ip_policies,
        ),
        loc,
      };
    }),
  ...edgeModulePlace({
    section: 'tcp_edges',
    edgesPath: '/edges/tcp',
    edge: { noun: 'TCP edge', idPrefix: ID_PREFIXES.tcp_edge },
    module: 'ip_restriction',
  }),
  fields: [
    { name: 'enabled', immutable: false, request: (v) => ['enabled', v] },
    {
      name: 'ip_policies',
      immutable: false,
      request: (v) => ['ip_policy_ids', v],
      references: 'ip_policies',
    },
  ],
  normalizeLive: (live) => ({ enabled: live['enabled'] !== false, ip_policies: refIds(live['ip_policies']) }),
  normalizeDesired: (d) => ({ enabled: d.enabled, ip_policies: [...d.ip_policy_ids] }),
  putBody: (v) => ({ enabled: v['enabled'], ip_policy_ids: list(v['ip_policies']) }),
  traffic: {
    role: 'restriction',
    field: 'ip_policies',
    maxPolicies: 100,
    keepsPolicies: false,
    restricts: (v, edgeId) => ({
      scope: edgeScope(edgeId),
      name: `TCP edge ${edgeId}`,
      inForce: v['enabled'] !== false,
      policies: plannedIds(v['ip_policies']),
    }),
  },
  // GET /edges/tcp shows each edge's module inline: how a plan sees the modules the files do not name.
  listing: { path: '/edges/tcp', listKey: 'tcp_edges', field: 'ip_restriction' },
  exportModules: (_edges, found) => {
    const modules: { identity: ModuleIdentity; value: Record<string, unknown> }[] = [];
    const notes: string[] = [];
    for (const { identity, live } of found) {
      const where = `tcp_edges.${identity.edge_id}`;
      if (!live) {
        notes.push(`${where}: no IP restriction module is configured (or no such edge); left out`);
        continue;
      }
      const policies = refIds(live['ip_policies']);
      if (policies.length === 0) {
        notes.push(
          `${where}: the IP restriction module names no IP policies, which a file cannot express; left out`,
        );
        continue;
      }
      modules.push({ identity, value: { enabled: live['enabled'] !== false, ip_policies: policies } });
    }
    return { modules, notes };
  },
};
