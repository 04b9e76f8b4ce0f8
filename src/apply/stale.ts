// `accord apply FILE` applies exactly the saved plan, so it first checks that the account is still the
// one the plan was made from (DESIGN §4): same API URL, and every planned object's live_digest
// unchanged. Reads one list per managed kind the plan acts on and one GET per planned module.
import { decodeMarker } from '../config/marker.js';
import { AccordError } from '../errors.js';
import { liveDigest } from '../plan/digest.js';
import type { ManagedKind, Plan, PlanChange } from '../plan/types.js';
import { managedDescriptors } from '../resources/index.js';
import { isRecord, type LiveObject } from '../resources/values.js';

export class StalePlanError extends AccordError {
  override name = 'StalePlanError';
  static override readonly code = 'ACCORD_STALE_PLAN';
}

export class UnsafePlanError extends AccordError {
  override name = 'UnsafePlanError';
  static override readonly code = 'ACCORD_UNSAFE_PLAN';
  override readonly exitCode = 3;
}

export interface StaleSource {
  listAll<T = unknown>(path: string, listKey: string): AsyncIterable<T>;
  getOptional<T = unknown>(path: string): Promise<T | undefined>;
}

const MODULE_KINDS = new Set(['tcp_edge_ip_restriction', 'websocket_tcp_converter']);

/**
 * Throws StalePlanError naming what changed; otherwise returns the live objects it listed, by ID
 * (`alsoList` adds kinds to list although the plan does not change them, e.g. for --cert-dir).
 */
export async function checkPlanIsCurrent(
  plan: Plan,
  apiUrl: string,
  source: StaleSource,
  alsoList: readonly ManagedKind[] = [],
): Promise<Map<string, LiveObject>> {
  if (plan.api_url !== apiUrl) {
    throw new StalePlanError(
      `plan is stale: it was made for ${plan.api_url}, not ${apiUrl}; run plan again against this API.`,
    );
  }
  const active = plan.changes.filter((c) => c.action !== 'no-op');
  const kinds = new Set<ManagedKind>(alsoList);
  for (const c of active) if (!MODULE_KINDS.has(c.kind)) kinds.add(c.kind as ManagedKind);
  const modules = active.filter((c) => MODULE_KINDS.has(c.kind));

  const byId = new Map<string, LiveObject>();
  const lists = managedDescriptors
    .filter((d) => kinds.has(d.kind))
    .map(async (d) => {
      for await (const item of source.listAll<unknown>(d.collectionPath, d.listKey)) {
        if (isRecord(item) && typeof item['id'] === 'string') byId.set(item['id'], item);
      }
    });
  const moduleDigests = new Map<string, string | null>();
  const reads = modules.map(async (c) => {
    const obj = await source.getOptional<unknown>(c.requests[0]!.path);
    moduleDigests.set(c.address, obj === undefined ? null : liveDigest(obj));
  });
  await Promise.all([...lists, ...reads]);

  // Keys of this owner's live objects, by kind: a planned create must still find none.
  const markedKeys = new Map<string, string>();
  for (const obj of byId.values()) {
    const m = decodeMarker(typeof obj['metadata'] === 'string' ? obj['metadata'] : undefined);
    const d = managedDescriptors.find((x) => String(obj['id']).startsWith(x.idPrefix));
    if (m?.owner === plan.owner && d) markedKeys.set(`${d.kind}/${m.key}`, String(obj['id']));
  }
  const problems: string[] = [];
  for (const c of active) {
    const why = MODULE_KINDS.has(c.kind) ? moduleDrift(c, moduleDigests) : managedDrift(c, markedKeys, byId);
    if (why) problems.push(`${c.address} ${why}`);
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).join('; ');
    const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : '';
    throw new StalePlanError(`plan is stale: ${shown}${more}; run plan again.`);
  }
  return byId;
}

function managedDrift(
  c: PlanChange,
  markedKeys: ReadonlyMap<string, string>,
  live: ReadonlyMap<string, LiveObject>,
): string | undefined {
  if (c.id === null) {
    // A create: another apply of the same file may have made it meanwhile.
    const id = markedKeys.get(`${c.kind}/${c.key}`);
    return id === undefined ? undefined : `was created since the plan was made (${id})`;
  }
  const obj = live.get(c.id);
  if (!obj) return `(${c.id}) no longer exists`;
  return liveDigest(obj) === c.live_digest ? undefined : `(${c.id}) changed since the plan was made`;
}

function moduleDrift(c: PlanChange, digests: Map<string, string | null>): string | undefined {
  const now = digests.get(c.address) ?? null;
  if (now === c.live_digest) return undefined;
  return now === null ? 'was removed since the plan was made' : 'changed since the plan was made';
}
