// Routes of an HTTPS edge, which shared/SPEC.md only references (DESIGN §7): nested in their edge's
// path, with a match type and a match.
import type { Collection } from '../collections.js';

export const httpsEdgeRoutes: Collection = {
  kind: 'https_edge_route',
  noun: 'HTTPS edge route',
  listKey: 'routes',
  route: '/edges/https/:edge_id/routes',
  parent: { kind: 'https_edge', noun: 'HTTPS edge', param: 'edge_id' },
  createSchema: 'https_edge_route.create',
  create: (_ctx, body) => ({ fields: { match_type: body.match_type, match: body.match } }),
  seed: { within: 'https_edges', field: 'routes' },
};
