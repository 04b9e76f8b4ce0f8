// The account: as read (LiveState), and as every stage after reading works on it, each live object
// typed once (STYLE.md "One model, built once"), TCP edges included.

import {
  fromRegistry,
  type ManagedDescriptor,
  type ManagedKind,
  type ModuleDescriptor,
  managedDescriptors,
  moduleDescriptors,
} from '../resources/index.js';
import { decodeMarker, type Marker } from '../resources/marker.js';
import { isRecord, type LiveObject, str } from '../resources/values.js';
import { type LiveEndpoint, liveEndpoints } from './endpoints.js';

/**
 * The module kind whose edges the account lists with the module inline (its descriptor's `listing`,
 * the TCP edges' IP restriction): where the modules the files do not name are seen. Undefined when no
 * kind is listed so.
 */
export const listedModule = fromRegistry(
  (): (ModuleDescriptor & Required<Pick<ModuleDescriptor, 'listing'>>) | undefined =>
    moduleDescriptors.find(
      (d): d is ModuleDescriptor & Required<Pick<ModuleDescriptor, 'listing'>> => d.listing !== undefined,
    ),
);

export interface LiveState {
  /** Every live object of each managed kind, as the API listed it. */
  managed: Record<ManagedKind, readonly LiveObject[]>;
  /** Each module named in the file, by address; null when it is not configured (404). */
  modules: Record<string, LiveObject | null>;
  /**
   * The account's TCP edges with their IP restriction module inline, listed only when the plan's reach
   * could change through them (DESIGN §2): undefined when they were not, `unavailable` when the service
   * has no such list.
   */
  tcpEdges?: readonly LiveObject[] | 'unavailable';
  /**
   * The account's endpoints, every type, listed only when the plan's reach could change through them
   * (DESIGN §4 "Reach"): undefined when they were not, `unavailable` when the service has no such list.
   */
  endpoints?: readonly LiveObject[] | 'unavailable';
}

/**
 * A live object of a managed kind as every stage after reading works on it: its marker decoded and
 * its values normalized once, here, and never again.
 */
export interface LiveResource {
  readonly descriptor: ManagedDescriptor;
  readonly id: string;
  /** Its ownership marker; undefined when its metadata holds none accord can read. */
  readonly marker: Marker | undefined;
  /** `normalizeLive` of the object: what plans compare and show. */
  readonly values: Readonly<Record<string, unknown>>;
  readonly description: string;
  /** Its `created_at` in ms since the epoch; NaN when that is no time. */
  readonly createdAt: number;
  /** The object as listed, for what only it holds (metadata that is no marker). */
  readonly object: LiveObject;
}

/** A live object typed: the one place a listed object's marker is decoded and its values normalized. */
export function liveResource(descriptor: ManagedDescriptor, object: LiveObject): LiveResource {
  return {
    descriptor,
    id: str(object['id']),
    marker: decodeMarker(object['metadata']),
    values: descriptor.normalizeLive(object),
    description: str(object['description']),
    createdAt: Date.parse(String(object['created_at'])),
    object,
  };
}

/** The account as the planner works on it: each object typed once. */
export interface Account {
  managed: Readonly<Record<ManagedKind, readonly LiveResource[]>>;
  /** Each module named in the file, by address: its normalized values; null when not configured. */
  modules: Readonly<Record<string, Readonly<Record<string, unknown>> | null>>;
  /** The TCP edges as listed (LiveState's `tcpEdges`), each typed once. */
  tcpEdges?: readonly LiveEdge[] | 'unavailable';
  /** The endpoints as listed (LiveState's `endpoints`), each typed once. */
  endpoints?: readonly LiveEndpoint[] | 'unavailable';
}

/** A TCP edge as the list of edges shows it: its ID, and its module's normalized values (null: none). */
export interface LiveEdge {
  readonly id: string;
  readonly module: Readonly<Record<string, unknown>> | null;
}

/** The listed TCP edges typed: the one place an edge's inline module is normalized. */
export function liveEdges(
  listed: readonly LiveObject[] | 'unavailable',
): readonly LiveEdge[] | 'unavailable' {
  const listedKind = listedModule();
  if (listed === 'unavailable' || listedKind === undefined) return 'unavailable';
  const { listing } = listedKind;
  return listed.map((edge) => {
    const module = edge[listing.field];
    return { id: str(edge['id']), module: isRecord(module) ? listedKind.normalizeLive(module) : null };
  });
}

export function accountOf(live: LiveState): Account {
  const managed = {} as Record<ManagedKind, readonly LiveResource[]>;
  for (const d of managedDescriptors) {
    managed[d.kind] = (live.managed[d.kind] ?? []).map((o) => liveResource(d, o));
  }
  const modules: Record<string, Readonly<Record<string, unknown>> | null> = {};
  for (const [address, obj] of Object.entries(live.modules)) {
    const d = moduleDescriptors.find((m) => m.identify(address) !== undefined);
    modules[address] = obj && d ? d.normalizeLive(obj) : null;
  }
  return {
    managed,
    modules,
    ...(live.tcpEdges === undefined ? {} : { tcpEdges: liveEdges(live.tcpEdges) }),
    ...(live.endpoints === undefined ? {} : { endpoints: liveEndpoints(live.endpoints) }),
  };
}
