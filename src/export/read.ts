// Reading what `accord export` writes: one paged list per managed kind (the planner's reader), the
// routes of each HTTPS edge named by --edges, and one GET per edge module. The API cannot list edges,
// so only the edges the user names are read.
import { ApiError } from '../api/errors.js';
import type { DesiredState } from '../config/model.js';
import { AccordError } from '../errors.js';
import { type LiveSource, readLiveState } from '../plan/live.js';
import type { ManagedKind } from '../plan/types.js';
import {
  type DesiredTcpEdgeIpRestriction,
  tcpEdgeIpRestriction,
} from '../resources/tcp_edge_ip_restriction.js';
import { isRecord, type LiveObject, str } from '../resources/values.js';
import {
  type DesiredWebsocketTcpConverter,
  websocketTcpConverter,
} from '../resources/websocket_tcp_converter.js';

export class ExportError extends AccordError {
  override name = 'ExportError';
  static override readonly code = 'ACCORD_EXPORT';
}

export interface LiveAccount {
  /** Every live object of each managed kind, as listed. */
  managed: Record<ManagedKind, readonly LiveObject[]>;
  /** Each TCP edge named, with its IP restriction module (null when not configured). */
  tcpEdges: { id: string; ipRestriction: LiveObject | null }[];
  /** Each HTTPS edge named, with its routes and their websocket TCP converter modules. */
  httpsEdges: { id: string; routes: { id: string; websocketTcpConverter: LiveObject | null }[] }[];
}

const TCP_EDGE_ID = /^edgtcp_[A-Za-z0-9]{1,64}$/;
const HTTPS_EDGE_ID = /^edghts_[A-Za-z0-9]{1,64}$/;

/** `--edges a,b c`: unique edge IDs in the order given; throws on anything that is not an edge ID. */
export function parseEdgeIds(values: readonly string[]): string[] {
  const ids = [...new Set(values.flatMap((v) => v.split(',')).map((v) => v.trim()))].filter((v) => v !== '');
  const bad = ids.filter((id) => !TCP_EDGE_ID.test(id) && !HTTPS_EDGE_ID.test(id));
  if (bad.length > 0) {
    throw new ExportError(
      `--edges: ${bad.map((b) => `"${b}"`).join(', ')} ${bad.length === 1 ? 'is not an edge ID' : 'are not edge IDs'}; ` +
        'give TCP edge (edgtcp_...) or HTTPS edge (edghts_...) IDs, separated by commas.',
    );
  }
  return ids;
}

export async function readAccount(source: LiveSource, edgeIds: readonly string[]): Promise<LiveAccount> {
  const tcpIds = edgeIds.filter((id) => TCP_EDGE_ID.test(id));
  const httpsIds = edgeIds.filter((id) => HTTPS_EDGE_ID.test(id));
  const routesByEdge = await Promise.all(httpsIds.map((id) => listRoutes(source, id)));

  // The planner's reader reads exactly the modules a desired state names: name every one.
  const loc = { file: '', line: 0, col: 0 };
  const tcpModules: DesiredTcpEdgeIpRestriction[] = tcpIds.map((edge_id) => ({
    kind: 'tcp_edge_ip_restriction',
    edge_id,
    state: 'present',
    enabled: true,
    ip_policy_ids: [],
    loc,
  }));
  const wsModules: DesiredWebsocketTcpConverter[] = httpsIds.flatMap((edge_id, i) =>
    routesByEdge[i]!.map((route_id) => ({
      kind: 'websocket_tcp_converter' as const,
      edge_id,
      route_id,
      state: 'present' as const,
      enabled: true,
      loc,
    })),
  );
  const query: DesiredState = {
    file: '',
    digest: '',
    owner: '',
    ip_restrictions: [],
    certificate_authorities: [],
    ssh_host_certificates: [],
    tcp_edge_ip_restrictions: tcpModules,
    websocket_tcp_converters: wsModules,
  };
  const live = await readLiveState(source, query);
  return {
    managed: live.managed,
    tcpEdges: tcpModules.map((m) => ({
      id: m.edge_id,
      ipRestriction: live.modules[tcpEdgeIpRestriction.address(m)] ?? null,
    })),
    httpsEdges: httpsIds.map((id) => ({
      id,
      routes: wsModules
        .filter((m) => m.edge_id === id)
        .map((m) => ({
          id: m.route_id,
          websocketTcpConverter: live.modules[websocketTcpConverter.address(m)] ?? null,
        })),
    })),
  };
}

async function listRoutes(source: LiveSource, edgeId: string): Promise<string[]> {
  const path = `/edges/https/${encodeURIComponent(edgeId)}/routes`;
  const ids: string[] = [];
  try {
    for await (const route of source.listAll<unknown>(path, 'routes')) {
      const id = isRecord(route) ? str(route['id']) : '';
      if (id !== '') ids.push(id);
    }
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      throw new ExportError(
        `--edges: HTTPS edge ${edgeId} does not exist (GET ${path} answered 404); check the ID.`,
        { cause: err },
      );
    }
    throw err;
  }
  return ids.sort();
}
