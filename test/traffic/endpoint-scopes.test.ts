// Endpoints as scopes, as tables: which `restrict-ips` actions run always or only sometimes; the
// pictures (listed endpoints, and a throwaway kind with the endpoint role created, patched, deleted);
// a plan that changes only office's rules shown on every endpoint whose policy names office; what
// decides one address; guards by URL and by address; the lockout guard on the most an endpoint lets in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/account/model.js';
import type { DesiredGuard } from '../../src/config/guard-model.js';
import type { Plan, PlanChange } from '../../src/plan/types.js';
import { reachLines } from '../../src/render/reach.js';
import { reachReport, renderReachText } from '../../src/render/reach-report.js';
import { descriptorFor, registerKind } from '../../src/resources/index.js';
import type { Values } from '../../src/resources/types.js';
import { restrictActions } from '../../src/traffic/endpoint-policy.js';
import { liveEndpointScopes } from '../../src/traffic/endpoint-scopes.js';
import { scopeStates } from '../../src/traffic/governance.js';
import { guardBreaches } from '../../src/traffic/guards.js';
import { lockoutGuard, reachJson } from '../../src/traffic/lockout.js';
import { decide, plannedPicture, reachBetween, type TrafficPicture } from '../../src/traffic/reach.js';

const OFFICE = 'ipp_00000000000000000000office1';
const VPN = 'ipp_0000000000000000000000vpn01';
const KIND = 'test_endpoint';

const restrict = (config: Record<string, unknown>) => ({ type: 'restrict-ips', config });
const policyOf = (config: Record<string, unknown>, expressions?: string[]) => ({
  on_http_request: [{ ...(expressions ? { expressions } : {}), actions: [restrict(config)] }],
});

function account(endpoints: { id: string; url: string; document?: Record<string, unknown> }[]): Account {
  return {
    endpoints: endpoints.map((e) => ({ type: 'cloud', document: undefined, ...e })),
  } as unknown as Account;
}

function pictureOf(endpoints: Parameters<typeof account>[0], dashboard = false): TrafficPicture {
  return {
    bindings: new Map(dashboard ? [['endpoints', { enforced: true, policies: [VPN] }]] : []),
    rules: new Map([
      [
        OFFICE,
        [
          { id: 'ipr_1', policy: OFFICE, action: 'allow', cidr: '198.51.100.0/24' },
          { id: 'ipr_2', policy: OFFICE, action: 'allow', cidr: '2001:db8::/32' },
        ],
      ],
      [VPN, [{ id: 'ipr_3', policy: VPN, action: 'allow', cidr: '10.0.0.0/8' }]],
    ]),
    edges: new Set(),
    endpoints: liveEndpointScopes(account(endpoints)),
  };
}

function change(o: Partial<PlanChange> & Pick<PlanChange, 'kind' | 'action'>): PlanChange {
  return {
    address: `${o.kind}.x`,
    key: 'x',
    id: null,
    reasons: [],
    reason_codes: [],
    before: null,
    after: null,
    changed_fields: [],
    drift: {},
    depends_on: [],
    requests: [],
    ...o,
  } as PlanChange;
}

const ruleDelete = (id: string, policy: string, cidr: string) =>
  change({
    kind: 'ip_policy_rule',
    action: 'delete',
    id,
    before: { ip_policy: policy, action: 'allow', cidr },
  });

describe('restrictActions', () => {
  const ra = restrict({ allow: ['10.0.0.0/8'] });
  it.each([
    ['a rule without expressions', { on_tcp_connect: [{ actions: [ra] }] }, [true]],
    ['a rule with expressions', { on_http_request: [{ expressions: ['x'], actions: [ra] }] }, [false]],
    [
      'after a rule that may end the phase',
      { on_http_request: [{ expressions: ['x'], actions: [{ type: 'deny' }] }, { actions: [ra] }] },
      [false],
    ],
    [
      'after an action that may end it (rate-limit)',
      { on_http_request: [{ actions: [{ type: 'rate-limit' }, ra] }] },
      [false],
    ],
    [
      'after one that always ends it',
      { on_http_request: [{ actions: [{ type: 'custom-response' }] }, { actions: [ra] }] },
      [],
    ],
    [
      'after a deny in on_tcp_connect, in on_http_request',
      { on_tcp_connect: [{ actions: [{ type: 'deny' }] }], on_http_request: [{ actions: [ra] }] },
      [],
    ],
    [
      'after forward-internal that continues on error',
      {
        on_http_request: [{ actions: [{ type: 'forward-internal', config: { on_error: 'continue' } }, ra] }],
      },
      [false],
    ],
    ['after add-headers', { on_http_request: [{ actions: [{ type: 'add-headers' }, ra] }] }, [true]],
    ['in on_http_response: never', { on_http_response: [{ actions: [ra] }] }, []],
    [
      'before and after a conditional deny',
      {
        on_tcp_connect: [{ actions: [ra] }],
        on_http_request: [{ expressions: ['x'], actions: [{ type: 'deny' }] }, { actions: [ra] }],
      },
      [true, false],
    ],
  ])('%s', (_name, document, always) => {
    expect(restrictActions(document).map((a) => a.always)).toEqual(always);
  });

  it('reads enforce, CIDRs (a bare address as its block) and policies', () => {
    const [a] = restrictActions(
      policyOf({
        enforce: false,
        allow: ['10.1.2.3', '2001:DB8::/32'],
        deny: ['10.1.2.0/24'],
        ip_policies: [OFFICE],
      }),
    );
    expect(a).toMatchObject({
      enforce: false,
      allow: ['10.1.2.3/32', '2001:db8::/32'],
      deny: ['10.1.2.0/24'],
      policies: [OFFICE],
    });
  });
});

describe('a plan that changes only office rules', () => {
  const before = pictureOf([
    { id: 'ep_1', url: 'https://admin.example.com', document: policyOf({ ip_policies: [OFFICE] }) },
    { id: 'ep_2', url: 'https://app.example.com', document: policyOf({ allow: ['0.0.0.0/0'] }) },
    { id: 'ep_3', url: 'https://maybe.example.com', document: policyOf({ ip_policies: [OFFICE] }, ['x']) },
    {
      id: 'ep_4',
      url: 'tcp://1.tcp.example.com:1234',
      document: {
        on_tcp_connect: [
          { actions: [restrict({ ip_policies: [OFFICE, VPN], deny: ['198.51.100.128/25'] })] },
        ],
      },
    },
  ]);
  const after = plannedPicture(before, [ruleDelete('ipr_1', OFFICE, '198.51.100.0/24')]);
  const reach = reachBetween(before, after);
  const changed = reach.filter(
    (r) => !r.before.equals(r.after) || (r.most && !r.most.before.equals(r.most.after)),
  );

  it('shows every endpoint whose policy names office, with exact let-in and shut-out', () => {
    expect(changed.map((r) => r.scope)).toEqual([
      'https://admin.example.com',
      'https://maybe.example.com',
      'tcp://1.tcp.example.com:1234',
    ]);
    const json = changed.map(reachJson);
    expect(json[0]).toMatchObject({
      shut_out: { cidrs: ['198.51.100.0/24'], addresses: '256' },
      let_in: { cidrs: [] },
    });
    expect(json[0]!.at_least).toBeUndefined();
    expect(json[1]).toMatchObject({
      at_least: { shut_out: { cidrs: ['198.51.100.0/24'] } },
      at_most: { before: { everyone: true }, after: { everyone: true } },
    });
    expect(json[2]).toMatchObject({ shut_out: { cidrs: ['198.51.100.0/25'], addresses: '128' } });
  });

  it('says it in the plan reach lines, a bound at a time where not exact', () => {
    const plan = { reach: changed.map(reachJson), reach_unchanged: ['dashboard'] } as unknown as Plan;
    expect(reachLines(plan)).toEqual([
      'https://admin.example.com: shuts out 198.51.100.0/24 (256 addresses)',
      'https://maybe.example.com: at least shuts out 198.51.100.0/24 (256 addresses); at most unchanged',
      'tcp://1.tcp.example.com:1234: shuts out 198.51.100.0/25 (128 addresses)',
      '1 scope unchanged',
    ]);
  });
});

describe('decide, for an endpoint', () => {
  const picture = pictureOf(
    [
      {
        id: 'ep_1',
        url: 'https://admin.example.com',
        document: {
          on_tcp_connect: [
            { actions: [restrict({ ip_policies: [OFFICE], allow: ['10.0.0.0/8'], deny: ['10.9.0.0/16'] })] },
          ],
          on_http_request: [
            { name: 'admin', expressions: ['x'], actions: [restrict({ allow: ['10.1.0.0/16'] })] },
          ],
        },
      },
    ],
    true,
  );
  it.each([
    [
      '10.1.2.3',
      {
        let: true,
        by: 'restrict-ips',
        verdict: 'allow',
        cidr: '10.0.0.0/8',
        where: 'on_tcp_connect rule 1 action 1',
        sometimes: false,
      },
    ],
    ['10.9.0.1', { let: false, by: 'restrict-ips', verdict: 'deny', cidr: '10.9.0.0/16', sometimes: false }],
    [
      '10.2.0.1',
      {
        let: true,
        by: 'restrict-ips',
        verdict: 'no allow matches',
        where: 'on_http_request rule 1 "admin" action 1',
        sometimes: true,
      },
    ],
    ['198.51.100.7', { let: false, by: 'endpoints restriction', inner: { by: 'no allow matches' } }],
  ])('%s', (address, expected) => {
    expect(decide(picture, 'https://admin.example.com', address)).toMatchObject(expected);
  });
  it('an endpoint the picture does not have lets nobody in', () => {
    expect(decide(picture, 'https://gone.example.com', '10.1.2.3')).toEqual({
      let: false,
      by: 'no endpoint',
    });
  });
});

describe('endpoints of a kind with the endpoint role', () => {
  let restore: () => void;
  beforeAll(() => {
    restore = registerKind({
      ...descriptorFor('certificate_authority'),
      kind: KIND,
      section: 'test_endpoints',
      collectionPath: '/test_endpoints',
      traffic: {
        role: 'endpoint',
        endpoint: (v: Values) => ({
          url: String(v['url']),
          document: v['document'] as Record<string, unknown>,
        }),
      },
    } as never);
  });
  afterAll(() => restore());

  const before = pictureOf([
    { id: 'ep_1', url: 'https://admin.example.com', document: policyOf({ ip_policies: [OFFICE] }) },
    { id: 'ep_2', url: 'https://pool.example.com' },
    { id: 'ep_3', url: 'https://pool.example.com' },
  ]);
  const endpoint = (o: Partial<PlanChange>) => change({ kind: KIND as never, action: 'patch', ...o });

  it('names pooled endpoints URL#ID, matches changes by ID, creates, patches and deletes', () => {
    const after = plannedPicture(before, [
      endpoint({
        id: 'ep_1',
        address: 'test_endpoints.admin',
        after: { url: 'https://admin.example.com', document: policyOf({ ip_policies: [VPN] }) },
      }),
      endpoint({ id: 'ep_2', action: 'delete', address: 'test_endpoints.gone' }),
      endpoint({
        action: 'create',
        address: 'test_endpoints.new',
        after: { url: 'https://pool.example.com', document: policyOf({ allow: ['192.0.2.0/24'] }) },
      }),
    ]);
    expect([...before.endpoints!.keys()]).toEqual([
      'https://admin.example.com',
      'https://pool.example.com#ep_2',
      'https://pool.example.com#ep_3',
    ]);
    expect([...after.endpoints!.keys()].sort()).toEqual([
      'https://admin.example.com',
      'https://pool.example.com#ep_3',
      'https://pool.example.com#test_endpoints.new',
    ]);
    const reach = reachBetween(before, after);
    const admin = reach.find((r) => r.scope === 'https://admin.example.com')!;
    expect(reachJson(admin)).toMatchObject({
      address: 'test_endpoints.admin',
      let_in: { cidrs: ['10.0.0.0/8'] },
      shut_out: { cidrs: ['198.51.100.0/24', '2001:db8::/32'] },
    });
    // Created and deleted endpoints exist on one side only: never a lockout. The admin endpoint moved
    // from office (IPv4 and IPv6) to vpn (IPv4 only) loses every IPv6 address: refused.
    expect(lockoutGuard(reach, after).refusals).toEqual([
      expect.objectContaining({
        code: 'locked_out',
        scope: 'https://admin.example.com',
        family: 6,
        source: 'test_endpoints.admin',
      }),
    ]);
    // A guard names it by its address in the files as well as by its URL.
    const g = {
      scope: 'test_endpoints.admin',
      enforced: false,
      always_let_in: ['198.51.100.0/24'],
      loc: { file: 'g.yaml', line: 1, col: 1 },
    };
    const states = scopeStates(before, after);
    expect(guardBreaches([g], states, 'after').map((b) => [b.scope, b.rule, b.cidrs])).toEqual([
      ['https://admin.example.com', 'always_let_in', ['198.51.100.0/24']],
    ]);
    expect(guardBreaches([g], states, 'before')).toEqual([]);
  });

  it('accord reach shows each endpoint, its address, its bounds and what decides', () => {
    const after = plannedPicture(before, [
      endpoint({
        id: 'ep_1',
        address: 'test_endpoints.admin',
        after: { url: 'https://admin.example.com', document: policyOf({ ip_policies: [OFFICE] }, ['x']) },
      }),
    ]);
    const report = reachReport(
      { before, after },
      new Map([[OFFICE, 'office']]),
      ['198.51.100.7', '192.0.2.1'],
      {
        tool_version: '0',
        api_url: 'https://api.example.com',
        owner: 'o',
        created_at: '2026-01-01T00:00:00Z',
      },
    );
    const text = renderReachText(report);
    expect(text).toContain(
      'endpoint https://admin.example.com (test_endpoints.admin): now 198.51.100.0/24, 2001:db8::/32 (79,228,162,514,264,337,593,543,950,592 addresses); per the files at least 198.51.100.0/24, 2001:db8::/32 (79,228,162,514,264,337,593,543,950,592 addresses) at most everyone (a restrict-ips runs only sometimes)',
    );
    expect(text).toContain(
      '  endpoint https://admin.example.com: now let through (allow 198.51.100.0/24 of office in on_http_request rule 1 action 1); per the files let through (allow 198.51.100.0/24 of office in on_http_request rule 1 action 1 (runs only sometimes))',
    );
    expect(text).toContain(
      '  endpoint https://admin.example.com: now shut out (no allow matches in on_http_request rule 1 action 1); per the files let through only sometimes (shut out only when on_http_request rule 1 action 1 runs: no allow matches)',
    );
    expect(report.format_version).toBe(3);
    expect(report.scopes.find((x) => x.scope === 'https://admin.example.com')).toMatchObject({
      address: 'test_endpoints.admin',
      now: { filter: 'enforced' },
      after: { filter: 'sometimes', at_most: { everyone: true } },
    });
  });
});

describe('guards over endpoints', () => {
  const loc = { file: 'guards.yaml', line: 1, col: 1 };
  const guard = (scope: string, o: Partial<DesiredGuard>): DesiredGuard => ({
    scope,
    enforced: false,
    always_let_in: [],
    loc,
    ...o,
  });
  const picture = pictureOf([
    { id: 'ep_1', url: 'https://admin.example.com', document: policyOf({ ip_policies: [OFFICE] }) },
    { id: 'ep_2', url: 'https://maybe.example.com', document: policyOf({ ip_policies: [OFFICE] }, ['x']) },
    { id: 'ep_3', url: 'https://open.example.com' },
  ]);
  const states = scopeStates(picture, picture).filter((s) => s.scope.includes('://'));
  const breaches = (g: DesiredGuard) =>
    guardBreaches([g], states, 'after').map((b) => [b.scope, b.rule, b.cidrs.join(' '), b.filter ?? '']);

  it.each([
    [
      'always_let_in on the least (breaks where conditional too)',
      guard('all', { always_let_in: ['10.0.0.0/8'] }),
      [
        ['https://admin.example.com', 'always_let_in', '10.0.0.0/8', ''],
        ['https://maybe.example.com', 'always_let_in', '10.0.0.0/8', ''],
      ],
    ],
    [
      'only_let_in on the most',
      guard('https://maybe.example.com', { only_let_in: ['198.51.100.0/24'] }),
      [['https://maybe.example.com', 'only_let_in', expect.stringMatching(/^0\.0\.0\.0\/1 .* ::\/0$/), '']],
    ],
    [
      'always_let_in holds by address of the files too',
      guard('https://maybe.example.com', { always_let_in: ['198.51.100.0/24'] }),
      [],
    ],
    [
      'only_let_in holds on an exact endpoint',
      guard('https://admin.example.com', { only_let_in: ['198.51.100.0/24', '2001:db8::/32'] }),
      [],
    ],
    [
      'enforced: an unconditional enforced restrict-ips',
      guard('all', { enforced: true }),
      [['https://maybe.example.com', 'enforced', '', 'sometimes']],
    ],
    [
      'enforced by URL on an endpoint with no policy',
      guard('https://open.example.com', { enforced: true }),
      [['https://open.example.com', 'enforced', '', 'none']],
    ],
  ])('%s', (_name, g, expected) => {
    expect(breaches(g)).toEqual(expected);
  });
});

describe('the lockout guard over endpoints', () => {
  const before = pictureOf([
    { id: 'ep_1', url: 'https://admin.example.com', document: policyOf({ ip_policies: [OFFICE] }) },
    {
      id: 'ep_2',
      url: 'https://maybe.example.com',
      document: {
        on_http_request: [
          { actions: [restrict({ allow: ['0.0.0.0/0', '::/0'] })] },
          { expressions: ['x'], actions: [restrict({ ip_policies: [OFFICE] })] },
        ],
      },
    },
  ]);
  const refusals = (changes: PlanChange[]) => {
    const after = plannedPicture(before, changes);
    return lockoutGuard(reachBetween(before, after), after).refusals.map((r) =>
      r.code === 'locked_out' ? [r.scope, r.family] : [r.code],
    );
  };
  it.each([
    [
      'every office rule deleted: both families',
      [ruleDelete('ipr_1', OFFICE, '198.51.100.0/24'), ruleDelete('ipr_2', OFFICE, '2001:db8::/32')],
      [['https://admin.example.com', undefined]],
    ],
    [
      'the IPv6 rule deleted: the IPv6 family',
      [ruleDelete('ipr_2', OFFICE, '2001:db8::/32')],
      [['https://admin.example.com', 6]],
    ],
    ['no rule deleted', [], []],
  ])('%s', (_name, changes, expected) => {
    expect(refusals(changes)).toEqual(expected);
  });
  it('judges an endpoint not exact on its most: a conditional action letting nobody in is no lockout', () => {
    const changes = [
      ruleDelete('ipr_1', OFFICE, '198.51.100.0/24'),
      ruleDelete('ipr_2', OFFICE, '2001:db8::/32'),
    ];
    const after = plannedPicture(before, changes);
    const maybe = reachBetween(before, after).find((r) => r.scope === 'https://maybe.example.com')!;
    expect(maybe.after.isEmpty()).toBe(true);
    expect(maybe.most?.after.isEveryone()).toBe(true);
  });
});
