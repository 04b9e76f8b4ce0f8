// No IP policy is deleted while an endpoint's traffic policy names it (a `restrict-ips` action's
// `ip_policies`, any phase): the plan errors naming the endpoint, and an endpoint change that stops
// naming the policy goes before the policy's delete (shared/SPEC-endpoints.md "What the service does
// not say"). Endpoints are seen as the account lists them (src/account/endpoints.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountOf, type LiveState } from '../../src/account/model.js';
import { plan } from '../../src/cli/worded-plan.js';
import { PlanError } from '../../src/plan/planner.js';
import type { PlanChange } from '../../src/plan/types.js';
import { type ManagedDescriptor, type ResourceKind, registerKind } from '../../src/resources/index.js';
import { orderPolicyDeletes } from '../../src/traffic/holders.js';
import {
  desiredState,
  emptyLive,
  livePolicy,
  liveRule,
  marker,
  NOW,
  OPTIONS,
  policy,
  withPolicies,
} from '../plan/fixtures.js';

const P1 = 'ipp_000000000000000000000000p01';
const P2 = 'ipp_000000000000000000000000p02';
const EP = 'ep_000000000000000000000000001';
const URL = 'https://admin.example.com';

const restricting = (phase: string, policies: string[]) => ({
  [phase]: [
    { expressions: ["req.url.path.startsWith('/admin')"], actions: [{ type: 'custom-response' }] },
    { actions: [{ type: 'restrict-ips', config: { ip_policies: policies, allow: ['10.0.0.0/8'] } }] },
  ],
});

/** The account: `office` (P1) with one rule, and an endpoint listed with this traffic policy text. */
function account(endpoints: LiveState['endpoints']): LiveState {
  const live = emptyLive();
  live.managed.ip_policy = [livePolicy(P1, { metadata: marker('office') })];
  live.managed.ip_policy_rule = [
    liveRule('ipr_o1', P1, ['allow', '10.0.0.0/8'], { metadata: marker('office/10.0.0.0/8') }),
  ];
  return { ...live, ...(endpoints === undefined ? {} : { endpoints }) };
}

const endpoint = (document: unknown) => ({
  id: EP,
  type: 'agent',
  url: URL,
  traffic_policy: JSON.stringify(document),
});

function problems(run: () => unknown): string[] {
  try {
    run();
  } catch (err) {
    if (err instanceof PlanError) return err.messages;
    throw err;
  }
  return [];
}

describe('a policy an endpoint names is never deleted', () => {
  it('is a plan error naming the endpoint, in whatever phase its restrict-ips is', () => {
    for (const phase of ['on_tcp_connect', 'on_http_request', 'on_http_response']) {
      const live = account([endpoint(restricting(phase, [P1]))]);
      const found = problems(() => plan(desiredState({}), live, NOW, OPTIONS));
      expect(found.join('\n'), phase).toContain(
        `ip_policies.office: would delete ${P1}, which endpoint ${URL} (${EP}: its traffic policy) still names after this plan`,
      );
    }
  });

  it('goes ahead when no endpoint names it, and reads a YAML traffic policy as well as JSON', () => {
    const other = account([endpoint(restricting('on_http_request', [P2]))]);
    expect(plan(desiredState({}), other, NOW, OPTIONS).changes.map((c) => c.action)).toContain('delete');
    const yaml = `on_tcp_connect:\n  - actions:\n      - type: restrict-ips\n        config:\n          ip_policies: [${P1}]\n`;
    const named = account([{ ...endpoint({}), traffic_policy: yaml }]);
    expect(problems(() => plan(desiredState({}), named, NOW, OPTIONS)).join('\n')).toContain(URL);
  });

  it('warns that traffic policies may name it when the endpoints could not be listed', () => {
    const unavailable = account('unavailable');
    expect(plan(desiredState({}), unavailable, NOW, OPTIONS).warnings).toContain(
      `ip_policies.office: the service has no list of endpoints, so endpoint traffic policies may still name ${P1}; check them before applying`,
    );
    const listed = account([]);
    expect(plan(desiredState({}), listed, NOW, OPTIONS).warnings.join('\n')).not.toContain('endpoint');
  });

  it("warns that no endpoint's reach is shown when a rule changes and the service has no list of them", () => {
    const widened = desiredState(
      withPolicies(
        policy('office', [
          ['allow', '10.0.0.0/8'],
          ['allow', '192.0.2.0/24'],
        ]),
      ),
    );
    const unlisted =
      "the service has no list of endpoints (GET /endpoints), so this plan's reach shows no endpoint and no guard or lockout check covers one; check endpoints' traffic policies that name the policies it changes";
    expect(plan(widened, account('unavailable'), NOW, OPTIONS).warnings).toContain(unlisted);
    expect(plan(widened, account([]), NOW, OPTIONS).warnings).not.toContain(unlisted);
    const same = desiredState(withPolicies(policy('office', [['allow', '10.0.0.0/8']])));
    expect(plan(same, account('unavailable'), NOW, OPTIONS).warnings).not.toContain(unlisted);
  });
});

describe('an endpoint change that stops naming the policy', () => {
  // A kind with the endpoint traffic role, as the registry may hold one: what the holders ask of it.
  const testEndpoints = {
    kind: 'test_endpoint',
    section: 'test_endpoints',
    traffic: {
      role: 'endpoint',
      endpoint: (values: Readonly<Record<string, unknown>>) => ({
        url: String(values['url']),
        document: values['traffic_policy'] as Readonly<Record<string, unknown>>,
      }),
    },
  } as unknown as ManagedDescriptor;
  let restore: () => void = () => {};
  beforeAll(() => {
    restore = registerKind(testEndpoints);
  });
  afterAll(() => restore());

  const change = (o: Partial<PlanChange>): PlanChange => ({
    address: '',
    kind: 'ip_policy',
    key: '',
    id: null,
    action: 'no-op',
    reasons: [],
    reason_codes: [],
    before: null,
    after: null,
    changed_fields: [],
    drift: {},
    depends_on: [],
    requests: [],
    ...o,
  });
  const deleteOffice = () =>
    change({ address: 'ip_policies.office', key: 'office', id: P1, action: 'delete', before: {} });
  const endpointChange = (action: PlanChange['action'], policies: string[]) =>
    change({
      address: 'test_endpoints.admin',
      kind: 'test_endpoint' as ResourceKind,
      key: 'admin',
      id: action === 'create' ? null : EP,
      action,
      after:
        action === 'delete' ? null : { url: URL, traffic_policy: restricting('on_http_request', policies) },
    });
  const live = accountOf(account([endpoint(restricting('on_http_request', [P1]))]));

  it('goes first: a PATCH to another policy, or the endpoint deleted', () => {
    for (const action of ['patch', 'delete'] as const) {
      const d = deleteOffice();
      expect(orderPolicyDeletes([endpointChange(action, [P2]), d], live), action).toEqual([]);
      expect(d.depends_on, action).toEqual(['test_endpoints.admin']);
    }
  });

  it('is a problem while the endpoint still names it after the plan, or a new one does', () => {
    const kept = orderPolicyDeletes([endpointChange('patch', [P1, P2]), deleteOffice()], live);
    expect(kept).toEqual([
      expect.objectContaining({
        code: 'policy_still_named',
        holders: [{ is: 'endpoint', id: EP, url: URL }],
      }),
    ]);
    const fresh = orderPolicyDeletes(
      [endpointChange('create', [P1]), deleteOffice()],
      accountOf(account([])),
    );
    expect(fresh).toEqual([
      expect.objectContaining({ holders: [{ is: 'new_endpoint', address: 'test_endpoints.admin' }] }),
    ]);
  });
});
