// Reading what `accord export` writes: one paged list per managed kind (as the planner reads them), the
// routes of each HTTPS edge named by --edges when a module kind hangs on routes, and one GET per edge
// module. The API cannot list edges, so only the edges the user names are read.

import { type LiveSource, listKind, readModule } from '../account/read.js';
import { ApiError } from '../api/errors.js';
import { AccordError } from '../errors.js';
import {
  fromRegistry,
  type ManagedDescriptor,
  type ManagedKind,
  type ModuleDescriptor,
  type ModuleKind,
  managedDescriptors,
  moduleDescriptors,
} from '../resources/index.js';
import type { FoundModule, ModuleIdentity } from '../resources/types.js';
import { isRecord, type LiveObject, str } from '../resources/values.js';

export class ExportError extends AccordError {
  override name = 'ExportError';
  static override readonly code = 'ACCORD_EXPORT';
}

export interface LiveAccount {
  /** Every live object of each managed kind, as listed. */
  managed: Record<ManagedKind, readonly LiveObject[]>;
  /**
   * Per module kind: the edges named that it hangs on (in the order given), and each of its modules
   * on them (a route's module: one per route).
   */
  modules: Partial<Record<ModuleKind, { edges: readonly string[]; found: readonly FoundModule[] }>>;
}

/** The kinds of edge the module kinds hang on, each once. */
const edgeKinds = fromRegistry(() => [
  ...new Map(moduleDescriptors.map((d) => [d.edge.idPrefix, d.edge])).values(),
]);

function isEdgeOf(edge: { idPrefix: string }, id: string): boolean {
  return id.startsWith(edge.idPrefix) && /^[A-Za-z0-9]{1,64}$/.test(id.slice(edge.idPrefix.length));
}

/** `--edges a,b c`: unique edge IDs in the order given; throws on anything that is not an edge ID. */
export function parseEdgeIds(values: readonly string[]): string[] {
  const ids = [...new Set(values.flatMap((v) => v.split(',')).map((v) => v.trim()))].filter((v) => v !== '');
  const edges = edgeKinds();
  const bad = ids.filter((id) => !edges.some((edge) => isEdgeOf(edge, id)));
  if (bad.length > 0) {
    throw new ExportError(
      `--edges: ${bad.map((b) => `"${b}"`).join(', ')} ${bad.length === 1 ? 'is not an edge ID' : 'are not edge IDs'}; ` +
        `give ${edges.map((e) => `${e.noun} (${e.idPrefix}...)`).join(' or ')} IDs, separated by commas.`,
    );
  }
  return ids;
}

export async function readAccount(source: LiveSource, edgeIds: readonly string[]): Promise<LiveAccount> {
  const targets = await Promise.all(
    moduleDescriptors.map(async (d) => {
      const edges = edgeIds.filter((id) => isEdgeOf(d.edge, id));
      return { d, edges, identities: await moduleIdentities(source, d, edges) };
    }),
  );
  const [managed, modules] = await Promise.all([
    Promise.all(managedDescriptors.map(async (d) => [d.kind, await listExported(source, d)] as const)),
    Promise.all(
      targets.map(async ({ d, edges, identities }) => {
        const found = await Promise.all(
          identities.map(async (identity) => ({ identity, live: await readModule(source, d, identity) })),
        );
        return [d.kind, { edges, found }] as const;
      }),
    ),
  ]);
  return {
    managed: Object.fromEntries(managed) as Record<ManagedKind, LiveObject[]>,
    modules: Object.fromEntries(modules),
  };
}

/**
 * A managed kind's own live objects (`ownsListed`). A kind listed only when the files write it may be
 * one a service does not have (404, 405, 410): then none.
 */
async function listExported(source: LiveSource, d: ManagedDescriptor): Promise<LiveObject[]> {
  try {
    const items = await listKind(source, d);
    return d.ownsListed ? items.filter((o) => d.ownsListed!(o)) : items;
  } catch (err) {
    if (d.listedOnlyWhenWritten && err instanceof ApiError && [404, 405, 410].includes(err.status)) return [];
    throw err;
  }
}

/** The modules of a kind on the edges named: one per edge, or one per route of each edge. */
async function moduleIdentities(
  source: LiveSource,
  d: ModuleDescriptor,
  edges: readonly string[],
): Promise<ModuleIdentity[]> {
  const { routesPath } = d.edge;
  if (!routesPath) return edges.map((edge_id) => ({ edge_id }));
  const routes = await Promise.all(edges.map((edge) => listRoutes(source, edge, routesPath(edge), d)));
  return edges.flatMap((edge_id, i) => routes[i]!.map((route_id) => ({ edge_id, route_id })));
}

async function listRoutes(
  source: LiveSource,
  edgeId: string,
  path: string,
  d: ModuleDescriptor,
): Promise<string[]> {
  const ids: string[] = [];
  try {
    for await (const route of source.listAll<unknown>(path, 'routes')) {
      const id = isRecord(route) ? str(route['id']) : '';
      if (id !== '') ids.push(id);
    }
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      throw new ExportError(
        `--edges: ${d.edge.noun} ${edgeId} does not exist (GET ${path} answered 404); check the ID.`,
        { cause: err },
      );
    }
    throw err;
  }
  return ids.sort();
}
