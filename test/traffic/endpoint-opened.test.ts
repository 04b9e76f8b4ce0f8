// An endpoint opened to everyone (docs/reach.md "The lockout guard on endpoints"): a plan after which
// every connection from every address reaches an endpoint that some connection could not reach today
// warns (`opens_to_everyone`), `by: traffic_policy` when no enforced restrict-ips runs after, `rules`
// when the ones left let everyone in; an endpoint created, deleted, still bounded, or opened only by the
// account-wide `endpoints` restriction says nothing of its own.
import { describe, expect, it } from 'vitest';
import type { LiveState } from '../../src/account/model.js';
import { validate } from '../../src/apply/generated/plan-validator.js';
import { plan } from '../../src/cli/worded-plan.js';
import type { DesiredState } from '../../src/config/model.js';
import type { Warning } from '../../src/plan/types.js';
import { warningText } from '../../src/render/warnings.js';
import type { DesiredCloudEndpoint } from '../../src/resources/cloud_endpoint.js';
import type { LiveObject } from '../../src/resources/values.js';
import {
  desiredState,
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
const URL = 'https://admin.example.com';
const AGENT = 'https://agent.example.com';
const today = { everyone: false, cidrs: ['10.0.0.0/8'], addresses: '16777216' };

type Doc = Record<string, unknown>;
const restrict = (config: Doc, expressions?: string[]): Doc => ({
  on_http_request: [{ ...(expressions ? { expressions } : {}), actions: [{ type: 'restrict-ips', config }] }],
});
const headersOnly: Doc = {
  on_http_request: [{ actions: [{ type: 'add-headers', config: { headers: { a: 'b' } } }] }],
};

function liveEndpoint(id: string, url: string, document: Doc, type = 'cloud', key = 'admin'): LiveObject {
  return {
    id,
    type,
    url,
    created_at: '2026-01-01T00:00:00Z',
    description: '',
    ...(type === 'cloud' ? { metadata: marker(key) } : {}),
    pooling_enabled: false,
    traffic_policy: JSON.stringify(document),
  };
}

/** office (allow 10.0.0.0/8), the endpoint admin restricting to it, and an agent endpoint naming it too. */
function live(o: { endpoints?: boolean; agent?: boolean; own?: Doc } = {}): LiveState {
  const admin = liveEndpoint('ep_1', URL, o.own ?? restrict({ ip_policies: [P] }));
  const agent = liveEndpoint('ep_2', AGENT, restrict({ ip_policies: [P] }), 'agent');
  const state = liveState({
    ip_policy: [livePolicy(P, { metadata: marker('office') })],
    ip_policy_rule: [
      liveRule('ipr_1', P, ['allow', '10.0.0.0/8'], { metadata: marker('office/10.0.0.0/8') }),
    ],
    ip_restriction: o.endpoints
      ? [liveIpr('ipx_1', { metadata: marker('eps'), type: 'endpoints' }, [P])]
      : [],
    cloud_endpoint: [admin],
  });
  return { ...state, endpoints: [admin, ...(o.agent ? [agent] : [])] };
}

function endpoint(document: Doc): DesiredCloudEndpoint {
  return {
    kind: 'cloud_endpoint',
    key: 'admin',
    description: '',
    protect: false,
    loc: { file: '/w/accord.yaml', line: 1, col: 1 },
    url: URL,
    pooling_enabled: false,
    traffic_policy: document,
  } as unknown as DesiredCloudEndpoint;
}

const office = (...rules: RuleSpec[]) => withPolicies(policy('office', [['allow', '10.0.0.0/8'], ...rules]));
const files = (document: Doc | undefined, parts: Partial<DesiredState> = office()) =>
  desiredState({ ...parts, cloud_endpoints: document ? [endpoint(document)] : [] });
const opened = (warnings: readonly Warning[] = []) => warnings.filter((w) => w.code === 'opens_to_everyone');
const everyone = office(['allow', '0.0.0.0/0'], ['allow', '::/0']);

describe('opens_to_everyone for endpoints', () => {
  it.each<[string, DesiredState, LiveState, Warning[]]>([
    [
      'its restrict-ips removed',
      files(headersOnly),
      live(),
      [
        {
          code: 'opens_to_everyone',
          scope: URL,
          by: 'traffic_policy',
          source: 'cloud_endpoints.admin',
          today,
        },
      ],
    ],
    [
      'its restrict-ips made enforce: false',
      files(restrict({ ip_policies: ['office'], enforce: false })),
      live(),
      [
        {
          code: 'opens_to_everyone',
          scope: URL,
          by: 'traffic_policy',
          source: 'cloud_endpoints.admin',
          today,
        },
      ],
    ],
    [
      'its restrict-ips put after a deny that always ends the processing',
      files({
        on_tcp_connect: [{ expressions: ['conn.client_ip == "192.0.2.1"'], actions: [{ type: 'deny' }] }],
        on_http_request: [
          { actions: [{ type: 'custom-response', config: { status_code: 200 } }] },
          { actions: [{ type: 'restrict-ips', config: { ip_policies: ['office'] } }] },
        ],
      }),
      live(),
      [
        {
          code: 'opens_to_everyone',
          scope: URL,
          by: 'traffic_policy',
          source: 'cloud_endpoints.admin',
          today,
        },
      ],
    ],
    [
      'the policy it names letting every address in',
      files(restrict({ ip_policies: ['office'] }), everyone),
      live(),
      [{ code: 'opens_to_everyone', scope: URL, by: 'rules', source: 'cloud_endpoints.admin', today }],
    ],
    [
      'its own CIDRs letting every address in',
      files(restrict({ allow: ['0.0.0.0/0', '::/0'] })),
      live(),
      [{ code: 'opens_to_everyone', scope: URL, by: 'rules', source: 'cloud_endpoints.admin', today }],
    ],
    [
      'an agent endpoint whose policy comes to let everyone in (no source: the files do not manage it)',
      files(restrict({ ip_policies: ['office'] }), everyone),
      live({ agent: true }),
      [
        { code: 'opens_to_everyone', scope: URL, by: 'rules', source: 'cloud_endpoints.admin', today },
        { code: 'opens_to_everyone', scope: AGENT, by: 'rules', today },
      ],
    ],
    [
      'its restrict-ips made conditional: some connection is still restricted',
      files(restrict({ ip_policies: ['office'] }, ['true'])),
      live(),
      [],
    ],
    ['the endpoint deleted', files(undefined), live(), []],
    ['open today: nothing to say', files(headersOnly), live({ own: headersOnly }), []],
  ])('%s', (_, desired, account, warnings) => {
    const p = plan(desired, account, NOW, { ...OPTIONS, force: true });
    expect(opened(p.warning_codes)).toEqual(warnings);
    expect(validate(JSON.parse(JSON.stringify(p)))).toBe(true);
  });

  it('an endpoint opened only by the account-wide endpoints restriction going is that scope’s warning', () => {
    const p = plan(files(headersOnly), live({ endpoints: true, own: headersOnly }), NOW, OPTIONS);
    expect(opened(p.warning_codes)).toEqual([
      { code: 'opens_to_everyone', scope: 'endpoints', by: 'deleted', source: 'ip_restrictions.eps', today },
    ]);
  });

  it('both going: the restriction and the endpoint each warn', () => {
    const p = plan(files(headersOnly), live({ endpoints: true }), NOW, OPTIONS);
    expect(opened(p.warning_codes).map((w) => [w.scope, 'by' in w ? w.by : ''])).toEqual([
      ['endpoints', 'deleted'],
      [URL, 'traffic_policy'],
    ]);
  });

  it.each<[Warning, string]>([
    [
      { code: 'opens_to_everyone', scope: URL, by: 'traffic_policy', source: 'cloud_endpoints.admin', today },
      'endpoint https://admin.example.com: everyone would be let through (today: only 10.0.0.0/8): after this plan the traffic policy of cloud_endpoints.admin has no enforced restrict-ips that runs; keep one (enforce: true, before any action that always ends the processing) if it is to keep restricting',
    ],
    [
      { code: 'opens_to_everyone', scope: AGENT, by: 'rules', today },
      "endpoint https://agent.example.com: everyone would be let through (today: only 10.0.0.0/8): after this plan the restrict-ips actions of its traffic policy let every address in (through the policies they name or their own CIDRs); a guard's only_let_in refuses such a plan",
    ],
  ])('says %o', (w, text) => {
    expect(warningText(w)).toBe(text);
  });
});
