// A plan that opens a scope to everyone (its restriction deleted, made warn-only, or its policies
// letting every address in) says so as a warning, whatever else it does; one that leaves a scope open
// to everyone as it was says nothing.
import { describe, expect, it } from 'vitest';
import { validate } from '../../src/apply/generated/plan-validator.js';
import { plan } from '../../src/cli/worded-plan.js';
import type { Warning } from '../../src/plan/types.js';
import { warningText } from '../../src/render/warnings.js';
import {
  desiredState,
  ipr,
  liveIpr,
  livePolicy,
  liveRule,
  liveState,
  marker,
  NOW,
  OPTIONS,
  policy,
  type RuleSpec,
  withPolicies,
} from '../plan/fixtures.js';

const P = 'ipp_office0000000000000000000';

/** The office policy (allow 10.0.0.0/8) and an enforced dashboard restriction naming it, all managed. */
function live(restriction = true) {
  return liveState({
    ip_policy: [livePolicy(P, { metadata: marker('office') })],
    ip_policy_rule: [
      liveRule('ipr_1', P, ['allow', '10.0.0.0/8'], { metadata: marker('office/10.0.0.0/8') }),
    ],
    ip_restriction: restriction ? [liveIpr('ipx_1', { metadata: marker('dash') }, [P])] : [],
  });
}

const office = (...rules: RuleSpec[]) => withPolicies(policy('office', [['allow', '10.0.0.0/8'], ...rules]));
const opened = (warnings: readonly Warning[] = []) => warnings.filter((w) => w.code === 'opens_to_everyone');
const today = { everyone: false, cidrs: ['10.0.0.0/8'], addresses: '16777216' };

describe('opens_to_everyone', () => {
  it.each<[string, ReturnType<typeof desiredState>, Warning]>([
    [
      'the restriction left out of the files (deleted)',
      desiredState(office()),
      { code: 'opens_to_everyone', scope: 'dashboard', by: 'deleted', source: 'ip_restrictions.dash', today },
    ],
    [
      'the restriction made warn-only',
      desiredState({
        ...office(),
        ip_restrictions: [ipr('dash', { ip_policy_ids: ['office'], enforced: false })],
      }),
      {
        code: 'opens_to_everyone',
        scope: 'dashboard',
        by: 'not_enforced',
        source: 'ip_restrictions.dash',
        today,
      },
    ],
    [
      'the policy letting every address in',
      desiredState({
        ...office(['allow', '0.0.0.0/0'], ['allow', '::/0']),
        ip_restrictions: [ipr('dash', { ip_policy_ids: ['office'] })],
      }),
      { code: 'opens_to_everyone', scope: 'dashboard', by: 'rules', today },
    ],
  ])('%s', (_, desired, warning) => {
    const p = plan(desired, live(), NOW, OPTIONS);
    expect(opened(p.warning_codes)).toEqual([warning]);
    expect(p.safe).toBe(true);
    expect(validate(JSON.parse(JSON.stringify(p)))).toBe(true);
  });

  it('says nothing of a scope open to everyone before and after, nor of one that narrows', () => {
    expect(opened(plan(desiredState(office()), live(false), NOW, OPTIONS).warning_codes)).toEqual([]);
    const narrower = desiredState({
      ...office(),
      ip_restrictions: [ipr('dash', { ip_policy_ids: ['office'] })],
    });
    expect(opened(plan(narrower, live(false), NOW, OPTIONS).warning_codes)).toEqual([]);
  });

  it.each<[Warning, string]>([
    [
      { code: 'opens_to_everyone', scope: 'dashboard', by: 'deleted', source: 'ip_restrictions.dash', today },
      'dashboard: everyone would be let through (today: only 10.0.0.0/8): this plan deletes ip_restrictions.dash; if it is to stay, plan the file that holds its entry too',
    ],
    [
      { code: 'opens_to_everyone', scope: 'api', by: 'not_enforced', source: 'ip_restrictions.k', today },
      'api: everyone would be let through (today: only 10.0.0.0/8): after this plan ip_restrictions.k is warn-only; set enforced: true if it is to keep restricting',
    ],
    [
      {
        code: 'opens_to_everyone',
        scope: 'tcp_edges.edgtcp_1',
        by: 'not_enforced',
        source: 'tcp_edges.edgtcp_1.ip_restriction',
        today: { everyone: false, cidrs: [], addresses: '0' },
      },
      'TCP edge edgtcp_1: everyone would be let through (today: nobody): after this plan tcp_edges.edgtcp_1.ip_restriction is disabled; set enabled: true if it is to keep restricting',
    ],
    [
      { code: 'opens_to_everyone', scope: 'dashboard', by: 'rules', today },
      "dashboard: everyone would be let through (today: only 10.0.0.0/8): after this plan the policies its restriction names let every address in; a guard's only_let_in refuses such a plan",
    ],
  ])('%o', (w, text) => {
    expect(warningText(w)).toBe(text);
  });
});
