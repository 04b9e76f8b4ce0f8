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
  const locs = new Map<string, SourceLocation>();
  const at = (kind: string, key: string) => `${kind}\u0000${key}`;
  for (const d of managedDescriptors)
    for (const e of desiredOf(d, desired)) locs.set(at(d.kind, e.key), e.loc);
  for (const d of moduleDescriptors)
    for (const e of desiredOf(d, desired)) locs.set(at(d.kind, d.key(e)), e.loc);
  for (const c of changes) {
    const loc = locs.get(at(c.kind, c.key));
    if (loc) c.source = { file: loc.file, line: loc.line };
  }
}

/** An entry as a plan error names it: its address and where it is written. */
export function entryAt(address: string, loc: SourceLocation): EntryAt {
  return { address, file: loc.file, line: loc.line, col: loc.col };
}
