// Reading the live account with the fewest requests (DESIGN §4): one paged list per managed kind (any
// kind may hold this owner's resources to delete), plus one GET per edge module the file names, plus
// the TCP edges (one page per 100) when the planner asks for them (src/plan/planner.ts `matchAccount`).
// Nothing per resource.

import { ApiError } from '../api/errors.js';
import type { DesiredState } from '../config/model.js';
import { AccordError } from '../errors.js';
import type { ManagedKind } from '../plan/types.js';
import {
  desiredOf,
  type ManagedDescriptor,
  type ModuleDescriptor,
  type ModuleIdentity,
  managedDescriptors,
  moduleDescriptors,
} from '../resources/index.js';
import { isRecord, type LiveObject } from '../resources/values.js';
import { type LiveState, listedModule } from './model.js';

/** The part of ApiClient (src/api/client.ts) that reads the account: the planner's and apply FILE's checks. */
export interface LiveSource {
  listAll<T = unknown>(path: string, listKey: string, opts?: { readAhead?: boolean }): AsyncIterable<T>;
  getOptional<T = unknown>(path: string): Promise<T | undefined>;
}

export class UnexpectedResponseError extends AccordError {
  override name = 'UnexpectedResponseError';
  static override readonly code = 'ACCORD_UNEXPECTED_RESPONSE';
}

export async function readLiveState(source: LiveSource, desired: DesiredState): Promise<LiveState> {
  const [listed, modules] = await Promise.all([listManaged(source, desired), readModules(source, desired)]);
  return { ...listed, modules };
}

/**
 * Every managed kind's live objects (its own only: `ownsListed`), and the account's endpoints when
 * their kind is listed. A kind listed only when the files write its section (`listedOnlyWhenWritten`)
 * waits for them; the others need nothing of the files, so are read while they load. Undefined files
 * (they have problems) list none of those kinds.
 */
export async function listManaged(
  source: LiveSource,
  files: DesiredState | Promise<DesiredState | undefined>,
): Promise<Pick<LiveState, 'managed' | 'endpoints'>> {
  let endpoints: LiveObject[] | undefined;
  const lists = managedDescriptors.map(async (d) => {
    if (d.listedOnlyWhenWritten) {
      const desired = await files;
      if (desired === undefined || !writesSection(desired, d)) return [d.kind, []] as const;
    }
    const items = await listKind(source, d);
    // The list of endpoints is every type's: reach needs all of them, the kind only its own.
    if (d.traffic?.role === 'endpoint') endpoints = items;
    return [d.kind, d.ownsListed ? items.filter((o) => d.ownsListed!(o)) : items] as const;
  });
  const managed = Object.fromEntries(await Promise.all(lists)) as Record<ManagedKind, LiveObject[]>;
  return { managed, ...(endpoints ? { endpoints } : {}) };
}

/** Whether the files write the kind's section, an empty one included (or, built by hand, hold entries of it). */
export function writesSection(desired: DesiredState, d: ManagedDescriptor): boolean {
  return (desired.written?.includes(d.section) ?? false) || desiredOf(d, desired).length > 0;
}

/** Each edge module the files name, by address; null when it is not configured. */
export async function readModules(source: LiveSource, desired: DesiredState): Promise<LiveState['modules']> {
  const reads = moduleDescriptors.flatMap((d) =>
    desiredOf(d, desired).map(async (m) => [d.address(m), await readModule(source, d, m)] as const),
  );
  return Object.fromEntries(await Promise.all(reads));
}

/**
 * Every live object of a managed kind, as the API lists them; each next page is asked for while the
 * one before it is read.
 */
export async function listKind(source: LiveSource, d: ManagedDescriptor): Promise<LiveObject[]> {
  const items: LiveObject[] = [];
  for await (const item of source.listAll<unknown>(d.collectionPath, d.listKey, { readAhead: true })) {
    if (!isRecord(item) || typeof item['id'] !== 'string') {
      throw new UnexpectedResponseError(
        `GET ${d.collectionPath} returned an item without an id; is the API URL right?`,
      );
    }
    items.push(item);
  }
  return items;
}

/**
 * The account's TCP edges (where the listed module kind's `listing` says, each with its module inline),
 * one page per 100; `unavailable` when the service has no such list (it answers 404, 405 or 410: the
 * production service retired edges at the end of 2025), or no kind is listed so.
 */
export async function readTcpEdges(source: LiveSource): Promise<LiveObject[] | 'unavailable'> {
  const listed = listedModule();
  if (listed === undefined) return 'unavailable';
  return listUnlessMissing(source, listed.listing.path, listed.listing.listKey);
}

/**
 * The account's endpoints, every type (GET /endpoints, one page per 100); `unavailable` when the
 * service has no such list (a service that predates endpoints).
 */
export async function readEndpoints(source: LiveSource): Promise<LiveObject[] | 'unavailable'> {
  return listUnlessMissing(source, '/endpoints', 'endpoints');
}

/** Every item of a list the service may not have: `unavailable` when it answers 404, 405 or 410. */
async function listUnlessMissing(
  source: LiveSource,
  path: string,
  listKey: string,
): Promise<LiveObject[] | 'unavailable'> {
  const items: LiveObject[] = [];
  try {
    for await (const item of source.listAll<unknown>(path, listKey)) {
      if (!isRecord(item) || typeof item['id'] !== 'string') {
        throw new UnexpectedResponseError(
          `GET ${path} returned an item without an id; is the API URL right?`,
        );
      }
      items.push(item);
    }
  } catch (err) {
    if (err instanceof ApiError && [404, 405, 410].includes(err.status)) return 'unavailable';
    throw err;
  }
  return items;
}

/** An edge module's configuration; null when it is not configured (404). */
export async function readModule(
  source: LiveSource,
  d: ModuleDescriptor,
  module: ModuleIdentity,
): Promise<LiveObject | null> {
  const path = d.path(module);
  const obj = await source.getOptional<unknown>(path);
  if (obj !== undefined && !isRecord(obj)) {
    throw new UnexpectedResponseError(`GET ${path} returned something other than a JSON object`);
  }
  return obj ?? null;
}
