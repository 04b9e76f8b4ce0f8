// References between entries (DESIGN §1, §4): `ip_policies: [office]` names an entry of the file by
// key. The planner resolves each key to its live ID, or, when the entry's object is made by this plan,
// to the value known after apply of `ip_policies.office` (src/resources/known-after-apply.ts) with a
// dependency on that change; the applier fills the ID in from that change's answer. A reference by
// live ID must name an object the account has.
import { KnownAfterApply, type PlannedId, plannedIdSet } from '../resources/known-after-apply.js';
import type { FieldSpec } from '../resources/types.js';
import type { EntryAt, PlanProblem } from './types.js';

/** What a plan shows, and a request carries, for the ID of the object the change at `address` makes. */
export function knownAfterApply(address: string): KnownAfterApply {
  return KnownAfterApply.of(address);
}

/** Whether a value (an ID, a list, or a document such as a traffic policy) holds an ID known after apply. */
export function holdsKnownAfterApply(value: unknown): boolean {
  if (value instanceof KnownAfterApply) return true;
  if (Array.isArray(value)) return value.some(holdsKnownAfterApply);
  if (typeof value === 'object' && value !== null) return Object.values(value).some(holdsKnownAfterApply);
  return false;
}

/** A copy of `value` with each ID known after apply replaced by `idOf(its address)` (lists, objects). */
export function fillKnownAfterApply(value: unknown, idOf: (address: string) => string | undefined): unknown {
  if (value instanceof KnownAfterApply) {
    const id = idOf(value.address);
    if (id === undefined)
      throw new Error(`the ID of ${value.address} is not known: its change has not succeeded`);
    return id;
  }
  if (Array.isArray(value)) return value.map((v) => fillKnownAfterApply(v, idOf));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillKnownAfterApply(v, idOf)]));
  }
  return value;
}

/** An entry of a section as the plan leaves it: its live ID, or null when this plan creates it. */
export interface Target {
  id: string | null;
  address: string;
}

/** Entries by section and key, and each referenced kind's live objects by ID. */
export class References {
  private readonly sections = new Map<string, Map<string, Target>>();
  private readonly liveIds = new Map<string, { idPrefix: string; ids: Set<string> }>();

  /** The entries of `section` and the live objects of its kind, once that kind is planned. */
  define(section: string, idPrefix: string, entries: Map<string, Target>, liveIds: Iterable<string>): void {
    this.sections.set(section, entries);
    this.liveIds.set(section, { idPrefix, ids: new Set(liveIds) });
  }

  /**
   * Resolves the referenced fields of `values` in place. Returns the addresses the change must wait
   * for, and a problem for each live ID the account does not have (`where` names the entry).
   */
  resolve(
    fields: readonly FieldSpec[],
    values: Record<string, unknown>,
    /** The entry's address and place, built only for a problem. */
    where: () => EntryAt,
  ): { dependsOn: string[]; problems: PlanProblem[] } {
    const dependsOn: string[] = [];
    const problems: PlanProblem[] = [];
    for (const f of fields) {
      const section = f.references ?? f.referencesWithin?.section;
      if (section === undefined || values[f.name] === undefined) continue;
      const one = (ref: string): PlannedId => {
        const kind = this.liveIds.get(section);
        if (kind && ref.startsWith(kind.idPrefix)) {
          if (!kind.ids.has(ref)) {
            problems.push({ code: 'unknown_reference', entry: where(), field: f.name, ref, section });
          }
          return ref;
        }
        const target = this.sections.get(section)?.get(ref);
        // An unknown key was reported when the file was read; it stays as written.
        if (!target) return ref;
        if (target.id !== null) return target.id;
        if (!dependsOn.includes(target.address)) dependsOn.push(target.address);
        return knownAfterApply(target.address);
      };
      const value = values[f.name];
      values[f.name] = f.referencesWithin
        ? f.referencesWithin.map(value, one)
        : Array.isArray(value)
          ? plannedIdSet(value.map((v) => one(String(v))))
          : one(String(value));
    }
    return { dependsOn, problems };
  }
}
