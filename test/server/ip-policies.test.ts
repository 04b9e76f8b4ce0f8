// IP policies and their rules as accord serve implements them (shared/SPEC-ip-policies.md): update of
// policies, the rules' lowest-address CIDR, one CIDR per policy whatever the action, the fixed action
// and policy, the policy that must exist, policies named by an IP restriction kept (1420), policies named
// only by a TCP edge's module deletable with their rules, and the seed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, OFFICE, startApi, TCP_EDGE, VPN } from './helpers.js';

const ID = (prefix: string) => new RegExp(`^${prefix}_[0-9A-Za-z]{27}$`);
const missing = (prefix: string) => `${prefix}_${'2missing'.padEnd(27, '0')}`;

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.server.close());

async function policy(description = 'p'): Promise<string> {
  const made = await api.call('POST', '/ip_policies', { description });
  expect(made.status).toBe(201);
  return made.body.id as string;
}

async function rule(ipPolicyId: string, cidr: string, action = 'allow') {
  return api.call('POST', '/ip_policy_rules', { ip_policy_id: ipPolicyId, cidr, action });
}

describe('IP policies', () => {
  it('are created, read, listed, updated and deleted', async () => {
    const created = await api.call('POST', '/ip_policies', { description: 'office', metadata: '{"a":1}' });
    expect(created.status).toBe(201);
    const p = created.body;
    expect(p).toEqual({
      id: expect.stringMatching(ID('ipp')),
      uri: `${api.server.url}/ip_policies/${p.id}`,
      created_at: expect.any(String),
      description: 'office',
      metadata: '{"a":1}',
    });
    expect((await api.call('GET', `/ip_policies/${p.id}`)).body).toEqual(p);
    expect((await api.call('GET', '/ip_policies?limit=1')).body.ip_policies).toEqual([p]);
    const patched = await api.call('PATCH', `/ip_policies/${p.id}`, { description: 'office (new)' });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...p, description: 'office (new)' });
    expect((await api.call('PATCH', `/ip_policies/${p.id}`, { metadata: 'm' })).body).toEqual({
      ...p,
      description: 'office (new)',
      metadata: 'm',
    });
    // The policy's action of older API versions is neither sent nor read.
    const action = await api.call('PATCH', `/ip_policies/${p.id}`, { action: 'allow' });
    expect(action.body).toMatchObject({ status_code: 400, error_code: 'ERR_UNKNOWN_FIELD' });
    expect((await api.call('POST', '/ip_policies', { action: 'allow' })).status).toBe(400);
    expect((await api.call('DELETE', `/ip_policies/${p.id}`)).status).toBe(204);
    expect((await api.call('GET', `/ip_policies/${p.id}`)).status).toBe(404);
    expect((await api.call('PATCH', `/ip_policies/${p.id}`, {})).status).toBe(404);
  });

  it('are not deleted while an IP restriction names them (1420, naming the restrictions)', async () => {
    const p = await policy('named');
    await rule(p, '192.0.2.0/24');
    const agent = await api.call('POST', '/ip_restrictions', { type: 'agent', ip_policy_ids: [p, VPN] });
    const api2 = await api.call('POST', '/ip_restrictions', { type: 'api', ip_policy_ids: [p] });
    const refused = await api.call('DELETE', `/ip_policies/${p}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ status_code: 409, error_code: 'ERR_NGROK_1420' });
    for (const r of [agent, api2]) expect(refused.body.msg).toContain(`${r.body.id} (${r.body.type})`);
    expect((await api.call('GET', `/ip_policies/${p}`)).status).toBe(200);
    await api.call('PATCH', `/ip_restrictions/${agent.body.id}`, { ip_policy_ids: [VPN] });
    const still = await api.call('DELETE', `/ip_policies/${p}`);
    expect(still.body.error_code).toBe('ERR_NGROK_1420');
    expect(still.body.msg).toContain(api2.body.id);
    expect(still.body.msg).not.toContain(agent.body.id);
    await api.call('DELETE', `/ip_restrictions/${api2.body.id}`);
    expect((await api.call('DELETE', `/ip_policies/${p}`)).status).toBe(204);
    await api.call('DELETE', `/ip_restrictions/${agent.body.id}`);
  });

  it("are deleted while a TCP edge's module names them, their rules with them; the module keeps the reference", async () => {
    const p = await policy('referenced');
    const kept = await rule(p, '192.0.2.0/24');
    expect(kept.status).toBe(201);
    const tcpModule = `/edges/tcp/${TCP_EDGE}/ip_restriction`;
    expect((await api.call('PUT', tcpModule, { ip_policy_ids: [p] })).status).toBe(200);

    expect((await api.call('DELETE', `/ip_policies/${p}`)).status).toBe(204);
    expect((await api.call('GET', `/ip_policy_rules/${kept.body.id}`)).status).toBe(404);
    const listed = (await api.call('GET', '/ip_policy_rules')).body.ip_policy_rules as { id: string }[];
    expect(listed.map((r) => r.id)).not.toContain(kept.body.id);
    const ref = { id: p, uri: `${api.server.url}/ip_policies/${p}` };
    expect((await api.call('GET', tcpModule)).body.ip_policies).toEqual([ref]);
    expect((await api.call('GET', `/edges/tcp/${TCP_EDGE}`)).body.ip_restriction.ip_policies).toEqual([ref]);
    // A new reference to it is refused like any other missing policy.
    const again = await api.call('PUT', tcpModule, { ip_policy_ids: [p] });
    expect(again.body.error_code).toBe('ERR_REFERENCE_NOT_FOUND');
    await api.call('DELETE', tcpModule);
  });
});

describe('IP policy rules', () => {
  it('are created, read, updated (description, metadata, cidr) and deleted', async () => {
    const p = await policy();
    const created = await api.call('POST', '/ip_policy_rules', {
      ip_policy_id: p,
      cidr: '203.0.113.0/24',
      action: 'allow',
      description: 'office',
      metadata: 'm',
    });
    expect(created.status).toBe(201);
    const r = created.body;
    expect(r).toEqual({
      id: expect.stringMatching(ID('ipr')),
      uri: `${api.server.url}/ip_policy_rules/${r.id}`,
      created_at: expect.any(String),
      description: 'office',
      metadata: 'm',
      cidr: '203.0.113.0/24',
      ip_policy: { id: p, uri: `${api.server.url}/ip_policies/${p}` },
      action: 'allow',
    });
    expect((await api.call('GET', `/ip_policy_rules/${r.id}`)).body).toEqual(r);
    const patched = await api.call('PATCH', `/ip_policy_rules/${r.id}`, {
      cidr: '203.0.112.0/23',
      description: 'wider',
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...r, cidr: '203.0.112.0/23', description: 'wider' });
    // Its own CIDR again, in another spelling: not a duplicate of itself.
    expect((await api.call('PATCH', `/ip_policy_rules/${r.id}`, { cidr: '203.0.112.0/23' })).status).toBe(
      200,
    );
    expect((await api.call('DELETE', `/ip_policy_rules/${r.id}`)).status).toBe(204);
    expect((await api.call('GET', `/ip_policy_rules/${r.id}`)).status).toBe(404);
  });

  it('list every rule of the account, newest first, page by page', async () => {
    const a = await policy('a');
    const b = await policy('b');
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await rule(i % 2 === 0 ? a : b, `10.${i}.0.0/16`)).body.id);
    const seen: string[] = [];
    let next: string | null = '/ip_policy_rules?limit=2';
    while (next) {
      const page = await api.call('GET', next);
      expect(page.status).toBe(200);
      expect(page.body.ip_policy_rules.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.ip_policy_rules.map((r: { id: string }) => r.id));
      next = page.body.next_page_uri;
    }
    expect(seen.slice(0, 5)).toEqual([...made].reverse());
    expect(new Set(seen).size).toBe(seen.length);
    // The seeded policies' rules are listed too (examples/seed.yaml).
    const policies = new Set(
      (await api.call('GET', '/ip_policy_rules')).body.ip_policy_rules.map(
        (r: { ip_policy: { id: string } }) => r.ip_policy.id,
      ),
    );
    expect([...policies]).toEqual(expect.arrayContaining([a, b, OFFICE, VPN]));
  });

  it.each([
    // [what, body, error_code, message part]
    [
      'a CIDR not written with its lowest address',
      { cidr: '10.1.2.3/16' },
      'ERR_NGROK_1409',
      'write 10.1.0.0/16',
    ],
    ['an IPv6 one', { cidr: '2001:db8::1/32' }, 'ERR_NGROK_1409', 'write 2001:db8::/32'],
    ['an address without a prefix length', { cidr: '10.0.0.1' }, 'ERR_NGROK_1413', 'a single address is /32'],
    ['an IPv6 address without one', { cidr: '2001:db8::1' }, 'ERR_NGROK_1413', 'a single address is /128'],
    ['a prefix length out of range', { cidr: '10.0.0.0/33' }, 'ERR_NGROK_1406', 'from 0 to 32'],
    ['a CIDR that is no address', { cidr: 'office' }, 'ERR_NGROK_1406', 'is not a CIDR range'],
    ['an empty CIDR', { cidr: '' }, 'ERR_INVALID_FIELD', 'field "cidr"'],
    ['another action', { action: 'block' }, 'ERR_NGROK_1422', 'must be one of "allow", "deny"'],
    ['no action', { action: undefined }, 'ERR_MISSING_FIELD', '"action"'],
    ['no CIDR', { cidr: undefined }, 'ERR_MISSING_FIELD', '"cidr"'],
    ['no policy', { ip_policy_id: undefined }, 'ERR_MISSING_FIELD', '"ip_policy_id"'],
    [
      'a policy that does not exist',
      { ip_policy_id: missing('ipp') },
      'ERR_REFERENCE_NOT_FOUND',
      'IP policy',
    ],
    ['a policy ID of another form', { ip_policy_id: 'ipx_1' }, 'ERR_NGROK_1414', 'must be an IP policy ID'],
    ['an unknown field', { enabled: true }, 'ERR_UNKNOWN_FIELD', '"enabled"'],
  ])('refuses to create a rule with %s (400)', async (_what, change, code, part) => {
    const body = { ip_policy_id: OFFICE, cidr: '192.0.2.0/24', action: 'deny', ...change };
    const refused = await api.call('POST', '/ip_policy_rules', JSON.parse(JSON.stringify(body)));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ status_code: 400, error_code: code });
    expect(refused.body.msg).toContain(part);
  });

  it.each([
    ['the same CIDR', '198.18.0.0/15', 'allow', 'deny'],
    ['the same CIDR with the other action', '198.18.0.0/15', 'deny', 'allow'],
    ['the same IPv6 range in another spelling', '2001:0DB8:0000::/48', 'allow', 'deny'],
  ])('refuses %s twice in one policy, whatever the action', async (_what, cidr, first, second) => {
    const p = await policy();
    const canonical = cidr.startsWith('2001') ? '2001:db8::/48' : cidr;
    const made = await rule(p, canonical, first);
    expect(made.status).toBe(201);
    const twice = await rule(p, cidr, second);
    expect(twice.status).toBe(400);
    expect(twice.body.error_code).toBe('ERR_NGROK_1408');
    expect(twice.body.msg).toContain(`IP Policy Rule with CIDR ${canonical} already exists`);
    // Another policy may hold it.
    expect((await rule(await policy(), cidr, second)).status).toBe(201);
  });

  it('refuses a CIDR update to a range the policy already holds, or one not written with its lowest address', async () => {
    const p = await policy();
    await rule(p, '192.0.2.0/25');
    const other = (await rule(p, '192.0.2.128/25', 'deny')).body;
    const taken = await api.call('PATCH', `/ip_policy_rules/${other.id}`, { cidr: '192.0.2.0/25' });
    expect(taken.body.error_code).toBe('ERR_NGROK_1408');
    const notLowest = await api.call('PATCH', `/ip_policy_rules/${other.id}`, { cidr: '192.0.2.129/25' });
    expect(notLowest.body).toMatchObject({ error_code: 'ERR_NGROK_1409' });
    expect(notLowest.body.msg).toContain('write 192.0.2.128/25');
    expect((await api.call('GET', `/ip_policy_rules/${other.id}`)).body.cidr).toBe('192.0.2.128/25');
  });

  it.each([
    ['action', { action: 'deny' }],
    ['ip_policy_id', { ip_policy_id: VPN }],
  ])('keeps %s fixed: an update that names it is refused', async (field, change) => {
    const r = (await rule(await policy(), '100.64.0.0/10')).body;
    const refused = await api.call('PATCH', `/ip_policy_rules/${r.id}`, change);
    expect(refused.body).toMatchObject({ status_code: 400, error_code: 'ERR_UNKNOWN_FIELD' });
    expect(refused.body.msg).toContain(`field "${field}" cannot be changed once the object exists`);
    expect((await api.call('GET', `/ip_policy_rules/${r.id}`)).body).toEqual(r);
  });
});

describe('the seed', () => {
  it('holds policies with rules, at fixed IDs', async () => {
    const rules = (await api.call('GET', '/ip_policy_rules')).body.ip_policy_rules as {
      id: string;
      cidr: string;
      action: string;
      ip_policy: { id: string };
    }[];
    const seeded = rules.filter((r) => r.id.startsWith('ipr_2demo'));
    expect(seeded.map((r) => [r.ip_policy.id, r.action, r.cidr]).sort()).toEqual(
      [
        [OFFICE, 'allow', '203.0.113.0/24'],
        [VPN, 'allow', '198.51.100.0/24'],
        [VPN, 'allow', '2001:db8:100::/48'],
      ].sort(),
    );
  });
});
