// The websocket TCP converter module of an HTTPS edge route
// (shared/SPEC.md "HTTPS edge route websocket TCP converter module").
import { ID_PREFIXES } from '../ids.js';
import { mappingEntries } from './reading.js';
import { edgeModulePlace } from './shapes/edge_module.js';
import type { ModuleDescriptorOf, ModuleEntry, ModuleIdentity } from './types.js';
import { isRecord } from './values.js';

export interface DesiredWebsocketTcpConverter extends ModuleEntry {
  kind: 'websocket_tcp_converter';
  route_id: string;
  /** Default true. */
  enabled: boolean;
}

export const websocketTcpConverter: ModuleDescriptorOf<
  DesiredWebsocketTcpConverter,
  'websocket_tcp_converters'
> = {
  kind: 'websocket_tcp_converter',
  list: 'websocket_tcp_converters',
  nouns: { one: 'websocket TCP converter module', many: 'websocket TCP converter modules' },
  read: (file, reader) =>
    mappingEntries(file.https_edges).flatMap(([edgeId, e]) =>
      mappingEntries(e.routes).map(([routeId, route]): DesiredWebsocketTcpConverter => {
        const module = route?.websocket_tcp_converter;
        const loc = reader.loc(['https_edges', edgeId, 'routes', routeId, 'websocket_tcp_converter']);
        const present = typeof module === 'object' && module !== null;
        return {
          kind: 'websocket_tcp_converter',
          edge_id: edgeId,
          route_id: routeId,
          state: present ? 'present' : 'absent',
          enabled: present ? (module.enabled ?? true) : true,
          loc,
        };
      }),
    ),
  ...edgeModulePlace({
    section: 'https_edges',
    edgesPath: '/edges/https',
    edge: { noun: 'HTTPS edge', idPrefix: ID_PREFIXES.https_edge },
    module: 'websocket_tcp_converter',
    onRoute: true,
  }),
  fields: [{ name: 'enabled', immutable: false, request: (v) => ['enabled', v] }],
  normalizeLive: (live) => ({ enabled: live['enabled'] !== false }),
  normalizeDesired: (d) => ({ enabled: d.enabled }),
  putBody: (v) => ({ enabled: v['enabled'] }),
  exportModules: (edges, found) => {
    const modules: { identity: ModuleIdentity; value: Record<string, unknown> }[] = [];
    const notes: string[] = [];
    for (const edge of edges) {
      const routes = found.filter((f) => f.identity.edge_id === edge);
      const configured = routes.filter((f) => f.live !== null);
      for (const { identity, live } of configured) {
        modules.push({ identity, value: { enabled: isRecord(live) && live['enabled'] !== false } });
      }
      const left = routes.length - configured.length;
      if (left > 0) {
        notes.push(
          `https_edges.${edge}: ${left} of ${routes.length} routes have no websocket TCP converter module configured; left out`,
        );
      }
      if (routes.length === 0) notes.push(`https_edges.${edge}: the edge has no routes; left out`);
    }
    return { modules, notes };
  },
};
