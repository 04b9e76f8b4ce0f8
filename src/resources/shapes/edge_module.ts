// Where an edge module is (shared/SPEC.md "TCP edge IP restriction module", "HTTPS edge route
// websocket TCP converter module"): a module hangs on an edge, or on a route of an edge, under the
// edge's section of the file and its path in the API. A module kind declares its place and gets its
// addresses, identities and paths from here.
import type { ModuleDescriptorOf, ModuleEntry, ModuleIdentity } from '../types.js';

/** What places a kind of module. */
export interface EdgeModulePlace {
  /** The edges' section of the file: `tcp_edges`. */
  section: string;
  /** The edges' path in the API: `/edges/tcp`. */
  edgesPath: string;
  /** How people call the edges, and the prefix of their IDs. */
  edge: { noun: string; idPrefix: string };
  /** The module's name, in the file and in the API: `ip_restriction`. */
  module: string;
  /** The module hangs on each route of an edge (listed at `<edgesPath>/<edge>/routes`). */
  onRoute?: boolean;
}

type Placed = 'section' | 'edge' | 'address' | 'identify' | 'key' | 'id' | 'path';

/** The members of a module descriptor that follow from its place. */
export function edgeModulePlace(
  place: EdgeModulePlace,
): Pick<ModuleDescriptorOf<ModuleEntry, string>, Placed> {
  const { section, edgesPath, module, onRoute = false } = place;
  const route = (m: ModuleIdentity) => m.route_id ?? '';
  const edgePath = (m: ModuleIdentity) => `${edgesPath}/${encodeURIComponent(m.edge_id)}`;
  const pattern = new RegExp(
    `^${literal(section)}\\.([^.#]+)${onRoute ? '\\.routes\\.([^.#]+)' : ''}\\.${literal(module)}$`,
  );
  return {
    section,
    edge: onRoute
      ? { ...place.edge, routesPath: (edgeId) => `${edgesPath}/${encodeURIComponent(edgeId)}/routes` }
      : place.edge,
    address: (m) => `${section}.${m.edge_id}${onRoute ? `.routes.${route(m)}` : ''}.${module}`,
    identify: (address) => {
      const m = pattern.exec(address);
      if (!m) return undefined;
      return onRoute ? { edge_id: m[1]!, route_id: m[2]! } : { edge_id: m[1]! };
    },
    key: (m) => (onRoute ? `${m.edge_id}.${route(m)}` : m.edge_id),
    id: (m) => (onRoute ? route(m) : m.edge_id),
    path: (m) =>
      onRoute
        ? `${edgePath(m)}/routes/${encodeURIComponent(route(m))}/${module}`
        : `${edgePath(m)}/${module}`,
  };
}

function literal(name: string): string {
  return name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
