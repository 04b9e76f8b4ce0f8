// Where each change comes from in the desired-state files (DESIGN §1 "Several files"): every change an
// entry makes names the file and line of that entry, so that a reviewer of several files finds it.
import type { DesiredState } from '../config/model.js';
import {
  descriptorFor,
  desiredOf,
  managedDescriptors,
  moduleDescriptors,
  type SourceLocation,
} from '../resources/index.js';
import type { EntryAt, PlanChange, PlanProblem } from './types.js';

/**
 * Sets `source` on every change an entry makes (a duplicate's delete, a step: its entry's, by the
 * change's kind and key); a delete of an object whose entry has left the files has none.
 */
export function attachSources(changes: readonly PlanChange[], desired: DesiredState): void {
  const locs = entryLocations(desired);
  for (const c of changes) {
    const loc = locs.get(c.kind)?.get(c.key);
    if (loc) c.source = { file: loc.file, line: loc.line };
  }
}

/** Each entry's place, by kind, then key: no key is joined to its kind to be looked up. */
function entryLocations(desired: DesiredState): Map<string, Map<string, SourceLocation>> {
  const locs = new Map<string, Map<string, SourceLocation>>();
  for (const d of managedDescriptors)
    locs.set(d.kind, new Map(desiredOf(d, desired).map((e) => [e.key, e.loc])));
  for (const d of moduleDescriptors)
    locs.set(d.kind, new Map(desiredOf(d, desired).map((e) => [d.key(e), e.loc])));
  return locs;
}

/**
 * The places of the changes on each traffic cycle (`at`, beside `cycle`: null for a change whose
 * entry has left the files), so that the error names each endpoint, policy and rule where it is written, and the change to
 * apply on its own first (`first`).
 */
export function locateCycles(
  problems: PlanProblem[],
  changes: readonly PlanChange[],
  desired: DesiredState,
): void {
  if (!problems.some((p) => p.code === 'traffic_cycle')) return;
  const locs = entryLocations(desired);
  const byAddress = new Map(changes.map((c) => [c.address, c]));
  for (const [i, p] of problems.entries()) {
    if (p.code !== 'traffic_cycle') continue;
    const at = p.cycle.map((address) => {
      const c = byAddress.get(address);
      const loc = c ? locs.get(c.kind)?.get(c.key) : undefined;
      return loc ? { file: loc.file, line: loc.line } : null;
    });
    // A rule change goes first on its own where the cycle has one: its policy is whole before the
    // restriction or endpoint change that waits for it.
    const rule = p.cycle.find((a) => {
      const c = byAddress.get(a);
      return c !== undefined && descriptorFor(c.kind).traffic?.role === 'rule';
    });
    problems[i] = { ...p, at, first: rule ?? p.cycle[0]! };
  }
}

/** An entry as a plan error names it: its address and where it is written. */
export function entryAt(address: string, loc: SourceLocation): EntryAt {
  return { address, file: loc.file, line: loc.line, col: loc.col };
}
