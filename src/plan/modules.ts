// Planning an edge module (a TCP edge's IP restriction, its websocket TCP converter): set with PUT, cleared
// with DELETE, and carrying no metadata, so no marker and no fingerprint.
import type { Account } from '../account/model.js';
import type { DesiredModule } from '../config/model.js';
import type { ModuleDescriptor } from '../resources/index.js';
import { fieldEquals } from '../resources/values.js';
import { newChange } from './change.js';
import { unknownDrift } from './drift.js';
import type { References } from './references.js';
import { entryAt } from './sources.js';
import type { PlanChange, PlanProblem, Reason } from './types.js';

/** The change that makes an edge module what its entry says (or clears it), with the references it names resolved. */
export function planModule(
  descriptor: ModuleDescriptor,
  d: DesiredModule,
  liveModules: Account['modules'],
  references: References,
  errors: PlanProblem[],
): PlanChange {
  const address = descriptor.address(d);
  const live = liveModules[address] ?? null;
  const before = live ? { ...live } : null;
  const after = d.state === 'present' ? descriptor.normalizeDesired(d) : null;
  const where = () => entryAt(address, d.loc);
  const resolved = after ? references.resolve(descriptor.fields, after, where) : undefined;
  errors.push(...(resolved?.problems ?? []));
  const change = newChange(
    descriptor.kind,
    address,
    descriptor.key(d),
    descriptor.id(d),
    'no-op',
    before,
    after,
  );
  change.depends_on = resolved?.dependsOn ?? [];
  if (after === null) {
    if (before !== null) {
      change.action = 'delete';
      change.reason_codes = [{ code: 'absent' }];
    }
    return change;
  }
  const changed = before
    ? descriptor.fields.filter((f) => !fieldEquals(f, before[f.name], after[f.name]))
    : [...descriptor.fields];
  if (before === null || changed.length > 0) {
    change.action = 'put';
    change.reason_codes =
      before === null
        ? [{ code: 'not_configured' }]
        : changed.map((f): Reason => ({ code: 'changed', field: f.name }));
    change.changed_fields = changed.map((f) => f.name);
    // Edge modules carry no metadata, so no fingerprint: nothing tells who changed them.
    change.drift = unknownDrift(change.changed_fields);
  }
  return change;
}
