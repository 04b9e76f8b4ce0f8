// HTTPS edges, which shared/SPEC.md only references (DESIGN §7): description, metadata and hostports.
// Deleting one deletes its routes and their modules.
import type { Collection } from '../collections.js';
import { hostports } from './tcp_edge.js';

export const httpsEdges: Collection = {
  kind: 'https_edge',
  noun: 'HTTPS edge',
  listKey: 'https_edges',
  route: '/edges/https',
  createSchema: 'https_edge.create',
  updateSchema: 'https_edge.update',
  updatable: ['hostports'],
  create: (_ctx, body) => ({ fields: hostports(body) }),
  seed: { section: 'https_edges' },
};
