// The websocket TCP converter module of an HTTPS edge route (shared/SPEC.md "HTTPS edge route
// websocket TCP converter module").
import { notFound } from '../collections.js';
import type { ModuleKind } from '../modules.js';

export const websocketTcpConverter: ModuleKind = {
  route: '/edges/https/:edge_id/routes/:id/websocket_tcp_converter',
  schema: 'websocket_tcp_converter.replace',
  noun: 'websocket TCP converter module',
  locate: (ctx, { edge_id: edgeId, id }) => {
    if (!ctx.store.get('https_edge', edgeId!)) throw notFound('HTTPS edge', edgeId!);
    if (ctx.store.parentOf('https_edge_route', id!) !== edgeId) throw notFound('HTTPS edge route', id!);
    return { key: `websocket_tcp_converter:${id}`, owner: id! };
  },
  build: (_ctx, body) => ({ enabled: body.enabled ?? true }),
};
