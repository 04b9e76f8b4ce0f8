// An `id:` that names an object the account lists in the kind's collection but that is not the kind's
// own (`ownsListed`): an agent endpoint named by a `cloud_endpoints` entry. The kind's list leaves it
// out, so matching finds no such ID: with no object under the entry's marker that is `id_unknown`,
// with one it is the warning `id_gone` (the adopted object replaced, the marker naming its successor).
// Neither is true of an object that exists and that accord never manages, so both become the problem
// that says what the ID is. The entry's own object is no reason to go on: the `id:` names another
// object, and following the marker would change one the file does not name; the problem says so.

import type { Account } from '../account/model.js';
import type { ManagedDescriptor } from '../resources/index.js';
import type { KindMatch } from './match.js';
import { entryAt } from './sources.js';
import type { PlanProblem } from './types.js';

/** The match with each `id_unknown` and `id_gone` of an ID the account lists as another type a problem. */
export function withListedIds(match: KindMatch, descriptor: ManagedDescriptor, live: Account): KindMatch {
  const listed =
    descriptor.traffic?.role === 'endpoint' && Array.isArray(live.endpoints) ? live.endpoints : [];
  // `id_unknown` and `id_gone` say the ID is not among the kind's own objects: listed, it is another's.
  const otherOf = (id: string) => listed.find((e) => e.id === id);
  if (listed.length === 0) return match;
  const errors = match.errors.map((p): PlanProblem => {
    if (p.code !== 'id_unknown') return p;
    const other = otherOf(p.id);
    return other ? { code: 'id_not_managed', entry: p.entry, id: p.id, type: other.type, url: other.url } : p;
  });
  const warnings = match.warnings.filter((w) => {
    if (w.code !== 'id_gone') return true;
    const other = otherOf(w.id);
    const m = match.matched.find((x) => `${descriptor.section}.${x.desired.key}` === w.address);
    if (!other || !m) return true;
    const { type, url } = other;
    const marked = m.live ? { marked: m.live.id } : {};
    errors.push({
      code: 'id_not_managed',
      entry: entryAt(w.address, m.desired.loc),
      id: w.id,
      type,
      url,
      ...marked,
    });
    return false;
  });
  return { ...match, errors, warnings };
}
