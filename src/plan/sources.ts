// Where each change comes from in the desired-state files (DESIGN §1 "Several files"): every change an
// entry makes names the file and line of that entry, so that a reviewer of several files finds it.
import type { DesiredState } from '../config/model.js';
import { desiredOf, managedDescriptors, moduleDescriptors, type SourceLocation } from '../resources/index.js';
import type { EntryAt, PlanChange } from './types.js';

/**
 * Sets `source` on every change an entry makes (a duplicate's delete, a step: its entry's, by the
 * change's kind and key); a delete of an object whose entry has left the files has none.
 */
export function attachSources(changes: readonly PlanChange[], desired: DesiredState): void {
  // By kind, then key: no key is joined to its kind to be looked up.
  const locs = new Map<string, Map<string, SourceLocation>>();
  for (const d of managedDescriptors)
    locs.set(d.kind, new Map(desiredOf(d, desired).map((e) => [e.key, e.loc])));
  for (const d of moduleDescriptors)
    locs.set(d.kind, new Map(desiredOf(d, desired).map((e) => [d.key(e), e.loc])));
  for (const c of changes) {
    const loc = locs.get(c.kind)?.get(c.key);
    if (loc) c.source = { file: loc.file, line: loc.line };
  }
}

/** An entry as a plan error names it: its address and where it is written. */
export function entryAt(address: string, loc: SourceLocation): EntryAt {
  return { address, file: loc.file, line: loc.line, col: loc.col };
}
