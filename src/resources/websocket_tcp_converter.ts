// The websocket TCP converter module of an HTTPS edge route
// (shared/SPEC.md "HTTPS edge route websocket TCP converter module").
import type { DesiredWebsocketTcpConverter } from '../config/model.js';
import type { ModuleDescriptor } from './types.js';

export const websocketTcpConverter: ModuleDescriptor<DesiredWebsocketTcpConverter> = {
  kind: 'websocket_tcp_converter',
  desired: (state) => state.websocket_tcp_converters,
  address: (d) => `https_edges.${d.edge_id}.routes.${d.route_id}.websocket_tcp_converter`,
  key: (d) => `${d.edge_id}.${d.route_id}`,
  id: (d) => d.route_id,
  path: (d) =>
    `/edges/https/${encodeURIComponent(d.edge_id)}/routes/${encodeURIComponent(d.route_id)}/websocket_tcp_converter`,
  fields: [{ name: 'enabled', immutable: false, request: (v) => ['enabled', v] }],
  normalizeLive: (live) => ({ enabled: live['enabled'] !== false }),
  normalizeDesired: (d) => ({ enabled: d.enabled }),
  putBody: (d) => ({ enabled: d.enabled }),
};
