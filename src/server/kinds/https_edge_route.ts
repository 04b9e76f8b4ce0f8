// Routes of an HTTPS edge, which shared/SPEC.md only references (DESIGN §7): nested in their edge's
// path, with a match type and a match, and their websocket TCP converter module inline (null until it
// is set, on create, in a PATCH or by its PUT).
import type { Collection } from '../collections.js';
import { websocketTcpConverter } from './websocket_tcp_converter.js';

export const httpsEdgeRoutes: Collection = {
  kind: 'https_edge_route',
  noun: 'HTTPS edge route',
  listKey: 'routes',
  route: '/edges/https/:edge_id/routes',
  parent: { kind: 'https_edge', noun: 'HTTPS edge', param: 'edge_id' },
  createSchema: 'https_edge_route.create',
  updateSchema: 'https_edge_route.update',
  updatable: ['match_type', 'match'],
  modules: { websocket_tcp_converter: websocketTcpConverter },
  create: (_ctx, body) => ({ fields: { match_type: body.match_type, match: body.match } }),
  seed: { within: 'https_edges', field: 'routes' },
};
