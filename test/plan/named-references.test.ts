// Plans name what a referencing field points at by the entry's key: the live ID beside it, or, for an
// object the plan makes, its placeholder said as the key. The key comes from the change that makes it,
// never from cutting the placeholder's address.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import { knownAfterApply } from '../../src/plan/references.js';
import { renderText } from '../../src/render/text.js';
import { policyNames } from '../../src/traffic/governance.js';
import { desiredState, emptyLive, ipr, NOW, OPTIONS, policy, withPolicies } from './fixtures.js';

describe('references named by key', () => {
  const desired = desiredState({
    ...withPolicies(policy('office.hq', [['allow', '192.0.2.0/24']])),
    ip_restrictions: [ipr('dash', { ip_policy_ids: ['office.hq'] })],
  });
  const p = plan(desired, emptyLive(), NOW, OPTIONS);

  it('a policy the plan creates is named by its key where a restriction names it', () => {
    const text = renderText(p, { color: false });
    expect(text).toContain('office.hq (known after apply)');
    expect(text).not.toContain('(known after apply: ip_policies.office.hq)');
  });

  it('reach names it by its key too', () => {
    expect(policyNames(p.changes).get(knownAfterApply('ip_policies.office.hq'))).toBe('office.hq');
    // Its text is no ID known after apply.
    expect(policyNames(p.changes).get('(known after apply: ip_policies.office.hq)')).toBeUndefined();
  });
});
