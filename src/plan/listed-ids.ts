// An `id:` that names an object the account lists in the kind's collection but that is not the kind's
// own (`ownsListed`): an agent endpoint named by a `cloud_endpoints` entry. The kind's list leaves it
// out, so matching finds no such ID; this says what the ID is instead of that it does not exist.

import type { Account } from '../account/model.js';
import type { ManagedDescriptor } from '../resources/index.js';
import type { PlanProblem } from './types.js';

/** `problems` with each `id_unknown` of an ID the account lists as another type said as such. */
export function withListedIds(
  problems: readonly PlanProblem[],
  descriptor: ManagedDescriptor,
  live: Account,
): PlanProblem[] {
  const listed =
    descriptor.traffic?.role === 'endpoint' && Array.isArray(live.endpoints) ? live.endpoints : [];
  if (listed.length === 0) return [...problems];
  return problems.map((p) => {
    if (p.code !== 'id_unknown') return p;
    const other = listed.find((e) => e.id === p.id && e.type !== 'cloud');
    return other ? { code: 'id_not_managed', entry: p.entry, id: p.id, type: other.type, url: other.url } : p;
  });
}
