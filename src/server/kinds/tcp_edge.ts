// TCP edges, which shared/SPEC.md only references (DESIGN §7): description, metadata and hostports,
// and their IP restriction module inline (null until it is set, on create, in a PATCH or by its PUT;
// shared/SPEC-ip-policies.md). Deleting one deletes its module.
import type { Collection, JsonObject } from '../collections.js';
import { tcpEdgeIpRestriction } from './tcp_edge_ip_restriction.js';

export const hostports = (body: JsonObject) => ({
  hostports: (body.hostports as string[] | undefined) ?? [],
});

export const tcpEdges: Collection = {
  kind: 'tcp_edge',
  noun: 'TCP edge',
  listKey: 'tcp_edges',
  route: '/edges/tcp',
  createSchema: 'tcp_edge.create',
  updateSchema: 'tcp_edge.update',
  updatable: ['hostports'],
  modules: { ip_restriction: tcpEdgeIpRestriction },
  create: (_ctx, body) => ({ fields: hostports(body) }),
  seed: { section: 'tcp_edges' },
};
