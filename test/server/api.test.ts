import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CA_FALSE, CA_TRUE, makeCaPemSync } from '../support/ca.js';
import { type Api, HOST_CA, HTTPS_EDGE, OFFICE, startApi, TCP_EDGE, VPN, WS_ROUTE } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'accord-api-'));
const ID = (prefix: string) => new RegExp(`^${prefix}_[0-9A-Za-z]{27}$`);
const missing = (prefix: string) => `${prefix}_${'2missing'.padEnd(27, '0')}`;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

function makeCa(name: string, cn: string, extra: readonly string[] = CA_TRUE) {
  return makeCaPemSync(dir, name, { subject: `/O=Acme/CN=${cn}`, extra, keepKey: true });
}

function keygen(name: string): string {
  const path = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', path]);
  return readFileSync(`${path}.pub`, 'utf8').trim();
}

let api: Api;
beforeAll(async () => {
  api = await startApi({ apiKeys: ['test-key', 'second-key'] });
});
afterAll(() => api.server.close());

describe('every request', () => {
  it('needs a valid API key (401), checked before anything else', async () => {
    const none = await api.call('GET', '/ip_restrictions', undefined, { authorization: '' });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error_code: 'ERR_AUTH_MISSING', status_code: 401 });
    expect(none.body.details.operation_id).toMatch(ID('op'));
    const wrong = await api.call('GET', '/nowhere', undefined, { authorization: 'Bearer test-kez' });
    expect(wrong.body).toMatchObject({ error_code: 'ERR_AUTH_INVALID', status_code: 401 });
    expect(wrong.text).not.toContain('test-kez');
    const basic = await api.call('GET', '/ip_restrictions', undefined, { authorization: 'Basic test-key' });
    expect(basic.status).toBe(401);
    const second = await api.call('GET', '/ip_restrictions', undefined, {
      authorization: 'Bearer second-key',
    });
    expect(second.status).toBe(200);
  });

  it('needs Service-Version: 2 (400)', async () => {
    const missing = await api.call('GET', '/ip_restrictions', undefined, { 'service-version': '' });
    expect(missing.status).toBe(400);
    expect(missing.body.error_code).toBe('ERR_NGROK_217');
    const res = await fetch(`${api.server.url}/ip_restrictions`, {
      headers: { authorization: 'Bearer test-key' },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error_code: string }).error_code).toBe('ERR_NGROK_218');
    const other = await api.call('GET', '/ip_restrictions', undefined, { 'service-version': '1' });
    expect(other.body.error_code).toBe('ERR_NGROK_217');
  });

  it('answers 415 to a body without a JSON content type, 400 to bad JSON, 413 to a huge body', async () => {
    const body = JSON.stringify({ description: 'x' });
    const plain = await api.call('POST', '/ip_policies', body, { 'content-type': 'text/plain' });
    expect(plain.status).toBe(415);
    expect(plain.body.error_code).toBe('ERR_UNSUPPORTED_MEDIA_TYPE');
    const res = await fetch(`${api.server.url}/ip_policies`, {
      method: 'POST',
      headers: { authorization: 'Bearer test-key', 'service-version': '2' },
      body: new Uint8Array(Buffer.from(body)),
    });
    expect(res.status).toBe(415);
    const charset = await api.call('POST', '/ip_policies', body, {
      'content-type': 'application/json; charset=utf-8',
    });
    expect(charset.status).toBe(201);
    const bad = await api.call('POST', '/ip_policies', '{"description":');
    expect(bad.status).toBe(400);
    expect(bad.body.error_code).toBe('ERR_INVALID_JSON');
    const array = await api.call('POST', '/ip_policies', '[]');
    expect(array.body.error_code).toBe('ERR_INVALID_JSON');
    // An empty body is no body: the defaults, whatever Content-Type says.
    const empty = await api.call('POST', '/ip_policies', '');
    expect([empty.status, empty.body.description]).toEqual([201, '']);
    await api.call('DELETE', `/ip_policies/${empty.body.id}`);
    const huge = await api.call('POST', '/ip_policies', { description: 'x'.repeat(200_000) });
    expect(huge.status).toBe(413);
    expect(huge.body.error_code).toBe('ERR_BODY_TOO_LARGE');
  });

  it('takes a PUT without a body, and without Content-Type, as the defaults', async () => {
    const path = `/edges/https/${HTTPS_EDGE}/routes/${WS_ROUTE}/websocket_tcp_converter`;
    await api.call('PUT', path, { enabled: false });
    for (const headers of [{}, { 'content-type': 'application/json' }] as Record<string, string>[]) {
      const bare = await api.call('PUT', path, undefined, headers);
      expect([bare.status, bare.body]).toEqual([200, { enabled: true }]);
      await api.call('PUT', path, { enabled: false });
    }
    const route = await api.call('GET', `/edges/https/${HTTPS_EDGE}/routes/${WS_ROUTE}`);
    expect(route.body.websocket_tcp_converter).toEqual({ enabled: false });
    await api.call('DELETE', path);
    // A body that is sent still needs its type.
    const plain = await api.call('PUT', path, '{}', { 'content-type': 'text/plain' });
    expect(plain.status).toBe(415);
  });

  it('answers 405 with Allow to a method the path does not have, and 404 to unknown paths', async () => {
    const put = await api.call('PUT', '/ip_restrictions', {});
    expect(put.status).toBe(405);
    expect(put.body.error_code).toBe('ERR_METHOD_NOT_ALLOWED');
    expect(put.headers.get('allow')).toBe('GET, POST');
    const post = await api.call('POST', `/ip_policies/${OFFICE}`);
    expect(post.status).toBe(405);
    const options = await api.call('OPTIONS', '/ip_restrictions');
    expect([options.status, options.headers.get('allow')]).toEqual([405, 'GET, POST']);
    const head = await api.call('HEAD', `/ip_policies/${OFFICE}`);
    expect([head.status, head.text]).toEqual([200, '']);
    const nowhere = await api.call('GET', '/nowhere');
    expect(nowhere.status).toBe(404);
    expect(nowhere.body.error_code).toBe('ERR_NOT_FOUND');
  });

  it('rejects unknown fields (400) and names them', async () => {
    const res = await api.call('POST', '/ip_restrictions', {
      type: 'agent',
      ip_policy_ids: [OFFICE],
      colour: 'x',
    });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('ERR_UNKNOWN_FIELD');
    expect(res.body.msg).toContain('"colour"');
  });

  it.each([
    ['description', 255],
    ['metadata', 4096],
  ])('limits %s to %i UTF-8 bytes', async (field, max) => {
    for (const path of [
      '/ip_policies',
      '/certificate_authorities',
      '/ssh_host_certificates',
      '/ip_restrictions',
    ]) {
      const ok = await api.call('POST', '/ip_policies', { [field]: 'a'.repeat(max) });
      expect(ok.status).toBe(201);
      const long = await api.call('POST', path, { [field]: 'a'.repeat(max + 1) });
      expect([long.status, path]).toEqual([400, path]);
      if (path === '/ip_policies') expect(long.body.error_code).toBe('ERR_FIELD_TOO_LONG');
    }
    // Characters are not bytes: half as many two-byte characters plus one exceed the limit.
    const wide = await api.call('POST', '/ip_policies', { [field]: 'é'.repeat(max / 2 + 1) });
    expect(wide.body.error_code).toBe('ERR_FIELD_TOO_LONG');
    const fits = await api.call('POST', '/ip_policies', { [field]: 'é'.repeat(Math.floor(max / 2)) });
    expect(fits.status).toBe(201);
  });
});

describe('IP restrictions', () => {
  it('create, get, list, patch, delete', async () => {
    const created = await api.call('POST', '/ip_restrictions', {
      type: 'dashboard',
      enforced: true,
      ip_policy_ids: [OFFICE],
      description: 'Office only',
      metadata: '{"a":1}',
    });
    expect(created.status).toBe(201);
    const r = created.body;
    expect(r.id).toMatch(ID('ipx'));
    expect(r).toEqual({
      id: r.id,
      uri: `${api.server.url}/ip_restrictions/${r.id}`,
      created_at: expect.stringMatching(RFC3339),
      description: 'Office only',
      metadata: '{"a":1}',
      enforced: true,
      type: 'dashboard',
      ip_policies: [{ id: OFFICE, uri: `${api.server.url}/ip_policies/${OFFICE}` }],
    });
    expect((await api.call('GET', `/ip_restrictions/${r.id}`)).body).toEqual(r);
    const list = await api.call('GET', '/ip_restrictions');
    expect(list.body).toEqual({
      ip_restrictions: [r],
      uri: `${api.server.url}/ip_restrictions`,
      next_page_uri: null,
    });
    const patched = await api.call('PATCH', `/ip_restrictions/${r.id}`, {
      enforced: false,
      ip_policy_ids: [OFFICE, VPN],
      description: '',
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id: r.id,
      enforced: false,
      description: '',
      metadata: '{"a":1}',
      type: 'dashboard',
    });
    expect(patched.body.ip_policies.map((p: { id: string }) => p.id)).toEqual([OFFICE, VPN]);
    const typeChange = await api.call('PATCH', `/ip_restrictions/${r.id}`, { type: 'api' });
    expect(typeChange.body.error_code).toBe('ERR_UNKNOWN_FIELD');
    expect(typeChange.body.msg).toContain('field "type" cannot be changed once the object exists');
    expect((await api.call('DELETE', `/ip_restrictions/${r.id}`)).status).toBe(204);
    expect((await api.call('GET', `/ip_restrictions/${r.id}`)).status).toBe(404);
    expect((await api.call('DELETE', `/ip_restrictions/${r.id}`)).status).toBe(404);
    expect((await api.call('PATCH', `/ip_restrictions/${r.id}`, {})).status).toBe(404);
  });

  it('allows one restriction per type (409)', async () => {
    const first = await api.call('POST', '/ip_restrictions', { type: 'api', ip_policy_ids: [OFFICE] });
    expect(first.status).toBe(201);
    expect(first.body.enforced).toBe(false);
    const second = await api.call('POST', '/ip_restrictions', { type: 'api', ip_policy_ids: [VPN] });
    expect(second.status).toBe(409);
    expect(second.body.error_code).toBe('ERR_NGROK_1802');
    await api.call('DELETE', `/ip_restrictions/${first.body.id}`);
    expect((await api.call('POST', '/ip_restrictions', { type: 'api', ip_policy_ids: [VPN] })).status).toBe(
      201,
    );
  });

  it.each([
    [{ ip_policy_ids: [OFFICE] }, 'ERR_MISSING_FIELD'],
    // The production service's codes: no IP policy (1804), a policy the account does not have (1801).
    [{ type: 'agent' }, 'ERR_NGROK_1804'],
    [{ type: 'agent', ip_policy_ids: [] }, 'ERR_NGROK_1804'],
    [{ type: 'agent', ip_policy_ids: [OFFICE, OFFICE] }, 'ERR_INVALID_FIELD'],
    [{ type: 'agent', ip_policy_ids: ['nope'] }, 'ERR_NGROK_1801'],
    [{ type: 'agent', ip_policy_ids: [missing('ipp')] }, 'ERR_NGROK_1801'],
    [{ type: 'web', ip_policy_ids: [OFFICE] }, 'ERR_INVALID_FIELD'],
    [{ type: 'agent', ip_policy_ids: [OFFICE], enforced: 'yes' }, 'ERR_INVALID_FIELD'],
    [{ type: 'agent', ip_policy_ids: [OFFICE], description: null }, 'ERR_INVALID_FIELD'],
  ])('rejects %j with %s', async (body, code) => {
    const res = await api.call('POST', '/ip_restrictions', body);
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe(code);
  });

  it('checks references on PATCH too', async () => {
    const r = await api.call('POST', '/ip_restrictions', { type: 'endpoints', ip_policy_ids: [OFFICE] });
    const res = await api.call('PATCH', `/ip_restrictions/${r.body.id}`, {
      ip_policy_ids: [missing('ipp')],
    });
    expect(res.body.error_code).toBe('ERR_NGROK_1801');
  });
});

describe('certificate authorities', () => {
  it('derives subject CN and validity exactly as openssl reads them', async () => {
    const file = makeCa('root', 'Acme Root CA');
    const pem = readFileSync(file, 'utf8');
    const created = await api.call('POST', '/certificate_authorities', {
      ca_pem: pem.trim(),
      description: 'root',
    });
    expect(created.status).toBe(201);
    const ca = created.body;
    const openssl = execFileSync('openssl', ['x509', '-noout', '-subject', '-dates', '-in', file]).toString();
    const cn = /CN ?= ?([^,\n]+)/.exec(openssl)![1];
    const iso = (field: string) =>
      new Date(new RegExp(`${field}=(.+)`).exec(openssl)![1]!).toISOString().replace('.000Z', 'Z');
    expect(ca).toEqual({
      id: expect.stringMatching(ID('ca')),
      uri: `${api.server.url}/certificate_authorities/${ca.id}`,
      created_at: expect.stringMatching(RFC3339),
      description: 'root',
      metadata: '',
      ca_pem: `${pem.trim()}\n`,
      subject_common_name: cn,
      not_before: iso('notBefore'),
      not_after: iso('notAfter'),
      key_usages: [],
      extended_key_usages: [],
    });
    expect((await api.call('GET', `/certificate_authorities/${ca.id}`)).body).toEqual(ca);
    const patched = await api.call('PATCH', `/certificate_authorities/${ca.id}`, { metadata: 'm' });
    expect(patched.body).toEqual({ ...ca, metadata: 'm' });
    const pemChange = await api.call('PATCH', `/certificate_authorities/${ca.id}`, { ca_pem: pem });
    expect(pemChange.body.error_code).toBe('ERR_UNKNOWN_FIELD');
    const list = await api.call('GET', '/certificate_authorities');
    expect(list.body.certificate_authorities.map((c: { id: string }) => c.id)).toContain(ca.id);
    expect((await api.call('DELETE', `/certificate_authorities/${ca.id}`)).status).toBe(204);
    expect((await api.call('GET', `/certificate_authorities/${ca.id}`)).status).toBe(404);
  });

  it('rejects anything but exactly one CA certificate', async () => {
    const ca = readFileSync(makeCa('bad-root', 'Root'), 'utf8');
    const leaf = readFileSync(makeCa('leaf', 'Leaf', CA_FALSE), 'utf8');
    const key = readFileSync(join(dir, 'bad-root.key'), 'utf8');
    for (const pem of ['not a pem', leaf, ca + ca, ca + key, ca.replace(/[A-Za-z]{8}\n/, 'AAAA!!!!\n'), '']) {
      const res = await api.call('POST', '/certificate_authorities', { ca_pem: pem });
      expect(res.status).toBe(400);
      expect(['ERR_INVALID_PEM', 'ERR_INVALID_FIELD']).toContain(res.body.error_code);
      expect(res.text).not.toContain('PRIVATE KEY');
    }
    const missing = await api.call('POST', '/certificate_authorities', {});
    expect(missing.body.error_code).toBe('ERR_MISSING_FIELD');
  });
});

describe('SSH host certificates', () => {
  it('create, get, list, patch, delete', async () => {
    const publicKey = keygen('crud');
    const created = await api.call('POST', '/ssh_host_certificates', {
      ssh_certificate_authority_id: HOST_CA,
      public_key: publicKey,
      principals: ['a.example.com'],
      valid_after: '2026-01-01T00:00:00+02:00',
      valid_until: '2027-01-01T00:00:00Z',
      description: 'bastion',
    });
    expect(created.status).toBe(201);
    const c = created.body;
    expect(c).toEqual({
      id: expect.stringMatching(ID('shcrt')),
      uri: `${api.server.url}/ssh_host_certificates/${c.id}`,
      created_at: expect.stringMatching(RFC3339),
      description: 'bastion',
      metadata: '',
      public_key: publicKey,
      key_type: 'ed25519',
      ssh_certificate_authority_id: HOST_CA,
      principals: ['a.example.com'],
      valid_after: '2025-12-31T22:00:00Z',
      valid_until: '2027-01-01T00:00:00Z',
      certificate: expect.stringMatching(/^ssh-ed25519-cert-v01@openssh\.com [A-Za-z0-9+/=]+$/),
    });
    expect((await api.call('GET', `/ssh_host_certificates/${c.id}`)).body).toEqual(c);
    expect((await api.call('PATCH', `/ssh_host_certificates/${c.id}`, { description: 'x' })).body).toEqual({
      ...c,
      description: 'x',
    });
    const immutable = await api.call('PATCH', `/ssh_host_certificates/${c.id}`, { principals: [] });
    expect(immutable.body.error_code).toBe('ERR_UNKNOWN_FIELD');
    const list = await api.call('GET', '/ssh_host_certificates?limit=1');
    expect(list.body.ssh_host_certificates).toEqual([{ ...c, description: 'x' }]);
    expect((await api.call('DELETE', `/ssh_host_certificates/${c.id}`)).status).toBe(204);
    expect((await api.call('GET', `/ssh_host_certificates/${c.id}`)).status).toBe(404);
  });

  it.each([
    [{ public_key: 'ssh-ed25519 AAAA' }, 'ERR_INVALID_PUBLIC_KEY'],
    [{ public_key: 'ssh-dss AAAAB3NzaC1kc3MAAAAA' }, 'ERR_INVALID_PUBLIC_KEY'],
    [{ public_key: '-----BEGIN PUBLIC KEY-----' }, 'ERR_INVALID_PUBLIC_KEY'],
    [{ ssh_certificate_authority_id: missing('sshca') }, 'ERR_REFERENCE_NOT_FOUND'],
    [{ ssh_certificate_authority_id: 'ca_x' }, 'ERR_INVALID_FIELD'],
    [{ valid_after: 'tomorrow' }, 'ERR_INVALID_FIELD'],
    [{ valid_after: '2027-01-01T00:00:00Z', valid_until: '2026-01-01T00:00:00Z' }, 'ERR_INVALID_FIELD'],
    [{ principals: ['a b'] }, 'ERR_INVALID_FIELD'],
    [{ principals: 'a' }, 'ERR_INVALID_FIELD'],
  ])('rejects %j with %s', async (override, code) => {
    const body = {
      ssh_certificate_authority_id: HOST_CA,
      public_key: keygen(`bad${Math.random()}`),
      ...override,
    };
    const res = await api.call('POST', '/ssh_host_certificates', body);
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe(code);
  });
});

describe('edge modules', () => {
  const tcpPath = `/edges/tcp/${TCP_EDGE}/ip_restriction`;
  const wsPath = `/edges/https/${HTTPS_EDGE}/routes/${WS_ROUTE}/websocket_tcp_converter`;

  it('TCP edge IP restriction: 404 until PUT, replace, get, delete', async () => {
    expect((await api.call('GET', tcpPath)).status).toBe(404);
    const put = await api.call('PUT', tcpPath, { ip_policy_ids: [OFFICE] });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      enabled: true,
      ip_policies: [{ id: OFFICE, uri: `${api.server.url}/ip_policies/${OFFICE}` }],
    });
    const replaced = await api.call('PUT', tcpPath, { enabled: false, ip_policy_ids: [VPN] });
    expect(replaced.body).toEqual({
      enabled: false,
      ip_policies: [{ id: VPN, uri: `${api.server.url}/ip_policies/${VPN}` }],
    });
    expect((await api.call('GET', tcpPath)).body).toEqual(replaced.body);
    expect((await api.call('PUT', tcpPath, { enabled: true })).body.error_code).toBe('ERR_MISSING_FIELD');
    expect((await api.call('PUT', tcpPath, { ip_policy_ids: [] })).body.error_code).toBe('ERR_INVALID_FIELD');
    const missingPolicy = await api.call('PUT', tcpPath, {
      ip_policy_ids: [missing('ipp')],
    });
    expect(missingPolicy.body.error_code).toBe('ERR_REFERENCE_NOT_FOUND');
    expect((await api.call('DELETE', tcpPath)).status).toBe(204);
    expect((await api.call('GET', tcpPath)).status).toBe(404);
    expect((await api.call('DELETE', tcpPath)).status).toBe(404);
    const noEdge = await api.call('PUT', '/edges/tcp/edgtcp_2missing00000000000000000000/ip_restriction', {
      ip_policy_ids: [OFFICE],
    });
    expect(noEdge.status).toBe(404);
    expect((await api.call('POST', tcpPath, {})).status).toBe(405);
  });

  it('HTTPS route websocket TCP converter: 404 until PUT, replace, get, delete', async () => {
    expect((await api.call('GET', wsPath)).status).toBe(404);
    expect((await api.call('PUT', wsPath, {})).body).toEqual({ enabled: true });
    expect((await api.call('PUT', wsPath, { enabled: false })).body).toEqual({ enabled: false });
    expect((await api.call('GET', wsPath)).body).toEqual({ enabled: false });
    expect((await api.call('PUT', wsPath, { enabled: 1 })).body.error_code).toBe('ERR_INVALID_FIELD');
    expect((await api.call('PUT', wsPath, { on: true })).body.error_code).toBe('ERR_UNKNOWN_FIELD');
    expect((await api.call('DELETE', wsPath)).status).toBe(204);
    expect((await api.call('GET', wsPath)).status).toBe(404);
    const otherEdge = await api.call('POST', '/edges/https', {});
    const wrongEdge = await api.call(
      'GET',
      `/edges/https/${otherEdge.body.id}/routes/${WS_ROUTE}/websocket_tcp_converter`,
    );
    expect(wrongEdge.status).toBe(404);
  });
});

describe('stand-in endpoints', () => {
  it('IP policies, TCP edges, HTTPS edges and routes: create, get, list, delete', async () => {
    for (const [path, prefix, listKey, body] of [
      ['/ip_policies', 'ipp', 'ip_policies', { description: 'p' }],
      ['/edges/tcp', 'edgtcp', 'tcp_edges', { hostports: ['db.example.com:5432'] }],
      ['/edges/https', 'edghts', 'https_edges', {}],
    ] as const) {
      const created = await api.call('POST', path, body);
      expect(created.status).toBe(201);
      expect(created.body.id).toMatch(ID(prefix));
      expect(created.body.uri).toBe(`${api.server.url}${path}/${created.body.id}`);
      expect((await api.call('GET', `${path}/${created.body.id}`)).body).toEqual(created.body);
      expect((await api.call('GET', `${path}?limit=1`)).body[listKey]).toEqual([created.body]);
      expect((await api.call('DELETE', `${path}/${created.body.id}`)).status).toBe(204);
      expect((await api.call('GET', `${path}/${created.body.id}`)).status).toBe(404);
    }
    const edge = await api.call('POST', '/edges/https', { description: 'web' });
    const routes = `/edges/https/${edge.body.id}/routes`;
    const route = await api.call('POST', routes, { match_type: 'exact_path', match: '/ws' });
    expect(route.status).toBe(201);
    expect(route.body).toMatchObject({
      match_type: 'exact_path',
      match: '/ws',
      uri: `${api.server.url}${routes}/${route.body.id}`,
    });
    expect((await api.call('GET', routes)).body.routes).toEqual([route.body]);
    expect((await api.call('GET', `/edges/https/${HTTPS_EDGE}/routes/${route.body.id}`)).status).toBe(404);
    expect((await api.call('POST', routes, { match_type: 'regex', match: '/' })).status).toBe(400);
    await api.call('PUT', `${routes}/${route.body.id}/websocket_tcp_converter`, {});
    expect((await api.call('DELETE', `/edges/https/${edge.body.id}`)).status).toBe(204);
    expect((await api.call('GET', routes)).status).toBe(404);
    expect((await api.call('GET', `${routes}/${route.body.id}`)).status).toBe(404);
  });

  it.each([
    [{}, 'ed25519', /^ssh-ed25519 /],
    [{ private_key_type: 'ecdsa' }, 'ecdsa', /^ecdsa-sha2-nistp256 /],
    [{ private_key_type: 'ecdsa', elliptic_curve: 'p521' }, 'ecdsa', /^ecdsa-sha2-nistp521 /],
    [{ private_key_type: 'rsa', key_size: 2048 }, 'rsa', /^ssh-rsa /],
  ])('SSH certificate authorities make a key pair for %j', async (body, keyType, line) => {
    const created = await api.call('POST', '/ssh_certificate_authorities', body);
    expect(created.status).toBe(201);
    expect(created.body.key_type).toBe(keyType);
    expect(created.body.public_key).toMatch(line);
    expect(created.text).not.toContain('PRIVATE');
    expect((await api.call('GET', `/ssh_certificate_authorities/${created.body.id}`)).body).toEqual(
      created.body,
    );
    expect((await api.call('DELETE', `/ssh_certificate_authorities/${created.body.id}`)).status).toBe(204);
  });

  it('rejects options of another key type', async () => {
    const res = await api.call('POST', '/ssh_certificate_authorities', {
      private_key_type: 'ed25519',
      key_size: 2048,
    });
    expect(res.body.error_code).toBe('ERR_INVALID_FIELD');
  });
});

describe('lists', () => {
  it('page newest first without losing or repeating items while items are added', async () => {
    const local = await startApi();
    try {
      const made: string[] = [];
      for (let i = 0; i < 25; i++)
        made.push((await local.call('POST', '/edges/tcp', { description: `e${i}` })).body.id);
      const seen: string[] = [];
      let next: string | null = `${local.server.url}/edges/tcp?limit=10`;
      let pages = 0;
      while (next) {
        const page = await local.call('GET', next);
        expect(page.status).toBe(200);
        expect(page.body.uri).toBe(next);
        seen.push(...page.body.tcp_edges.map((e: { id: string }) => e.id));
        next = page.body.next_page_uri;
        if (next) expect(next.startsWith(`${local.server.url}/edges/tcp?`)).toBe(true);
        pages++;
        // Items added while paging are newer than the cursor and never shift the following pages.
        await local.call('POST', '/edges/tcp', { description: `added during page ${pages}` });
      }
      const expected = [...made, 'edgtcp_2demoDb00000000000000000000'].sort().reverse();
      expect(seen).toEqual(expected);
      expect(pages).toBe(3);
      expect(new Set(seen).size).toBe(seen.length);
    } finally {
      await local.server.close();
    }
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'before_id=ipx_1', 'cursor=x', 'limit=1&limit=2'])(
    'rejects ?%s',
    async (query) => {
      const res = await api.call('GET', `/edges/tcp?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error_code).toBe('ERR_INVALID_QUERY');
    },
  );

  it('default limit is 100', async () => {
    const local = await startApi({ seed: undefined });
    try {
      for (let i = 0; i < 101; i++) await local.call('POST', '/ip_policies', {});
      const page = await local.call('GET', '/ip_policies');
      expect(page.body.ip_policies).toHaveLength(100);
      const last = await local.call('GET', page.body.next_page_uri);
      expect(last.body.ip_policies).toHaveLength(1);
      expect(last.body.next_page_uri).toBeNull();
    } finally {
      await local.server.close();
    }
  });
});
