// A saved plan that no longer matches says what differs and where: the field of the account that
// changed since, or of the result, beside the actions of the plan and of a plan made now.
import { describe, expect, it } from 'vitest';
import { judgeFreshPlan } from '../../src/apply/stale.js';
import type { Plan, PlanChange } from '../../src/plan/types.js';

const header = { api_url: 'http://x', owner: 'o', config_digest: 'd', files: ['a.yaml'], changes: [] };
const change = (action: string, before: object, after: object) =>
  ({
    address: 'ip_restrictions.office',
    kind: 'ip_restriction',
    action,
    id: 'ipx_1',
    before,
    after,
    changed_fields: [],
  }) as unknown as PlanChange;
const planOf = (...changes: PlanChange[]) => ({ ...header, safe: true, changes }) as unknown as Plan;

describe('a stale plan says what changed and where', () => {
  it('an outside change of the account: no-op in the plan, patch now, and the field that changed', () => {
    const saved = planOf(change('no-op', { enforced: true }, { enforced: true }));
    const fresh = planOf(change('patch', { enforced: false }, { enforced: true }));
    expect(() => judgeFreshPlan(saved, fresh, 'p.json')).toThrow(
      'plan is stale: ip_restrictions.office: the plan leaves it as it is, a plan made now would patch it: its enforced is false in the account now, true in the plan; run plan again.',
    );
  });

  it('the same action, another value in the account', () => {
    const saved = planOf(change('patch', { description: 'a' }, { description: 'b' }));
    const fresh = planOf(change('patch', { description: 'c' }, { description: 'b' }));
    expect(() => judgeFreshPlan(saved, fresh, 'p.json')).toThrow(
      'plan is stale: ip_restrictions.office: its description is "c" in the account now, "a" in the plan; run plan again.',
    );
  });
});
