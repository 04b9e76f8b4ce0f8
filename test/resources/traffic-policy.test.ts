// A cloud endpoint's traffic policy: compared as a parsed document (YAML or JSON text, key order,
// quoting and comments are no change), and its change shown as structure in text and Markdown plans.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import type { DesiredState } from '../../src/config/model.js';
import type { Plan } from '../../src/plan/types.js';
import { renderJson } from '../../src/render/json.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { renderText } from '../../src/render/text.js';
import { cloudEndpoint, type DesiredCloudEndpoint } from '../../src/resources/cloud_endpoint.js';
import {
  mapPolicyReferences,
  normalizePolicy,
  type PolicyDocument,
} from '../../src/resources/traffic-policy.js';
import { desiredState, IPP_1, IPP_2, NOW, OPTIONS, policy, withPolicies } from '../plan/fixtures.js';
import { FakeAccount } from '../support/account.js';

const equalField = cloudEndpoint.fields.find((f) => f.name === 'traffic_policy')!.equals!;
const live = (text: string) =>
  cloudEndpoint.normalizeLive({ url: 'https://a.example.com', traffic_policy: text });

const DOCUMENT = {
  on_http_request: [
    {
      name: 'office',
      expressions: ["req.url.path.startsWith('/admin')"],
      actions: [
        {
          type: 'restrict-ips',
          config: { allow: ['2001:db8::/32', '10.0.0.0/8'], ip_policies: [IPP_2, IPP_1] },
        },
      ],
    },
  ],
};

describe('a traffic policy compared as a document', () => {
  it('YAML and JSON texts of one document, in any key order, quoted or not, commented or not, are equal', () => {
    const json = live(JSON.stringify(DOCUMENT))['traffic_policy'];
    const yaml = live(
      [
        '# the admin path',
        'on_http_request:',
        '  - actions:',
        '      - config:',
        `          ip_policies: ["${IPP_1}", ${IPP_2}]`,
        "          allow: ['10.0.0.0/8', 2001:DB8:0::/32] # any case, any order",
        '        type: restrict-ips',
        '    expressions: ["req.url.path.startsWith(\'/admin\')"]',
        '    name: office',
      ].join('\n'),
    )['traffic_policy'];
    expect(equalField(json, yaml)).toBe(true);
    expect(equalField(json, normalizePolicy(DOCUMENT))).toBe(true);
    expect(
      equalField(json, live(JSON.stringify({ on_tcp_connect: DOCUMENT.on_http_request }))['traffic_policy']),
    ).toBe(false);
  });

  it('any reordering of keys and of CIDR and policy lists normalizes to the same document (property)', () => {
    const cidrs = fc.uniqueArray(
      fc.constantFrom('10.0.0.0/8', '192.0.2.0/24', '2001:db8::/32', '198.51.100.7/32'),
      { minLength: 1 },
    );
    fc.assert(
      fc.property(cidrs, fc.boolean(), (allow, flip) => {
        const config = { allow, ip_policies: [IPP_1, IPP_2] };
        const reordered = {
          ip_policies: [IPP_2, IPP_1],
          allow: [...allow].reverse().map((c) => c.toUpperCase()),
        };
        const a: PolicyDocument = {
          on_tcp_connect: [{ actions: [{ type: 'restrict-ips', config: flip ? config : reordered }] }],
        };
        const b: PolicyDocument = {
          on_tcp_connect: [{ actions: [{ config: flip ? reordered : config, type: 'restrict-ips' }] }],
        };
        expect(equalField(normalizePolicy(a), normalizePolicy(b))).toBe(true);
      }),
    );
  });

  it('a text that is no document is its text, which differs from any document', () => {
    expect(live('on_http_request: [')['traffic_policy']).toBe('on_http_request: [');
    expect(live('')['traffic_policy']).toBeUndefined();
  });
});

function endpoint(
  key: string,
  traffic_policy: PolicyDocument,
  url = `https://${key}.example.com`,
): DesiredCloudEndpoint {
  return {
    kind: 'cloud_endpoint',
    key,
    description: '',
    protect: false,
    loc: { file: 'accord.yaml', line: 10, col: 3 },
    url,
    pooling_enabled: false,
    traffic_policy: normalizePolicy(traffic_policy),
  };
}

function planAfter(first: DesiredState, second: DesiredState): Plan {
  const account = new FakeAccount(NOW);
  account.execute(plan(first, account.live(first), NOW, OPTIONS));
  return plan(second, account.live(second), NOW, OPTIONS);
}

const restrict = (config: Record<string, unknown>) => ({ type: 'restrict-ips', config });
const BEFORE = {
  on_tcp_connect: [{ actions: [restrict({ allow: ['0.0.0.0/0'], deny: ['203.0.113.66/32'] })] }],
  on_http_request: [
    { name: 'office', actions: [restrict({ ip_policies: [IPP_1], allow: ['10.0.0.0/8'] })] },
    { name: 'old', actions: [{ type: 'custom-response', config: { status_code: 403 } }] },
    { actions: [{ type: 'forward-internal', config: { url: 'https://a.internal' } }] },
  ],
};
const AFTER = {
  on_tcp_connect: [
    {
      actions: [
        restrict({ allow: ['0.0.0.0/0'], deny: ['203.0.113.66/32', '203.0.113.67/32'], enforce: false }),
      ],
    },
  ],
  on_http_request: [
    {
      name: 'office',
      expressions: ["req.url.path.startsWith('/admin')"],
      actions: [restrict({ ip_policies: [IPP_2, 'office'], allow: ['10.0.0.0/8', '192.0.2.0/24'] })],
    },
    { actions: [{ type: 'forward-internal', config: { url: 'https://b.internal' } }] },
  ],
};

describe('a traffic policy change in the plan', () => {
  const office = withPolicies(policy('office', [['allow', '198.51.100.0/24']]));
  const p = planAfter(
    desiredState({ ...office, cloud_endpoints: [endpoint('admin', BEFORE)] }),
    desiredState({ ...office, cloud_endpoints: [endpoint('admin', AFTER)] }),
  );
  const change = p.changes.find((c) => c.address === 'cloud_endpoints.admin')!;
  const text = renderText(p, { color: false });
  const block = (s: string, from: string) => s.slice(s.indexOf(from), s.indexOf('\n\n', s.indexOf(from)));

  it('is one PATCH of the document, the real IDs in JSON text', () => {
    expect(change.action).toBe('patch');
    expect(change.changed_fields).toEqual(['traffic_policy']);
    expect(change.requests).toHaveLength(1);
    expect(cloudEndpoint.wireBody!(change.requests[0]!.body!)['traffic_policy']).toBe(
      JSON.stringify(change.after!['traffic_policy']),
    );
  });

  it('text: by phase, position or name; each CIDR and policy on its own line', () => {
    expect(block(text, '~ cloud_endpoints.admin')).toMatchInlineSnapshot(`
      "~ cloud_endpoints.admin (ep_0000000000000000000000000m3)
            ~ traffic_policy:
            ~   on_tcp_connect[0]
            ~     restrict-ips (actions[0])
            ~       enforce (none) -> false
            +       deny 203.0.113.67/32
            ~   on_http_request[0] "office"
            +     if req.url.path.startsWith('/admin')
            ~     restrict-ips (actions[0])
            -       ip_policies ipp_000000000000000000000000001
            +       allow 192.0.2.0/24
            +       ip_policies ipp_000000000000000000000000002
            +       ip_policies office (ipp_0000000000000000000000000m1)
            ~   on_http_request[1] (was on_http_request[2])
            ~     forward-internal (actions[0])
            ~       url "https://a.internal" -> "https://b.internal"
            -   on_http_request[1] "old"
            -     custom-response {"status_code":403}"
    `);
  });

  it('Markdown: the same lines', () => {
    const md = renderMarkdown(p);
    expect(block(md, '~ cloud_endpoints.admin')).toMatchInlineSnapshot(`
      "~ cloud_endpoints.admin (ep_0000000000000000000000000m3)
      ~     traffic_policy:
      ~       on_tcp_connect[0]
      ~         restrict-ips (actions[0])
      ~           enforce (none) -> false
      +           deny 203.0.113.67/32
      ~       on_http_request[0] "office"
      +         if req.url.path.startsWith('/admin')
      ~         restrict-ips (actions[0])
      -           ip_policies ipp_000000000000000000000000001
      +           allow 192.0.2.0/24
      +           ip_policies ipp_000000000000000000000000002
      +           ip_policies office (ipp_0000000000000000000000000m1)
      ~       on_http_request[1] (was on_http_request[2])
      ~         forward-internal (actions[0])
      ~           url "https://a.internal" -> "https://b.internal"
      -       on_http_request[1] "old"
      -         custom-response {"status_code":403}"
    `);
  });

  it('JSON: before and after are the documents, as data', () => {
    const json = JSON.parse(renderJson(p)) as Plan;
    const shown = json.changes.find((c) => c.address === 'cloud_endpoints.admin')!;
    expect(shown.before!['traffic_policy']).toEqual(normalizePolicy(BEFORE));
    // The key `office` resolved to the live policy's ID, as every reference.
    const office = p.changes.find((c) => c.address === 'ip_policies.office')!.id!;
    const resolved = mapPolicyReferences(normalizePolicy(AFTER), (ref) => (ref === 'office' ? office : ref));
    expect(shown.after!['traffic_policy']).toEqual(resolved);
  });

  it('a create shows the document as structure too, policies by key', () => {
    const made = planAfter(
      desiredState({}),
      desiredState({ ...office, cloud_endpoints: [endpoint('new', AFTER)] }),
    );
    const out = renderText(made, { color: false });
    expect(block(out, '+ cloud_endpoints.new')).toMatchInlineSnapshot(`
      "+ cloud_endpoints.new
            + url = "https://new.example.com"
            + pooling_enabled = false
            + traffic_policy:
            +   on_tcp_connect[0]
            +     restrict-ips
            +       enforce false
            +       allow 0.0.0.0/0
            +       deny 203.0.113.66/32
            +       deny 203.0.113.67/32
            +   on_http_request[0] "office"
            +     if req.url.path.startsWith('/admin')
            +     restrict-ips
            +       allow 10.0.0.0/8
            +       allow 192.0.2.0/24
            +       ip_policies office (known after apply)
            +       ip_policies ipp_000000000000000000000000002
            +   on_http_request[1]
            +     forward-internal {"url":"https://b.internal"}
            + marker = "platform/new""
    `);
  });
});
