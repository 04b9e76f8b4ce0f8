// A change as planning starts it: an action, its before and after, and nothing yet decided of why.
import type { Action, PlanChange } from './types.js';

/** A change with no reasons, drift, dependencies or requests yet; planning fills them in. */
export function newChange(
  kind: PlanChange['kind'],
  address: string,
  key: string,
  id: string | null,
  action: Action,
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): PlanChange {
  return {
    address,
    kind,
    key,
    id,
    action,
    reasons: [],
    reason_codes: [],
    before,
    after,
    changed_fields: [],
    drift: {},
    depends_on: [],
    requests: [],
  };
}
