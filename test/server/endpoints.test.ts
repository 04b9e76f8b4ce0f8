// Endpoints as accord serve implements them (shared/SPEC-endpoints.md): cloud endpoints created, read,
// listed, patched and deleted, with the fields their URL gives; traffic policies kept as sent; agent
// endpoints from the seed, read-only; IP policies a traffic policy names kept; every answer of the
// shape the official OpenAPI description gives. Refusals: endpoint-refusals.test.ts; lists and their
// filters: endpoint-lists.test.ts.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { SeedError, startServer } from '../../src/server/index.js';
import { AGENT_TCP, AGENT_WEB, ALLOWS, restrictIps, useEndpointApi } from './endpoint-helpers.js';
import type { Reply } from './helpers.js';

let clock = new Date('2027-03-01T10:00:00Z');
const service = useEndpointApi({ now: () => clock });
const ID = /^ep_[0-9A-Za-z]{27}$/;
const SEEDED = `ep_${'2a'.padEnd(27, '0')}`;

// The official description's Endpoint, every field we answer one it names, of its type. Its
// EndpointList gives next_page_uri as a string; the service, as SPEC.md says, answers null on the last page.
const OPENAPI = JSON.parse(readFileSync(new URL('./ngrok-openapi-endpoint.json', import.meta.url), 'utf8'));
const local = (schema: unknown) =>
  JSON.parse(JSON.stringify(schema).replaceAll('#/components/schemas/', '#/definitions/'));
const ajv = new Ajv({ strict: false, allErrors: true });
const definitions = {
  Ref: { ...local(OPENAPI.Ref), required: ['id', 'uri'], additionalProperties: false },
  Endpoint: { ...local(OPENAPI.Endpoint), additionalProperties: false },
};
const isEndpoint = ajv.compile({ $ref: '#/definitions/Endpoint', definitions });
const list = local(OPENAPI.EndpointList);
list.properties.next_page_uri = { type: ['string', 'null'] };
const isEndpointList = ajv.compile({
  ...list,
  required: ['endpoints', 'uri', 'next_page_uri'],
  additionalProperties: false,
  definitions,
});

function ofOpenApiShape(body: unknown, validate = isEndpoint): void {
  expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
}

const POLICY = restrictIps({ allow: ['0.0.0.0/0', '::/0'], deny: ['192.0.2.0/24'], ip_policies: [ALLOWS] });

describe('cloud endpoints', () => {
  let admin: Reply['body'];
  it('are created, read and listed', async () => {
    const { api } = service;
    const made = await api.call('POST', '/endpoints', {
      type: 'cloud',
      url: 'https://admin.example.com',
      traffic_policy: POLICY,
      description: 'admin',
      metadata: '{"team":"ops"}',
      pooling_enabled: true,
    });
    expect(made.status).toBe(201);
    const e = made.body;
    expect(e).toEqual({
      id: expect.stringMatching(ID),
      uri: `${api.server.url}/endpoints/${e.id}`,
      created_at: '2027-03-01T10:00:00Z',
      updated_at: '2027-03-01T10:00:00Z',
      description: 'admin',
      metadata: '{"team":"ops"}',
      type: 'cloud',
      url: 'https://admin.example.com',
      proto: 'https',
      scheme: 'https',
      host: 'admin.example.com',
      port: 443,
      hostport: 'admin.example.com:443',
      public_url: 'https://admin.example.com',
      bindings: ['public'],
      pooling_enabled: true,
      traffic_policy: POLICY,
      name: '',
      region: '',
    });
    ofOpenApiShape(e);
    expect((await api.call('GET', `/endpoints/${e.id}`)).body).toEqual(e);
    const listed = (await api.call('GET', '/endpoints')).body;
    ofOpenApiShape(listed, isEndpointList);
    expect(listed.endpoints[0]).toEqual(e);
    admin = e;
  });

  it('are patched (their old URL freed) and deleted', async () => {
    const { api } = service;
    const e = admin;

    clock = new Date('2027-03-02T10:00:00Z');
    const json =
      '{"on_http_request": [{"name": "ops", "expressions": ["req.url.path.startsWith(\'/admin\')"], "actions": [{"type": "restrict-ips", "config": {"enforce": false, "allow": ["10.0.0.0/8"]}}, {"type": "custom-response", "config": {"status_code": 403}}]}]}';
    const patched = await api.call('PATCH', `/endpoints/${e.id}`, {
      url: 'https://Admin2.example.com:443',
      traffic_policy: json,
      description: 'admin two',
      bindings: ['public'],
      pooling_enabled: false,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({
      ...e,
      updated_at: '2027-03-02T10:00:00Z',
      url: 'https://Admin2.example.com:443',
      host: 'admin2.example.com',
      hostport: 'admin2.example.com:443',
      public_url: 'https://admin2.example.com',
      traffic_policy: json,
      description: 'admin two',
      pooling_enabled: false,
    });
    expect((await api.call('GET', `/endpoints/${e.id}`)).body).toEqual(patched.body);
    // Its old URL is free again.
    const reuse = await api.call('POST', '/endpoints', {
      type: 'cloud',
      url: 'https://admin.example.com',
      traffic_policy: '{}',
    });
    expect(reuse.status).toBe(201);

    for (const id of [e.id, reuse.body.id]) {
      const gone = await api.call('DELETE', `/endpoints/${id}`);
      expect(gone.status).toBe(204);
      expect(gone.text).toBe('');
      expect((await api.call('GET', `/endpoints/${id}`)).body.error_code).toBe('ERR_NOT_FOUND');
    }
  });

  it.each([
    ['https://app.example.com', 'https', 'app.example.com', 443, 'https://app.example.com', 'public'],
    [
      'HTTPS://APP.example.com:8443',
      'https',
      'app.example.com',
      8443,
      'https://app.example.com:8443',
      'public',
    ],
    ['http://plain.example.com', 'http', 'plain.example.com', 80, 'http://plain.example.com', 'public'],
    [
      'http://plain.example.com:443',
      'http',
      'plain.example.com',
      443,
      'http://plain.example.com:443',
      'public',
    ],
    ['tls://secure.example.com', 'tls', 'secure.example.com', 443, 'tls://secure.example.com', 'public'],
    [
      'tcp://5.tcp.example.com:21234',
      'tcp',
      '5.tcp.example.com',
      21234,
      'tcp://5.tcp.example.com:21234',
      'public',
    ],
    [
      'https://*.wild.example.com',
      'https',
      '*.wild.example.com',
      443,
      'https://*.wild.example.com',
      'public',
    ],
    ['https://billing.internal', 'https', 'billing.internal', 443, 'https://billing.internal', 'internal'],
  ])(
    '%s: proto %s, host %s, port %i, public_url %s, bindings [%s]',
    async (url, proto, host, port, publicUrl, binding) => {
      const made = await service.api.call('POST', '/endpoints', {
        type: 'cloud',
        url,
        traffic_policy: 'on_tcp_connect: []',
      });
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({
        url,
        proto,
        scheme: proto,
        host,
        port,
        hostport: `${host}:${port}`,
        public_url: publicUrl,
        bindings: [binding],
      });
      ofOpenApiShape(made.body);
      await service.api.call('DELETE', `/endpoints/${made.body.id}`);
    },
  );

  it('keep the traffic policy exactly as sent: comments, quoting, key order and spacing', async () => {
    const text =
      "# who may reach the admin\non_tcp_connect:   # first\n  - actions:\n    - config: { ip_policies: ['" +
      ALLOWS +
      '\'] }\n      type: "restrict-ips"\n\n\n';
    const made = await service.api.call('POST', '/endpoints', {
      type: 'cloud',
      url: 'tcp://6.tcp.example.com:1',
      traffic_policy: text,
    });
    expect(made.status).toBe(201);
    expect((await service.api.call('GET', `/endpoints/${made.body.id}`)).body.traffic_policy).toBe(text);
    await service.api.call('DELETE', `/endpoints/${made.body.id}`);
  });

  it('take any action type beside restrict-ips, as data', async () => {
    const text =
      'on_http_request:\n  - actions:\n      - type: rate-limit\n        config: { capacity: 10, rate: 60s, bucket_key: [conn.client_ip] }\n      - type: deny\n';
    const made = await service.api.call('POST', '/endpoints', {
      type: 'cloud',
      url: 'https://rl.example.com',
      traffic_policy: text,
    });
    expect(made.status).toBe(201);
    await service.api.call('DELETE', `/endpoints/${made.body.id}`);
  });
});

describe('IP policies named by traffic policies', () => {
  it('are not deleted while a cloud endpoint names one, and are once it no longer does', async () => {
    const { api } = service;
    const policy = (await api.call('POST', '/ip_policies', { description: 'temp' })).body.id as string;
    await api.call('POST', '/ip_policy_rules', { ip_policy_id: policy, cidr: '10.0.0.0/8', action: 'allow' });
    const e = (
      await api.call('POST', '/endpoints', {
        type: 'cloud',
        url: 'https://named.example.com',
        traffic_policy: restrictIps({ ip_policies: [policy] }),
      })
    ).body;
    const refused = await api.call('DELETE', `/ip_policies/${policy}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error_code).toBe('ERR_NGROK_1420');
    expect(refused.body.msg).toContain(`${e.id} (https://named.example.com)`);
    expect((await api.call('GET', `/ip_policies/${policy}`)).status).toBe(200);
    expect(
      (
        await api.call('PATCH', `/endpoints/${e.id}`, {
          traffic_policy: restrictIps({ allow: ['10.0.0.0/8'] }),
        })
      ).status,
    ).toBe(200);
    expect((await api.call('DELETE', `/ip_policies/${policy}`)).status).toBe(204);
    await api.call('DELETE', `/endpoints/${e.id}`);
  });
});

describe('agent endpoints from the seed', () => {
  it('are read and listed with what the seed gives them, and are read-only', async () => {
    const { api } = service;
    const web = (await api.call('GET', `/endpoints/${AGENT_WEB}`)).body;
    expect(web).toMatchObject({
      id: AGENT_WEB,
      type: 'agent',
      url: 'https://web.example.com',
      upstream_url: 'http://localhost:8080',
      upstream_protocol: 'http1',
      region: 'eu',
      traffic_policy: expect.stringContaining(ALLOWS),
    });
    const tcp = (await api.call('GET', `/endpoints/${AGENT_TCP}`)).body;
    expect(tcp).toMatchObject({
      type: 'agent',
      proto: 'tcp',
      port: 20001,
      traffic_policy: '',
      bindings: ['public'],
    });
    for (const e of [web, tcp]) ofOpenApiShape(e);
    // Seeded endpoints are the oldest: last in the list.
    const ids = (await api.call('GET', '/endpoints')).body.endpoints.map((e: { id: string }) => e.id);
    expect(ids.slice(-2)).toEqual([AGENT_WEB, AGENT_TCP]);
    for (const [method, body] of [
      ['PATCH', { pooling_enabled: true }],
      ['DELETE', undefined],
    ] as const) {
      const refused = await api.call(method, `/endpoints/${AGENT_WEB}`, body);
      expect({ status: refused.status, code: refused.body.error_code }).toEqual({
        status: 400,
        code: 'ERR_NGROK_248',
      });
    }
    expect((await api.call('GET', `/endpoints/${AGENT_WEB}`)).body).toEqual(web);
  });

  it("leave their URL to a cloud endpoint: a URL is one cloud endpoint's, not an agent's", async () => {
    const made = await service.api.call('POST', '/endpoints', {
      type: 'cloud',
      url: 'https://web.example.com',
      traffic_policy: '{}',
    });
    expect(made.status).toBe(201);
    await service.api.call('DELETE', `/endpoints/${made.body.id}`);
  });
});

describe("the seed file's endpoints", () => {
  const dir = mkdtempSync(join(tmpdir(), 'accord-endpoint-seed-'));
  const seed = (text: string) => {
    const file = join(dir, `${Math.random()}.yaml`);
    writeFileSync(file, text);
    return file;
  };
  it.each([
    [
      `endpoints:\n  - id: ${SEEDED}\n    type: agent\n    url: ftp://x.example.com\n`,
      /:2:5: endpoints\[0\]: field "url": "ftp:\/\/x\.example\.com" has the scheme "ftp"/,
    ],
    [
      `endpoints:\n  - id: ${SEEDED}\n    type: agent\n    url: https://x.example.com\n    traffic_policy: "on_tcp_connect: [{actions: [{type: restrict-ips, config: {deny: [10.0.0.0/8]}}]}]"\n`,
      /endpoints\[0\]: field "traffic_policy": on_tcp_connect\[0\]\.actions\[0\]\.config denies CIDRs but allows none/,
    ],
    [
      `endpoints:\n  - id: ${SEEDED}\n    type: edge\n    url: https://x.example.com\n`,
      /endpoints\[0\]: field "type" must be one of "cloud", "agent"/,
    ],
    [
      `endpoints:\n  - id: ipp_${'2a'.padEnd(27, '0')}\n    type: agent\n    url: https://x.example.com\n`,
      /endpoints\[0\]: "id" must be an ID of this kind/,
    ],
    [
      `endpoints:\n  - id: ${SEEDED}\n    type: cloud\n    url: https://x.example.com\n`,
      /endpoints\[0\]: field "traffic_policy" is empty/,
    ],
  ])('refuse a bad entry: %j', async (text, message) => {
    const err = await startServer({ port: 0, seed: seed(text) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SeedError);
    expect((err as Error).message).toMatch(message);
  });
});
