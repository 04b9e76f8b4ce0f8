// The official clients' dialect (DESIGN §7) over raw HTTP: each form means the same as the spec's,
// a contradiction is a 400 that says so, and everything else unknown is still refused.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, HTTPS_EDGE, OFFICE, startApi, TCP_EDGE, VPN, WS_ROUTE } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.server.close());

/** What the official clients send instead of Service-Version. */
const ngrok = { 'service-version': null, 'ngrok-version': '2' };
const tcpModule = `/edges/tcp/${TCP_EDGE}/ip_restriction`;
const wsModule = `/edges/https/${HTTPS_EDGE}/routes/${WS_ROUTE}/websocket_tcp_converter`;
const ref = (id: string) => ({ id, uri: `${api.server.url}/ip_policies/${id}` });

/** Sends without any Service-Version header (the helper adds one unless told otherwise). */
async function withHeaders(path: string, headers: Record<string, string>) {
  const res = await fetch(api.server.url + path, {
    headers: { authorization: 'Bearer test-key', ...headers },
  });
  return { status: res.status, body: (await res.json()) as { error_code?: string; msg?: string } };
}

describe('the version header', () => {
  it('may be Ngrok-Version: 2 instead of Service-Version: 2', async () => {
    expect((await withHeaders('/ip_policies', { 'ngrok-version': '2' })).status).toBe(200);
    expect((await withHeaders('/ip_policies', { 'ngrok-version': '2', 'service-version': '2' })).status).toBe(
      200,
    );
  });

  it.each([
    [{}, 'ERR_NGROK_218', 'Service-Version: 2'],
    [{ 'ngrok-version': '3' }, 'ERR_NGROK_217', 'Ngrok-Version "3"'],
    [{ 'ngrok-version': '' }, 'ERR_NGROK_217', 'Ngrok-Version ""'],
    [{ 'ngrok-version': '1', 'service-version': '2' }, 'ERR_NGROK_217', 'Ngrok-Version "1"'],
    [{ 'ngrok-version': '2', 'service-version': '1' }, 'ERR_NGROK_217', 'Service-Version "1"'],
  ])('is refused as %j (%s)', async (headers, code, said) => {
    const res = await withHeaders('/ip_policies', headers);
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe(code);
    expect(res.body.msg).toContain(said);
  });
});

describe('IDs of the path repeated in the body', () => {
  it('are accepted on PATCH when they match, and refused naming both when they do not', async () => {
    const made = await api.call(
      'POST',
      '/ip_restrictions',
      { type: 'agent', ip_policy_ids: [OFFICE] },
      ngrok,
    );
    const id = made.body.id as string;
    const same = await api.call('PATCH', `/ip_restrictions/${id}`, { id, description: 'same' }, ngrok);
    expect(same.status).toBe(200);
    expect(same.body).toEqual({ ...made.body, description: 'same' });
    const other = `ipx_${'2other'.padEnd(27, '0')}`;
    const moved = await api.call('PATCH', `/ip_restrictions/${id}`, { id: other, description: 'x' });
    expect(moved.status).toBe(400);
    expect(moved.body.error_code).toBe('ERR_INVALID_FIELD');
    expect(moved.body.msg).toContain(other);
    expect(moved.body.msg).toContain(id);
    const numeric = await api.call('PATCH', `/ip_restrictions/${id}`, { id: 7 });
    expect(numeric.body.error_code).toBe('ERR_INVALID_FIELD');
    expect((await api.call('GET', `/ip_restrictions/${id}`)).body.description).toBe('same');
    await api.call('DELETE', `/ip_restrictions/${id}`);
  });

  it('are accepted on a route create (edge_id), and refused when they name another edge', async () => {
    const body = { edge_id: HTTPS_EDGE, match_type: 'path_prefix', match: '/repeat' };
    const made = await api.call('POST', `/edges/https/${HTTPS_EDGE}/routes`, body, ngrok);
    expect(made.status).toBe(201);
    expect(made.body).not.toHaveProperty('edge_id');
    expect(made.body.uri).toBe(`${api.server.url}/edges/https/${HTTPS_EDGE}/routes/${made.body.id}`);
    const other = await api.call('POST', `/edges/https/${HTTPS_EDGE}/routes`, { ...body, edge_id: TCP_EDGE });
    expect(other.status).toBe(400);
    expect(other.body.msg).toContain(TCP_EDGE);
  });

  it.each([
    ['POST', '/ip_restrictions', { id: 'ipx_x', type: 'api', ip_policy_ids: [OFFICE] }, 'id'],
    ['POST', '/ip_policies', { id: 'ipp_x' }, 'id'],
    ['PUT', tcpModule, { edge_id: TCP_EDGE, ip_policy_ids: [OFFICE] }, 'edge_id'],
    ['PUT', tcpModule, { module: { id: TCP_EDGE, ip_policy_ids: [OFFICE] } }, 'id'],
    ['PATCH', `/ssh_host_certificates/shcrt_${'1'.repeat(27)}`, { uri: 'x' }, 'uri'],
  ])(
    'are still unknown fields where the path has no such ID: %s %s %j',
    async (method, path, body, field) => {
      const res = await api.call(method, path, body);
      expect(res.status).toBe(400);
      expect(res.body.error_code).toBe('ERR_UNKNOWN_FIELD');
      expect(res.body.msg).toContain(`"${field}"`);
    },
  );
});

describe('module PUT bodies', () => {
  it('may wrap the module, with the IDs of the path, and mean the same as the flat form', async () => {
    const wrapped = await api.call(
      'PUT',
      tcpModule,
      { id: TCP_EDGE, module: { enabled: false, ip_policy_ids: [VPN] } },
      ngrok,
    );
    expect(wrapped.status).toBe(200);
    expect(wrapped.body).toEqual({ enabled: false, ip_policies: [ref(VPN)] });
    expect((await api.call('GET', tcpModule)).body).toEqual(wrapped.body);
    const flat = await api.call('PUT', tcpModule, { enabled: false, ip_policy_ids: [VPN] });
    expect(flat.body).toEqual(wrapped.body);
    const ws = await api.call('PUT', wsModule, {
      edge_id: HTTPS_EDGE,
      id: WS_ROUTE,
      module: { enabled: false },
    });
    expect(ws.body).toEqual({ enabled: false });
    expect((await api.call('PUT', wsModule, { module: {} })).body).toEqual({ enabled: true });
    await api.call('DELETE', tcpModule);
    await api.call('DELETE', wsModule);
  });

  it.each([
    [tcpModule, { module: { ip_policy_ids: [OFFICE] }, enabled: true }, 'ERR_INVALID_FIELD', '"enabled"'],
    [tcpModule, { module: [OFFICE] }, 'ERR_INVALID_FIELD', 'JSON object'],
    [tcpModule, { module: null }, 'ERR_INVALID_FIELD', 'JSON object'],
    [tcpModule, { module: { ip_policy_ids: [OFFICE], extra: 1 } }, 'ERR_UNKNOWN_FIELD', '"extra"'],
    [tcpModule, { module: { enabled: true } }, 'ERR_MISSING_FIELD', 'ip_policy_ids'],
    [tcpModule, { module: { ip_policy_ids: [] } }, 'ERR_INVALID_FIELD', 'ip_policy_ids'],
    [
      tcpModule,
      { id: `edgtcp_${'3'.repeat(27)}`, module: { ip_policy_ids: [OFFICE] } },
      'ERR_INVALID_FIELD',
      TCP_EDGE,
    ],
    [wsModule, { edge_id: TCP_EDGE, id: WS_ROUTE, module: {} }, 'ERR_INVALID_FIELD', '"edge_id"'],
  ])('refuses %s %j (%s)', async (path, body, code, said) => {
    const res = await api.call('PUT', path, body);
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe(code);
    expect(res.body.msg).toContain(said);
    expect((await api.call('GET', path)).status).toBe(404);
  });
});

describe('list paging', () => {
  it('takes beforeId as before_id, and refuses both together', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await api.call('POST', '/edges/tcp', {})).body.id);
    const snake = await api.call('GET', `/edges/tcp?limit=2&before_id=${ids[3]}`);
    const camel = await api.call('GET', `/edges/tcp?beforeId=${ids[3]}&limit=2`, undefined, ngrok);
    expect(camel.status).toBe(200);
    expect(camel.body.tcp_edges).toEqual(snake.body.tcp_edges);
    expect(camel.body.tcp_edges.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1]]);
    expect(camel.body.next_page_uri).toBe(snake.body.next_page_uri);
    expect(camel.body.next_page_uri).toBe(`${api.server.url}/edges/tcp?limit=2&before_id=${ids[1]}`);
    const both = await api.call('GET', `/edges/tcp?before_id=${ids[3]}&beforeId=${ids[3]}`);
    expect(both.status).toBe(400);
    expect(both.body.error_code).toBe('ERR_INVALID_QUERY');
    expect(both.body.msg).toContain('"before_id" and "beforeId"');
    const bad = await api.call('GET', '/edges/tcp?beforeId=ipp_x');
    expect(bad.body.error_code).toBe('ERR_INVALID_QUERY');
    expect(bad.body.msg).toContain('"beforeId"');
    expect((await api.call('GET', '/edges/tcp?before=1')).body.error_code).toBe('ERR_INVALID_QUERY');
    expect((await api.call('GET', '/edges/tcp?BeforeId=1')).body.error_code).toBe('ERR_INVALID_QUERY');
    for (const id of ids) await api.call('DELETE', `/edges/tcp/${id}`);
  });
});

describe('an empty ip_policy_ids', () => {
  it('is refused with 1804 on PATCH as on create, and changes nothing', async () => {
    const made = await api.call('POST', '/ip_restrictions', {
      type: 'endpoints',
      ip_policy_ids: [OFFICE, VPN],
    });
    const id = made.body.id as string;
    const kept = await api.call('PATCH', `/ip_restrictions/${id}`, { ip_policy_ids: [], enforced: true });
    expect(kept.status).toBe(400);
    expect(kept.body.error_code).toBe('ERR_NGROK_1804');
    expect((await api.call('GET', `/ip_restrictions/${id}`)).body).toEqual(made.body);
    const empty = await api.call('POST', '/ip_restrictions', { type: 'api', ip_policy_ids: [] });
    expect(empty.body.error_code).toBe('ERR_NGROK_1804');
    await api.call('DELETE', `/ip_restrictions/${id}`);
  });
});

// Two equal objects, one updated in the spec's form and the other in a client's dialect, stay equal
// (apart from their identity) through any sequence of updates.
describe('the dialect means the same as the spec form', () => {
  const identity = (o: Record<string, unknown>) => {
    const { id: _id, uri: _uri, created_at: _created, type: _type, ...rest } = o;
    return rest;
  };
  const policies = fc.subarray([OFFICE, VPN], { minLength: 1 });

  it('for IP restriction updates', async () => {
    const a = (await api.call('POST', '/ip_restrictions', { type: 'api', ip_policy_ids: [OFFICE] })).body.id;
    const b = (await api.call('POST', '/ip_restrictions', { type: 'dashboard', ip_policy_ids: [OFFICE] }))
      .body.id;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record(
              {
                description: fc.string({ maxLength: 8 }),
                metadata: fc.string({ maxLength: 8 }),
                enforced: fc.boolean(),
                ip_policy_ids: policies,
              },
              { requiredKeys: [] },
            ),
            { maxLength: 5 },
          ),
          async (updates) => {
            for (const update of updates) {
              const spec = await api.call('PATCH', `/ip_restrictions/${a}`, update);
              // The TypeScript client sends the path's id in the body.
              const dialect = { id: b, ...update };
              const other = await api.call('PATCH', `/ip_restrictions/${b}`, dialect, ngrok);
              expect(other.status).toBe(spec.status);
              expect(identity(other.body)).toEqual(identity(spec.body));
            }
          },
        ),
        { numRuns: 25 },
      );
    } finally {
      await api.call('DELETE', `/ip_restrictions/${a}`);
      await api.call('DELETE', `/ip_restrictions/${b}`);
    }
  });

  it('for module replaces', async () => {
    const edge = (await api.call('POST', '/edges/tcp', {})).body.id as string;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.record({ enabled: fc.boolean(), ip_policy_ids: policies }, { requiredKeys: ['ip_policy_ids'] }),
          async (module) => {
            const flat = await api.call('PUT', tcpModule, module);
            const wrapped = await api.call(
              'PUT',
              `/edges/tcp/${edge}/ip_restriction`,
              { id: edge, module },
              ngrok,
            );
            expect(wrapped.status).toBe(200);
            expect(wrapped.body).toEqual(flat.body);
            const stored = await api.call('GET', `/edges/tcp/${edge}/ip_restriction`);
            expect(stored.body).toEqual((await api.call('GET', tcpModule)).body);
          },
        ),
        { numRuns: 25 },
      );
    } finally {
      await api.call('DELETE', tcpModule);
      await api.call('DELETE', `/edges/tcp/${edge}`);
    }
  });
});
