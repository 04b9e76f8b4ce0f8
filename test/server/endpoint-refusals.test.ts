// Every way accord serve refuses an endpoint request (docs/service.md "Errors", "Endpoints"), with its
// status and code, and that a refused request changes nothing; beside it, what it accepts that is close
// to a refusal.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/server/errors.js';
import {
  AGENT_TCP,
  AGENT_WEB,
  ALLOWS,
  DENIES,
  EMPTY,
  restrictIps,
  useEndpointApi,
} from './endpoint-helpers.js';

const service = useEndpointApi();
const base = {
  type: 'cloud',
  url: 'https://app.example.com',
  traffic_policy: restrictIps({ allow: ['0.0.0.0/0'] }),
};
const create = (fields: Record<string, unknown>) => ({ ...base, url: 'https://new.example.com', ...fields });
const policy = (config: Record<string, unknown>, phase?: string) =>
  create({ traffic_policy: restrictIps(config, phase) });
const rule = (r: unknown) => create({ traffic_policy: JSON.stringify({ on_http_request: [r] }) });
const action = (a: unknown) => rule({ actions: [a] });

let app: string;
let tcp: string;
beforeAll(async () => {
  const made = await service.api.call('POST', '/endpoints', base);
  expect(made.status).toBe(201);
  app = made.body.id;
  const tcpMade = await service.api.call('POST', '/endpoints', {
    ...base,
    url: 'tcp://2.tcp.example.com:20002',
  });
  expect(tcpMade.status).toBe(201);
  tcp = tcpMade.body.id;
});

type Row = [what: string, method: string, path: () => string, body: unknown, status: number, code: string];
const POST = (what: string, body: unknown, status: number, code: string): Row => [
  what,
  'POST',
  () => '/endpoints',
  body,
  status,
  code,
];
const PATCH = (what: string, body: unknown, status: number, code: string, id = () => app): Row => [
  what,
  'PATCH',
  () => `/endpoints/${id()}`,
  body,
  status,
  code,
];

const ROWS: Row[] = [
  POST('no url', { type: 'cloud', traffic_policy: base.traffic_policy }, 400, 'ERR_MISSING_FIELD'),
  POST(
    'no type',
    { url: 'https://n.example.com', traffic_policy: base.traffic_policy },
    400,
    'ERR_MISSING_FIELD',
  ),
  POST('no traffic_policy', { type: 'cloud', url: 'https://n.example.com' }, 400, 'ERR_MISSING_FIELD'),
  POST('type agent', create({ type: 'agent' }), 400, 'ERR_NGROK_248'),
  POST('an unknown field', create({ name: 'x' }), 400, 'ERR_UNKNOWN_FIELD'),
  POST('a url that is not a string', create({ url: 5 }), 400, 'ERR_INVALID_FIELD'),
  POST('a description over 255 bytes', create({ description: 'é'.repeat(128) }), 400, 'ERR_FIELD_TOO_LONG'),
  POST('two bindings', create({ bindings: ['public', 'kubernetes'] }), 400, 'ERR_INVALID_FIELD'),
  POST('an unknown binding', create({ bindings: ['private'] }), 400, 'ERR_INVALID_FIELD'),
  POST('pooling_enabled as a string', create({ pooling_enabled: 'true' }), 400, 'ERR_INVALID_FIELD'),
  POST('a url without a scheme', create({ url: 'new.example.com' }), 400, 'ERR_NGROK_18022'),
  POST('a url with scheme ftp', create({ url: 'ftp://new.example.com' }), 400, 'ERR_NGROK_18022'),
  POST('a url with a path', create({ url: 'https://new.example.com/admin' }), 400, 'ERR_NGROK_18001'),
  POST('a url with a user', create({ url: 'https://me@new.example.com' }), 400, 'ERR_NGROK_18001'),
  POST('a url with an IP address', create({ url: 'https://192.0.2.1' }), 400, 'ERR_NGROK_18001'),
  POST('a url with a bad host', create({ url: 'https://-x.example.com' }), 400, 'ERR_NGROK_18001'),
  POST('a tcp url without a port', create({ url: 'tcp://1.tcp.example.com' }), 400, 'ERR_NGROK_18003'),
  POST('a port over 65535', create({ url: 'https://new.example.com:70000' }), 400, 'ERR_NGROK_18003'),
  POST('port 0', create({ url: 'https://new.example.com:0' }), 400, 'ERR_NGROK_18003'),
  POST('the url of a cloud endpoint', create({ url: 'https://App.Example.com:443' }), 409, 'ERR_NGROK_18009'),
  POST('internal binding, public host', create({ bindings: ['internal'] }), 400, 'ERR_NGROK_18014'),
  POST(
    '.internal host, public binding',
    create({ url: 'https://api.internal', bindings: ['public'] }),
    400,
    'ERR_NGROK_18014',
  ),
  POST('a policy that is not YAML', create({ traffic_policy: 'on_http_request: [' }), 400, 'ERR_NGROK_2236'),
  POST(
    'a policy with a key twice',
    create({ traffic_policy: '{"on_tcp_connect": [], "on_tcp_connect": []}' }),
    400,
    'ERR_NGROK_2236',
  ),
  POST(
    'two YAML documents',
    create({ traffic_policy: 'on_tcp_connect: []\n---\non_tcp_connect: []\n' }),
    400,
    'ERR_NGROK_2236',
  ),
  POST('an empty policy', create({ traffic_policy: '' }), 400, 'ERR_NGROK_18002'),
  POST('a policy that is a list', create({ traffic_policy: '[]' }), 400, 'ERR_NGROK_18002'),
  POST('an unknown phase', create({ traffic_policy: 'on_http_reply: []' }), 400, 'ERR_NGROK_18002'),
  POST(
    'a phase that is not a list',
    create({ traffic_policy: 'on_http_request: {}' }),
    400,
    'ERR_NGROK_18002',
  ),
  POST('a phase left empty (null)', create({ traffic_policy: 'on_http_request:' }), 400, 'ERR_NGROK_18002'),
  POST('a rule that is not a mapping', rule('deny'), 400, 'ERR_NGROK_18002'),
  POST('a rule with an unknown field', rule({ action: [{ type: 'deny' }] }), 400, 'ERR_NGROK_18002'),
  POST('a rule without actions', rule({ name: 'x' }), 400, 'ERR_NGROK_18002'),
  POST('a rule with no action', rule({ actions: [] }), 400, 'ERR_NGROK_18002'),
  POST(
    'a rule name that is not a string',
    rule({ name: 1, actions: [{ type: 'deny' }] }),
    400,
    'ERR_NGROK_18002',
  ),
  POST(
    'expressions that are not a list',
    rule({ expressions: 'true', actions: [{ type: 'deny' }] }),
    400,
    'ERR_NGROK_18002',
  ),
  POST(
    'an expression that is not a string',
    rule({ expressions: [true], actions: [{ type: 'deny' }] }),
    400,
    'ERR_NGROK_18002',
  ),
  POST('an action that is not a mapping', action('deny'), 400, 'ERR_NGROK_18002'),
  POST('an action without type', action({ config: {} }), 400, 'ERR_NGROK_18002'),
  POST('an action with an unknown field', action({ type: 'deny', with: {} }), 400, 'ERR_NGROK_18002'),
  POST('a config that is not a mapping', action({ type: 'deny', config: [] }), 400, 'ERR_NGROK_18002'),
  POST(
    'restrict-ips with an unknown field',
    policy({ allow: ['0.0.0.0/0'], allowed: [] }),
    400,
    'ERR_NGROK_18002',
  ),
  POST(
    'restrict-ips enforce "yes"',
    policy({ enforce: 'yes', allow: ['0.0.0.0/0'] }),
    400,
    'ERR_NGROK_18002',
  ),
  POST('restrict-ips allow not a list', policy({ allow: '0.0.0.0/0' }), 400, 'ERR_NGROK_18002'),
  POST(
    'restrict-ips ip_policies not strings',
    policy({ ip_policies: [{ id: ALLOWS }] }),
    400,
    'ERR_NGROK_18002',
  ),
  POST('an allow CIDR that does not parse', policy({ allow: ['10.0.0.0/33'] }), 400, 'ERR_NGROK_1406'),
  POST('an allow address without a mask', policy({ allow: ['10.0.0.1'] }), 400, 'ERR_NGROK_1413'),
  POST(
    'a deny CIDR not at its lowest address',
    policy({ allow: ['0.0.0.0/0'], deny: ['10.1.2.3/16'] }),
    400,
    'ERR_NGROK_1409',
  ),
  POST(
    'an IPv6 CIDR not at its lowest address',
    policy({ allow: ['2001:db8::1/32'] }),
    400,
    'ERR_NGROK_1409',
  ),
  POST(
    'an unknown IP policy',
    policy({ ip_policies: [`ipp_${'2missing'.padEnd(27, '0')}`] }),
    400,
    'ERR_NGROK_2216',
  ),
  POST('an ip_policies entry that is no ID', policy({ ip_policies: ['office'] }), 400, 'ERR_NGROK_2216'),
  POST('deny CIDRs, no allow', policy({ deny: ['10.0.0.0/8'] }), 400, 'ERR_NGROK_393'),
  POST('a policy with only deny rules', policy({ ip_policies: [DENIES] }), 400, 'ERR_NGROK_393'),
  POST(
    'deny and a policy with no rules',
    policy({ deny: ['10.0.0.0/8'], ip_policies: [EMPTY] }),
    400,
    'ERR_NGROK_393',
  ),
  POST(
    '393 in a later rule',
    create({
      traffic_policy: `${restrictIps({ allow: ['0.0.0.0/0'] })}  - actions: [{type: restrict-ips, config: {deny: [10.0.0.0/8]}}]\n`,
    }),
    400,
    'ERR_NGROK_393',
  ),
  POST(
    'an HTTP phase on a tcp endpoint',
    create({ url: 'tcp://3.tcp.example.com:1', traffic_policy: 'on_http_request: []' }),
    400,
    'ERR_NGROK_2230',
  ),
  POST(
    'an HTTP phase on a tls endpoint',
    create({ url: 'tls://t.example.com', traffic_policy: 'on_http_response: []' }),
    400,
    'ERR_NGROK_2230',
  ),
  POST(
    'a body over the limit',
    create({ traffic_policy: `# ${'x'.repeat(131072)}\non_tcp_connect: []` }),
    413,
    'ERR_BODY_TOO_LARGE',
  ),
  PATCH('nothing to change', {}, 400, 'ERR_NGROK_18004'),
  PATCH('only the path ID', { id: 'x' }, 400, 'ERR_INVALID_FIELD'),
  PATCH('the type', { type: 'cloud' }, 400, 'ERR_UNKNOWN_FIELD'),
  PATCH('a url with another scheme', { url: 'http://app.example.com' }, 400, 'ERR_NGROK_18005'),
  PATCH(
    'the url of another cloud endpoint',
    { url: 'tcp://2.tcp.example.com:20002' },
    400,
    'ERR_NGROK_18005',
  ),
  PATCH(
    "another's url, same scheme",
    { url: 'tcp://2.TCP.example.com:20002' },
    409,
    'ERR_NGROK_18009',
    () => tcpTwin,
  ),
  PATCH('a url without a scheme', { url: 'app.example.com' }, 400, 'ERR_NGROK_18022'),
  PATCH('bindings internal', { bindings: ['internal'] }, 400, 'ERR_NGROK_18014'),
  PATCH(
    'a policy that denies only',
    { traffic_policy: restrictIps({ deny: ['10.0.0.0/8'] }) },
    400,
    'ERR_NGROK_393',
  ),
  PATCH('an HTTP phase on tcp', { traffic_policy: 'on_http_request: []' }, 400, 'ERR_NGROK_2230', () => tcp),
  PATCH('an agent endpoint', { description: 'x' }, 400, 'ERR_NGROK_248', () => AGENT_WEB),
  PATCH('an agent endpoint, nothing', {}, 400, 'ERR_NGROK_248', () => AGENT_TCP),
  PATCH(
    'an unknown endpoint',
    { description: 'x' },
    404,
    'ERR_NOT_FOUND',
    () => `ep_${'2missing'.padEnd(27, '0')}`,
  ),
  ['DELETE an agent endpoint', 'DELETE', () => `/endpoints/${AGENT_WEB}`, undefined, 400, 'ERR_NGROK_248'],
  [
    'DELETE an unknown endpoint',
    'DELETE',
    () => `/endpoints/ep_${'2missing'.padEnd(27, '0')}`,
    undefined,
    404,
    'ERR_NOT_FOUND',
  ],
  [
    'DELETE an IP policy an endpoint names',
    'DELETE',
    () => `/ip_policies/${ALLOWS}`,
    undefined,
    409,
    'ERR_NGROK_1420',
  ],
  ['PUT an endpoint', 'PUT', () => `/endpoints/${app}`, {}, 405, 'ERR_METHOD_NOT_ALLOWED'],
  ['list ids that are no IDs', 'GET', () => '/endpoints?ids=ep_1', undefined, 400, 'ERR_INVALID_QUERY'],
  [
    'list urls that are no URLs',
    'GET',
    () => '/endpoints?urls=example.com',
    undefined,
    400,
    'ERR_INVALID_QUERY',
  ],
  [
    'list a bad limit with a filter',
    'GET',
    () => `/endpoints?ids=${AGENT_WEB}&limit=0`,
    undefined,
    400,
    'ERR_INVALID_QUERY',
  ],
  ['list an unknown parameter', 'GET', () => '/endpoints?type=cloud', undefined, 400, 'ERR_INVALID_QUERY'],
];

let tcpTwin: string;

describe('endpoint requests accord serve refuses', () => {
  it.each(ROWS)('%s: %s is a %i %s', async (_what, method, path, body, status, code) => {
    tcpTwin ??= (await service.api.call('POST', '/endpoints', { ...base, url: 'tcp://4.tcp.example.com:4' }))
      .body.id;
    const before = (await service.api.call('GET', '/endpoints')).body;
    const reply = await service.api.call(method, path(), body);
    expect({ status: reply.status, code: reply.body?.error_code }).toEqual({ status, code });
    expect(reply.body.msg).toMatch(/\S/);
    expect((await service.api.call('GET', '/endpoints')).body).toEqual(before);
  });
});

describe("docs/service.md's error table", () => {
  it('lists every code the service answers with, at its status', () => {
    const doc = readFileSync(new URL('../../docs/service.md', import.meta.url), 'utf8');
    const table = new Map(
      [...doc.matchAll(/^\| `(ERR_[A-Z0-9_]+)`\s*\| (\d{3})\s*\|/gm)].map((m) => [m[1], Number(m[2])]),
    );
    expect(Object.fromEntries(Object.keys(ERROR_CODES).map((code) => [code, table.get(code)]))).toEqual(
      ERROR_CODES,
    );
  });
});
