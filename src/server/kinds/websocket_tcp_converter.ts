// The websocket TCP converter module of an HTTPS edge route (shared/SPEC.md "HTTPS edge route
// websocket TCP converter module"), also carried inline by the route object (`websocket_tcp_converter`),
// as the OpenAPI description has it.
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
  keyOf: (owner) => `websocket_tcp_converter:${owner}`,
  inline: { kind: 'https_edge_route', field: 'websocket_tcp_converter' },
  build: (_ctx, body) => ({ enabled: body.enabled ?? true }),
};
