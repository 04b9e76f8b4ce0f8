// opens_to_everyone for an endpoint, at random: an endpoint's restrict-ips actions (enforced or not,
// conditional or not, own CIDRs and the office policy) and office's rules change. The warning is given
// exactly when some address is shut out by an enforced action today and, after the plan, every address
// is let in by every enforced action that may run; `by` says whether one is left. Checked against an
// evaluator of its own, sampling every CIDR's ends and the addresses either side of them (where a set
// made of CIDRs can have a gap) and the ends of each family.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LiveState } from '../../src/account/model.js';
import { plan } from '../../src/cli/worded-plan.js';
import { cidrContains, parseCidr } from '../../src/net/cidr.js';
import { PlanError } from '../../src/plan/planner.js';
import type { Warning } from '../../src/plan/types.js';
import type { DesiredCloudEndpoint } from '../../src/resources/cloud_endpoint.js';
import {
  desiredState,
  livePolicy,
  liveRule,
  liveState,
  marker,
  NOW,
  OPTIONS,
  policy,
  withPolicies,
} from '../plan/fixtures.js';

const P = 'ipp_office0000000000000000000';
const URL = 'https://admin.example.com';
const CIDRS = [
  '0.0.0.0/0',
  '::/0',
  '10.0.0.0/8',
  '10.1.0.0/16',
  '192.0.2.0/24',
  '0.0.0.0/1',
  '128.0.0.0/1',
  '2001:db8::/32',
];
const SAMPLES = [
  ...new Set([
    '0.0.0.0',
    '255.255.255.255',
    '::',
    'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    '9.255.255.255',
    '10.0.0.0',
    '10.0.255.255',
    '10.1.0.0',
    '10.1.255.255',
    '10.2.0.0',
    '10.255.255.255',
    '11.0.0.0',
    '192.0.1.255',
    '192.0.2.0',
    '192.0.2.255',
    '192.0.3.0',
    '127.255.255.255',
    '128.0.0.0',
    '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff',
    '2001:db8::',
    '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff',
    '2001:db9::',
  ]),
];

const ruleArb = fc.record({
  action: fc.constantFrom('allow' as const, 'deny' as const),
  cidr: fc.constantFrom(...CIDRS),
});
const rulesArb = fc.uniqueArray(ruleArb, { minLength: 1, maxLength: 3, selector: (r) => r.cidr });
const actionArb = fc.record({
  enforce: fc.boolean(),
  conditional: fc.boolean(),
  allow: fc.subarray(CIDRS, { maxLength: 2 }),
  deny: fc.subarray(CIDRS, { maxLength: 1 }),
  office: fc.boolean(),
});
type Action = typeof actionArb extends fc.Arbitrary<infer T> ? T : never;
type Rule = { action: 'allow' | 'deny'; cidr: string };

function document(actions: readonly Action[], office: string) {
  return {
    on_http_request: actions.map((a) => ({
      ...(a.conditional ? { expressions: ['req.url.path.startsWith("/admin")'] } : {}),
      actions: [
        {
          type: 'restrict-ips',
          config: {
            ...(a.enforce ? {} : { enforce: false }),
            ...(a.allow.length > 0 ? { allow: a.allow } : {}),
            ...(a.deny.length > 0 ? { deny: a.deny } : {}),
            ...(a.office ? { ip_policies: [office] } : {}),
          },
        },
      ],
    })),
  };
}

const matches = (cidrs: readonly string[], address: string) =>
  cidrs.some((c) => {
    const parsed = parseCidr(c);
    return !('problem' in parsed) && cidrContains(parsed, address);
  });

/** Whether every sampled address gets through every enforced action that may run. */
function lets(actions: readonly Action[], rules: readonly Rule[], address: string): boolean {
  return actions.every((a) => {
    if (!a.enforce) return true;
    const policyRules = a.office ? rules : [];
    const allow = [...a.allow, ...policyRules.filter((r) => r.action === 'allow').map((r) => r.cidr)];
    const deny = [...a.deny, ...policyRules.filter((r) => r.action === 'deny').map((r) => r.cidr)];
    return matches(allow, address) && !matches(deny, address);
  });
}
const everyone = (actions: readonly Action[], rules: readonly Rule[]) =>
  SAMPLES.every((s) => lets(actions, rules, s));

function live(actions: readonly Action[], rules: readonly Rule[]): LiveState {
  const endpoint = {
    id: 'ep_1',
    type: 'cloud',
    url: URL,
    created_at: '2026-01-01T00:00:00Z',
    description: '',
    metadata: marker('admin'),
    pooling_enabled: false,
    traffic_policy: JSON.stringify(document(actions, P)),
  };
  const state = liveState({
    ip_policy: [livePolicy(P, { metadata: marker('office') })],
    ip_policy_rule: rules.map((r, i) =>
      liveRule(`ipr_${i}`, P, [r.action, r.cidr], { metadata: marker(`office/${r.cidr}`) }),
    ),
    cloud_endpoint: [endpoint],
  });
  return { ...state, endpoints: [endpoint] };
}

function entry(actions: readonly Action[]): DesiredCloudEndpoint {
  return {
    kind: 'cloud_endpoint',
    key: 'admin',
    description: '',
    protect: false,
    loc: { file: '/w/accord.yaml', line: 1, col: 1 },
    url: URL,
    pooling_enabled: false,
    traffic_policy: document(actions, 'office'),
  } as unknown as DesiredCloudEndpoint;
}

describe('opens_to_everyone for an endpoint, at random', () => {
  it('warns exactly when some address is shut out today and none after, by what is left', () => {
    let warned = 0;
    fc.assert(
      fc.property(
        fc.array(actionArb, { minLength: 1, maxLength: 3 }),
        fc.array(actionArb, { maxLength: 3 }),
        rulesArb,
        rulesArb,
        (before, after, rulesBefore, rulesAfter) => {
          const files = desiredState({
            ...withPolicies(
              policy(
                'office',
                rulesAfter.map((r) => [r.action, r.cidr]),
              ),
            ),
            cloud_endpoints: [entry(after)],
          });
          let warnings: readonly Warning[];
          try {
            warnings =
              plan(files, live(before, rulesBefore), NOW, { ...OPTIONS, force: true }).warning_codes ?? [];
          } catch (err) {
            // A policy document the service refuses (a deny with nothing allowed), or a rule order
            // that cannot be kept: not what is judged here.
            if (err instanceof PlanError) return;
            throw err;
          }
          const opened = warnings.filter((w) => w.code === 'opens_to_everyone');
          const expected = !everyone(before, rulesBefore) && everyone(after, rulesAfter);
          expect(opened.length).toBe(expected ? 1 : 0);
          if (!expected) return;
          warned++;
          expect(opened[0]).toMatchObject({
            scope: URL,
            source: 'cloud_endpoints.admin',
            by: after.some((a) => a.enforce) ? 'rules' : 'traffic_policy',
          });
        },
      ),
      { numRuns: 400 },
    );
    expect(warned).toBeGreaterThan(10);
  });
});
