// What the production service refuses, `accord serve` refuses with the same code
// (shared/SPEC-ip-policies.md "What the production service refuses"): one request per code, over
// real HTTP, and the TCP edge object carrying its IP restriction module inline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, OFFICE, startApi, TCP_EDGE, VPN } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startApi({ limits: { policies: 4, rulesPerPolicy: 2 } });
});
afterAll(() => api.server.close());

const missing = (prefix: string) => `${prefix}_${'2missing'.padEnd(27, '0')}`;

async function policy(): Promise<string> {
  const made = await api.call('POST', '/ip_policies', {});
  expect(made.status).toBe(201);
  return made.body.id as string;
}

async function rule(ipPolicyId: string, cidr: string, action = 'allow') {
  return api.call('POST', '/ip_policy_rules', { ip_policy_id: ipPolicyId, cidr, action });
}

describe('accord serve refuses as the production service does, with its codes', () => {
  it.each([
    ['1406', 'a CIDR that does not parse', { cidr: '10.0.0.300/32' }],
    ['1409', 'a CIDR not written with the lowest address', { cidr: '10.1.2.3/16' }],
    ['1413', 'a CIDR without a mask', { cidr: '192.0.2.7' }],
    ['1414', 'an ip_policy_id that is not an ID', { ip_policy_id: 'office' }],
    ['1422', 'an action other than allow or deny', { action: 'block' }],
  ])('ERR_NGROK_%s: %s (400)', async (code, _what, change) => {
    const refused = await api.call('POST', '/ip_policy_rules', {
      ip_policy_id: OFFICE,
      cidr: '192.0.2.0/24',
      action: 'allow',
      ...change,
    });
    expect(refused).toMatchObject({
      status: 400,
      body: { error_code: `ERR_NGROK_${code}`, status_code: 400 },
    });
  });

  it('ERR_NGROK_1408: a second rule with a CIDR the policy holds, whatever the action (400)', async () => {
    const p = await policy();
    expect((await rule(p, '2001:db8::/32')).status).toBe(201);
    const twice = await rule(p, '2001:0db8::/32', 'deny');
    expect(twice).toMatchObject({ status: 400, body: { error_code: 'ERR_NGROK_1408' } });
    expect(twice.body.msg).toContain('IP Policy Rule with CIDR 2001:db8::/32 already exists');
    await api.call('DELETE', `/ip_policies/${p}`);
  });

  it('ERR_NGROK_1410, 1411: more policies or rules than the account has (400)', async () => {
    // The seed holds two policies; this service allows four, two rules in each.
    const made = [await policy(), await policy()];
    const third = await api.call('POST', '/ip_policies', {});
    expect(third).toMatchObject({ status: 400, body: { error_code: 'ERR_NGROK_1410' } });
    expect(third.body.msg).toContain('4 IP policies');
    const p = made[0]!;
    expect((await rule(p, '10.0.0.0/8')).status).toBe(201);
    expect((await rule(p, '172.16.0.0/12', 'deny')).status).toBe(201);
    const over = await rule(p, '192.168.0.0/16');
    expect(over).toMatchObject({ status: 400, body: { error_code: 'ERR_NGROK_1411' } });
    expect(over.body.msg).toContain(`IP policy ${p} already has 2 rules`);
    for (const id of made) expect((await api.call('DELETE', `/ip_policies/${id}`)).status).toBe(204);
    expect((await api.call('POST', '/ip_policies', {})).status).toBe(201);
  });

  it('ERR_NGROK_1419: the only rule of a policy the dashboard restriction uses (409)', async () => {
    const p = await policy();
    const only = await rule(p, '203.0.113.0/24');
    const dashboard = await api.call('POST', '/ip_restrictions', { type: 'dashboard', ip_policy_ids: [p] });
    const refused = await api.call('DELETE', `/ip_policy_rules/${only.body.id}`);
    expect(refused).toMatchObject({ status: 409, body: { error_code: 'ERR_NGROK_1419' } });
    expect(refused.body.msg).toContain(dashboard.body.id);
    // With its replacement in place first, the old rule goes.
    const next = await rule(p, '198.51.100.0/24');
    expect((await api.call('DELETE', `/ip_policy_rules/${only.body.id}`)).status).toBe(204);
    expect((await api.call('DELETE', `/ip_policy_rules/${next.body.id}`)).body.error_code).toBe(
      'ERR_NGROK_1419',
    );
    // Another type's restriction does not hold the rule.
    await api.call('PATCH', `/ip_restrictions/${dashboard.body.id}`, { ip_policy_ids: [OFFICE] });
    const agent = await api.call('POST', '/ip_restrictions', { type: 'agent', ip_policy_ids: [p] });
    expect((await api.call('DELETE', `/ip_policy_rules/${next.body.id}`)).status).toBe(204);
    for (const r of [dashboard, agent]) await api.call('DELETE', `/ip_restrictions/${r.body.id}`);
    await api.call('DELETE', `/ip_policies/${p}`);
  });

  it('ERR_NGROK_1420: a policy IP restrictions name, naming them (409)', async () => {
    const p = await policy();
    const api1 = await api.call('POST', '/ip_restrictions', { type: 'api', ip_policy_ids: [p, VPN] });
    const refused = await api.call('DELETE', `/ip_policies/${p}`);
    expect(refused).toMatchObject({ status: 409, body: { error_code: 'ERR_NGROK_1420' } });
    expect(refused.body.msg).toContain(`${api1.body.id} (api)`);
    await api.call('DELETE', `/ip_restrictions/${api1.body.id}`);
    expect((await api.call('DELETE', `/ip_policies/${p}`)).status).toBe(204);
  });

  it('ERR_NGROK_1801, 1802, 1804: restrictions naming no policy, a missing one, or a taken type', async () => {
    const none = await api.call('POST', '/ip_restrictions', { type: 'endpoints', ip_policy_ids: [] });
    expect(none).toMatchObject({ status: 400, body: { error_code: 'ERR_NGROK_1804' } });
    const absent = await api.call('POST', '/ip_restrictions', {
      type: 'endpoints',
      ip_policy_ids: [missing('ipp')],
    });
    expect(absent).toMatchObject({ status: 400, body: { error_code: 'ERR_NGROK_1801' } });
    const first = await api.call('POST', '/ip_restrictions', { type: 'endpoints', ip_policy_ids: [OFFICE] });
    const second = await api.call('POST', '/ip_restrictions', { type: 'endpoints', ip_policy_ids: [VPN] });
    expect(second).toMatchObject({ status: 409, body: { error_code: 'ERR_NGROK_1802' } });
    await api.call('DELETE', `/ip_restrictions/${first.body.id}`);
  });

  it('ERR_NGROK_218, 217: the version header missing or not supported (400); either name alone is enough', async () => {
    const none = await api.call('GET', '/ip_policies', undefined, { 'service-version': null });
    expect(none).toMatchObject({ status: 400, body: { error_code: 'ERR_NGROK_218' } });
    const other = await api.call('GET', '/ip_policies', undefined, {
      'service-version': null,
      'ngrok-version': '1',
    });
    expect(other).toMatchObject({ status: 400, body: { error_code: 'ERR_NGROK_217' } });
    const spec = await api.call('GET', '/ip_policies', undefined, { 'service-version': '2' });
    const production = await api.call('GET', '/ip_policies', undefined, {
      'service-version': null,
      'ngrok-version': '2',
    });
    const both = await api.call('GET', '/ip_policies', undefined, { 'ngrok-version': '2' });
    for (const reply of [spec, production, both]) expect(reply.status).toBe(200);
  });

  it('ERR_NGROK_226: too many requests (429, with Retry-After)', async () => {
    const limited = await startApi({ rateLimit: { requests: 1, perSeconds: 60 } });
    try {
      expect((await limited.call('GET', '/ip_policies')).status).toBe(200);
      const refused = await limited.call('GET', '/ip_policies');
      expect(refused).toMatchObject({ status: 429, body: { error_code: 'ERR_NGROK_226', status_code: 429 } });
      expect(refused.headers.get('retry-after')).toBe('60');
    } finally {
      await limited.server.close();
    }
  });
});

describe("a TCP edge's IP restriction module, inline in the edge object", () => {
  it('is null until PUT, then the module, in the edge and in the list, and null again after DELETE', async () => {
    const edge = `/edges/tcp/${TCP_EDGE}`;
    const inList = async () =>
      (
        (await api.call('GET', '/edges/tcp')).body.tcp_edges as { id: string; ip_restriction: unknown }[]
      ).find((e) => e.id === TCP_EDGE)?.ip_restriction;
    expect((await api.call('GET', edge)).body.ip_restriction).toBeNull();
    expect(await inList()).toBeNull();
    const put = await api.call('PUT', `${edge}/ip_restriction`, { enabled: false, ip_policy_ids: [OFFICE] });
    expect(put.body).toEqual({
      enabled: false,
      ip_policies: [{ id: OFFICE, uri: `${api.server.url}/ip_policies/${OFFICE}` }],
    });
    expect((await api.call('GET', edge)).body.ip_restriction).toEqual(put.body);
    expect(await inList()).toEqual(put.body);
    expect((await api.call('DELETE', `${edge}/ip_restriction`)).status).toBe(204);
    expect((await api.call('GET', edge)).body.ip_restriction).toBeNull();
    expect(await inList()).toBeNull();
    const created = await api.call('POST', '/edges/tcp', { hostports: ['db2.example.com:5432'] });
    expect(created.body.ip_restriction).toBeNull();
  });
});
