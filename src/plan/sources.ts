// Where each change comes from in the desired-state files (DESIGN §1 "Several files"): every change an
// entry makes names the file and line of that entry, so that a reviewer of several files finds it.
import type { DesiredState } from '../config/model.js';
import {
  desiredOf,
  entryAddress,
  managedDescriptors,
  moduleDescriptors,
  type SourceLocation,
} from '../resources/index.js';
import { entryOf } from './select.js';
import type { PlanChange } from './types.js';

/**
 * Sets `source` on every change an entry makes (a duplicate's delete: its entry's); a delete of an
 * object whose entry has left the files has none.
 */
export function attachSources(changes: readonly PlanChange[], desired: DesiredState): void {
  const locs = new Map<string, SourceLocation>();
  for (const d of managedDescriptors)
    for (const e of desiredOf(d, desired)) locs.set(entryAddress(d, e.key), e.loc);
  for (const d of moduleDescriptors) for (const e of desiredOf(d, desired)) locs.set(d.address(e), e.loc);
  for (const c of changes) {
    const loc = locs.get(entryOf(c.address));
    if (loc) c.source = { file: loc.file, line: loc.line };
  }
}
