// The production service's official TypeScript client (@ngrok/ngrok-api), unchanged, against
// `accord serve` in-process over real HTTP: every kind it has that the service implements, with lists
// long enough that the client has to page (it pages with `beforeId`, PATCHes with the path's `id` in
// the body, wraps module PUTs in `{"module": {...}}` and sends `Ngrok-Version: 2`).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ngrok, type SSHCertificateAuthorityCreate } from '@ngrok/ngrok-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST_CA, HTTPS_EDGE, OFFICE, TCP_EDGE, useSeededService, VPN, WS_ROUTE } from '../support/server.js';

const KEY = 'official-client-key-0123456789';
const MANY = 101;
const HOST_KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAqyCaC+1UsnHKNidb2yTijEjBjrvJmsbhSJNJ20klEM host@example.com';
const ID = (prefix: string) => new RegExp(`^${prefix}_[0-9A-Za-z]{27}$`);
const missing = (prefix: string) => `${prefix}_${'2missing'.padEnd(27, '0')}`;

const server = useSeededService(KEY);
let ngrok: Ngrok;
beforeAll(() => {
  ngrok = new Ngrok({ apiToken: KEY, baseUrl: server.url });
});

/** What the client rejects with when the service answers an error: the error body, camel-cased. */
interface ClientError {
  statusCode: number;
  errorCode: string;
  msg: string;
  details: Map<string, string>;
}

/** The error a request is refused with, checked to carry status, error code and operation ID. */
async function refusal(request: Promise<unknown>): Promise<ClientError> {
  const err = (await request.then(
    () => expect.unreachable('the request should have been refused'),
    (e: unknown) => e,
  )) as ClientError;
  expect(err.details).toBeInstanceOf(Map);
  expect(err.details.get('operationId')).toMatch(ID('op'));
  expect(typeof err.msg).toBe('string');
  return err;
}

/**
 * The client's delete methods read the 204 answer as JSON, which its empty body is not, so they reject
 * with a SyntaxError once the object is deleted (against the production service too). This lets
 * exactly that through; whether the object is gone is checked by the caller.
 */
async function deleted(request: Promise<void>): Promise<void> {
  await request.catch((err: unknown) => {
    if (!(err instanceof Error && err.name === 'SyntaxError')) throw err;
  });
}

/** `n` times `make(i)`, one after the other, so that creation order is the reverse of list order. */
async function times<T>(n: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const made: T[] = [];
  for (let i = 0; i < n; i++) made.push(await make(i));
  return made;
}

const ids = (objects: { id: string }[]) => objects.map((o) => o.id);
const newestFirst = (objects: { id: string }[]) => ids(objects).reverse();

describe('the official TypeScript client against accord serve', () => {
  it('creates, gets, lists page by page, updates and deletes IP restrictions', async () => {
    const types = ['dashboard', 'api', 'agent', 'endpoints'];
    const made = await times(types.length, (i) =>
      ngrok.ipRestrictions.create({
        type: types[i]!,
        enforced: i % 2 === 0,
        ipPolicyIds: i === 0 ? [OFFICE, VPN] : [OFFICE],
        description: `restriction ${i}`,
        metadata: `{"n":${i}}`,
      }),
    );
    const first = made[0]!;
    expect(first.id).toMatch(ID('ipx'));
    expect(first).toMatchObject({
      uri: `${server.url}/ip_restrictions/${first.id}`,
      type: 'dashboard',
      enforced: true,
      description: 'restriction 0',
      metadata: '{"n":0}',
      ipPolicies: [
        { id: OFFICE, uri: `${server.url}/ip_policies/${OFFICE}` },
        { id: VPN, uri: `${server.url}/ip_policies/${VPN}` },
      ],
    });
    expect(String(first.createdAt)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(await ngrok.ipRestrictions.get(first.id)).toEqual(first);

    // One type per restriction caps the account at four, so pages of one make the client page.
    const paged = await ngrok.ipRestrictions.list(undefined, '1');
    expect(ids(paged)).toEqual(newestFirst(made));
    expect(paged).toEqual([...made].reverse());
    expect(ids(await ngrok.ipRestrictions.list())).toEqual(newestFirst(made));
    expect(ids(await ngrok.ipRestrictions.list(made[2]!.id, '1'))).toEqual(ids(made.slice(0, 2)).reverse());

    // The client sends `ip_policy_ids` on every update: an empty list is refused as on create (1804).
    const none = await refusal(
      ngrok.ipRestrictions.update({ id: first.id, enforced: false, ipPolicyIds: [] }),
    );
    expect(none).toMatchObject({ statusCode: 400, errorCode: 'ERR_NGROK_1804' });
    expect(await ngrok.ipRestrictions.get(first.id)).toEqual(first);
    const described = await ngrok.ipRestrictions.update({
      id: first.id,
      description: 'renamed',
      enforced: false,
      ipPolicyIds: first.ipPolicies.map((p) => p.id),
    });
    expect(described).toEqual({ ...first, description: 'renamed', enforced: false });
    const repointed = await ngrok.ipRestrictions.update({ id: first.id, ipPolicyIds: [VPN] });
    expect(repointed.ipPolicies).toEqual([{ id: VPN, uri: `${server.url}/ip_policies/${VPN}` }]);
    expect(repointed.description).toBe('renamed');
    expect(await ngrok.ipRestrictions.get(first.id)).toEqual(repointed);

    const taken = await refusal(
      ngrok.ipRestrictions.create({ type: 'api', enforced: true, ipPolicyIds: [VPN] }),
    );
    expect(taken).toMatchObject({ statusCode: 409, errorCode: 'ERR_NGROK_1802' });
    const unknownPolicy = await refusal(
      ngrok.ipRestrictions.update({ id: first.id, ipPolicyIds: [missing('ipp')] }),
    );
    expect(unknownPolicy).toMatchObject({ statusCode: 400, errorCode: 'ERR_NGROK_1801' });

    for (const r of made) await deleted(ngrok.ipRestrictions.delete(r.id));
    expect(await ngrok.ipRestrictions.list()).toEqual([]);
    const gone = await refusal(ngrok.ipRestrictions.get(first.id));
    expect(gone).toMatchObject({ statusCode: 404, errorCode: 'ERR_NOT_FOUND' });
    expect(gone.msg).toContain(first.id);
  });

  describe('certificate authorities', () => {
    const dir = mkdtempSync(join(tmpdir(), 'accord-official-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    let pems: string[] = [];
    beforeAll(async () => {
      // Many self-signed CA certificates of one key: quicker than a key each.
      const script = [
        'openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ca.key',
        `for i in $(seq 1 ${MANY}); do openssl req -x509 -key ca.key -days 30 -subj "/O=Acme/CN=ca-$i" ` +
          '-addext basicConstraints=critical,CA:TRUE -out "ca-$i.pem" 2>/dev/null || exit 1; done',
      ].join('\n');
      await promisify(execFile)('sh', ['-c', script], { cwd: dir });
      pems = Array.from({ length: MANY }, (_, i) => readFileSync(join(dir, `ca-${i + 1}.pem`), 'utf8'));
    }, 60_000);

    it('creates, gets, lists more than a page, updates and deletes them', async () => {
      const made = await times(MANY, (i) =>
        ngrok.certificateAuthorities.create({ caPem: pems[i]!, description: `ca ${i}` }),
      );
      const first = made[0]!;
      expect(first.id).toMatch(ID('ca'));
      expect(first).toMatchObject({
        uri: `${server.url}/certificate_authorities/${first.id}`,
        description: 'ca 0',
        caPem: pems[0],
        subjectCommonName: 'ca-1',
        keyUsages: [],
        extendedKeyUsages: [],
      });
      expect(Date.parse(String(first.notAfter)) - Date.parse(String(first.notBefore))).toBe(30 * 86_400_000);
      expect(await ngrok.certificateAuthorities.get(first.id)).toEqual(first);

      const listed = await ngrok.certificateAuthorities.list();
      expect(listed).toHaveLength(MANY);
      expect(listed).toEqual([...made].reverse());

      const updated = await ngrok.certificateAuthorities.update({
        id: first.id,
        description: 'root',
        metadata: 'team=web',
      });
      expect(updated).toEqual({ ...first, description: 'root', metadata: 'team=web' });

      const notPem = await refusal(ngrok.certificateAuthorities.create({ caPem: 'not a certificate' }));
      expect(notPem).toMatchObject({ statusCode: 400, errorCode: 'ERR_INVALID_PEM' });

      for (const ca of made.slice(0, 2)) await deleted(ngrok.certificateAuthorities.delete(ca.id));
      expect(ids(await ngrok.certificateAuthorities.list())).toEqual(newestFirst(made.slice(2)));
      const gone = await refusal(ngrok.certificateAuthorities.get(first.id));
      expect(gone).toMatchObject({ statusCode: 404, errorCode: 'ERR_NOT_FOUND' });
    });
  });

  it('creates, gets, lists more than a page, updates and deletes SSH host certificates', async () => {
    // The client copies objects key by key, which makes a Date `{}`; it passes strings through.
    const validAfter = '2026-01-01T00:00:00.250Z' as unknown as Date;
    const validUntil = '2027-01-01T00:00:00Z' as unknown as Date;
    const made = await times(MANY, (i) =>
      ngrok.sshHostCertificates.create({
        sshCertificateAuthorityId: HOST_CA,
        publicKey: HOST_KEY,
        principals: [`host-${i}.example.com`],
        validAfter,
        validUntil,
        description: `host ${i}`,
      }),
    );
    const first = made[0]!;
    expect(first.id).toMatch(ID('shcrt'));
    expect(first).toMatchObject({
      uri: `${server.url}/ssh_host_certificates/${first.id}`,
      sshCertificateAuthorityId: HOST_CA,
      publicKey: HOST_KEY,
      keyType: 'ed25519',
      principals: ['host-0.example.com'],
      validAfter: '2026-01-01T00:00:00Z',
      validUntil: '2027-01-01T00:00:00Z',
      description: 'host 0',
    });
    expect(first.certificate).toMatch(/^ssh-ed25519-cert-v01@openssh\.com AAAA/);
    expect(await ngrok.sshHostCertificates.get(first.id)).toEqual(first);

    const listed = await ngrok.sshHostCertificates.list();
    expect(listed).toHaveLength(MANY);
    expect(listed).toEqual([...made].reverse());

    const updated = await ngrok.sshHostCertificates.update({ id: first.id, metadata: '{"owner":"ops"}' });
    expect(updated).toEqual({ ...first, metadata: '{"owner":"ops"}' });

    const badCa = await refusal(
      ngrok.sshHostCertificates.create({
        sshCertificateAuthorityId: missing('sshca'),
        publicKey: HOST_KEY,
        principals: [],
        validAfter,
        validUntil,
      }),
    );
    expect(badCa).toMatchObject({ statusCode: 400, errorCode: 'ERR_REFERENCE_NOT_FOUND' });
    const dated = await refusal(
      ngrok.sshHostCertificates.create({
        sshCertificateAuthorityId: HOST_CA,
        publicKey: HOST_KEY,
        principals: [],
        validAfter: new Date('2026-01-01T00:00:00Z'),
        validUntil,
      }),
    );
    expect(dated).toMatchObject({ statusCode: 400, errorCode: 'ERR_INVALID_FIELD' });
    expect(dated.msg).toContain('valid_after');

    await deleted(ngrok.sshHostCertificates.delete(first.id));
    expect(ids(await ngrok.sshHostCertificates.list())).toEqual(newestFirst(made.slice(1)));
    expect(await refusal(ngrok.sshHostCertificates.get(first.id))).toMatchObject({ statusCode: 404 });
  });

  it('replaces, gets and deletes the TCP edge IP restriction module', async () => {
    const module = ngrok.edgeModules.tcpEdgeIpRestrictionModule;
    const replaced = await module.replace({
      id: TCP_EDGE,
      module: { enabled: true, ipPolicyIds: [VPN, OFFICE] },
    });
    expect(replaced).toEqual({
      enabled: true,
      ipPolicies: [
        { id: VPN, uri: `${server.url}/ip_policies/${VPN}` },
        { id: OFFICE, uri: `${server.url}/ip_policies/${OFFICE}` },
      ],
    });
    expect(await module.get(TCP_EDGE)).toEqual(replaced);
    expect((await ngrok.edges.edgesTcp.get(TCP_EDGE)).ipRestriction).toEqual(replaced);
    const disabled = await module.replace({
      id: TCP_EDGE,
      module: { enabled: false, ipPolicyIds: [OFFICE] },
    });
    expect(disabled).toEqual({
      enabled: false,
      ipPolicies: [{ id: OFFICE, uri: `${server.url}/ip_policies/${OFFICE}` }],
    });
    expect(await module.get(TCP_EDGE)).toEqual(disabled);

    await deleted(module.delete(TCP_EDGE));
    expect((await ngrok.edges.edgesTcp.get(TCP_EDGE)).ipRestriction).toBeNull();
    const unconfigured = await refusal(module.get(TCP_EDGE));
    expect(unconfigured).toMatchObject({ statusCode: 404, errorCode: 'ERR_NOT_FOUND' });
    const noEdge = await refusal(
      module.replace({ id: missing('edgtcp'), module: { ipPolicyIds: [OFFICE] } }),
    );
    expect(noEdge).toMatchObject({ statusCode: 404, errorCode: 'ERR_NOT_FOUND' });
  });

  it('replaces, gets and deletes the route websocket TCP converter module', async () => {
    const module = ngrok.edgeModules.edgeRouteWebsocketTcpConverterModule;
    const route = { edgeId: HTTPS_EDGE, id: WS_ROUTE };
    expect(await module.replace({ ...route, module: { enabled: false } })).toEqual({ enabled: false });
    expect(await module.get(route)).toEqual({ enabled: false });
    expect(await module.replace({ ...route, module: {} })).toEqual({ enabled: true });
    expect(await module.get(route)).toEqual({ enabled: true });
    await deleted(module.delete(route));
    expect(await refusal(module.get(route))).toMatchObject({ statusCode: 404, errorCode: 'ERR_NOT_FOUND' });
    const otherEdge = await refusal(
      module.replace({ edgeId: missing('edghts'), id: WS_ROUTE, module: { enabled: true } }),
    );
    expect(otherEdge).toMatchObject({ statusCode: 404, errorCode: 'ERR_NOT_FOUND' });
  });

  describe('IP policies and their rules', () => {
    it('creates, gets, lists more than a page, updates and deletes IP policies', async () => {
      const made = await times(MANY, (i) =>
        ngrok.ipPolicies.create({ description: `policy ${i}`, metadata: `${i}` }),
      );
      const first = made[0]!;
      expect(first.id).toMatch(ID('ipp'));
      expect(first).toMatchObject({
        uri: `${server.url}/ip_policies/${first.id}`,
        description: 'policy 0',
        metadata: '0',
      });
      expect(String(first.createdAt)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(await ngrok.ipPolicies.get(first.id)).toEqual(first);
      const listed = await ngrok.ipPolicies.list();
      expect(ids(listed.slice(0, MANY))).toEqual(newestFirst(made));
      expect(ids(listed.slice(MANY)).sort()).toEqual([OFFICE, VPN].sort());

      const updated = await ngrok.ipPolicies.update({ id: first.id, description: 'office', metadata: 'm' });
      expect(updated).toEqual({ ...first, description: 'office', metadata: 'm' });
      expect(await ngrok.ipPolicies.get(first.id)).toEqual(updated);

      await deleted(ngrok.ipPolicies.delete(first.id));
      expect(await refusal(ngrok.ipPolicies.get(first.id))).toMatchObject({ statusCode: 404 });
    });

    it('creates, gets, lists more than a page, updates and deletes IP policy rules', async () => {
      const policy = await ngrok.ipPolicies.create({ description: 'rules' });
      const made = await times(MANY, (i) =>
        ngrok.ipPolicyRules.create({
          ipPolicyId: policy.id,
          cidr: `10.${i}.0.0/16`,
          action: i % 2 === 0 ? 'allow' : 'deny',
          description: `rule ${i}`,
        }),
      );
      const first = made[0]!;
      expect(first.id).toMatch(ID('ipr'));
      expect(first).toMatchObject({
        uri: `${server.url}/ip_policy_rules/${first.id}`,
        cidr: '10.0.0.0/16',
        action: 'allow',
        description: 'rule 0',
        ipPolicy: { id: policy.id, uri: `${server.url}/ip_policies/${policy.id}` },
      });
      expect(await ngrok.ipPolicyRules.get(first.id)).toEqual(first);
      // Every rule of the account: these, newest first, then the seed's.
      const listed = await ngrok.ipPolicyRules.list();
      expect(ids(listed.slice(0, MANY))).toEqual(newestFirst(made));
      expect(listed.slice(MANY).map((r) => r.ipPolicy.id)).toEqual(expect.arrayContaining([OFFICE, VPN]));

      const updated = await ngrok.ipPolicyRules.update({
        id: first.id,
        cidr: '2001:db8::/32',
        description: 'v6',
        metadata: 'm',
      });
      expect(updated).toEqual({ ...first, cidr: '2001:db8::/32', description: 'v6', metadata: 'm' });

      const notLowest = await refusal(
        ngrok.ipPolicyRules.create({ ipPolicyId: policy.id, cidr: '10.1.2.3/16', action: 'allow' }),
      );
      expect(notLowest).toMatchObject({ statusCode: 400, errorCode: 'ERR_NGROK_1409' });
      expect(notLowest.msg).toContain('10.1.0.0/16');
      const twice = await refusal(
        ngrok.ipPolicyRules.create({ ipPolicyId: policy.id, cidr: '10.1.0.0/16', action: 'allow' }),
      );
      expect(twice).toMatchObject({ statusCode: 400, errorCode: 'ERR_NGROK_1408' });
      expect(twice.msg).toContain('IP Policy Rule with CIDR 10.1.0.0/16 already exists');
      const noPolicy = await refusal(
        ngrok.ipPolicyRules.create({ ipPolicyId: missing('ipp'), cidr: '10.0.0.0/8', action: 'deny' }),
      );
      expect(noPolicy).toMatchObject({ statusCode: 400, errorCode: 'ERR_REFERENCE_NOT_FOUND' });

      await deleted(ngrok.ipPolicyRules.delete(first.id));
      expect(await refusal(ngrok.ipPolicyRules.get(first.id))).toMatchObject({ statusCode: 404 });

      // A policy an IP restriction names stays (1420); once the restriction lets go, it goes with its rules.
      const restriction = await ngrok.ipRestrictions.create({
        type: 'agent',
        enforced: true,
        ipPolicyIds: [policy.id],
      });
      const inUse = await refusal(ngrok.ipPolicies.delete(policy.id));
      expect(inUse).toMatchObject({ statusCode: 409, errorCode: 'ERR_NGROK_1420' });
      expect(inUse.msg).toContain(restriction.id);
      await deleted(ngrok.ipRestrictions.delete(restriction.id));
      await deleted(ngrok.ipPolicies.delete(policy.id));
      expect(await refusal(ngrok.ipPolicyRules.get(made[1]!.id))).toMatchObject({ statusCode: 404 });
      expect((await ngrok.ipPolicyRules.list()).map((r) => r.ipPolicy.id)).not.toContain(policy.id);
    });
  });

  describe('the stand-ins', () => {
    it('creates, gets, lists more than a page and deletes SSH certificate authorities', async () => {
      const made = await times(MANY, (i) =>
        ngrok.sshCertificateAuthorities.create({
          privateKeyType: 'ed25519',
          description: `ssh ca ${i}`,
        } as SSHCertificateAuthorityCreate),
      );
      expect(made[0]!.id).toMatch(ID('sshca'));
      expect(made[0]).toMatchObject({ keyType: 'ed25519', description: 'ssh ca 0' });
      expect(made[0]!.publicKey).toMatch(/^ssh-ed25519 AAAA/);
      const ecdsa = await ngrok.sshCertificateAuthorities.create({
        privateKeyType: 'ecdsa',
        ellipticCurve: 'p384',
      } as SSHCertificateAuthorityCreate);
      expect(ecdsa.keyType).toBe('ecdsa');
      expect(ecdsa.publicKey).toMatch(/^ecdsa-sha2-nistp384 AAAA/);
      expect(await ngrok.sshCertificateAuthorities.get(made[0]!.id)).toEqual(made[0]);
      const listed = await ngrok.sshCertificateAuthorities.list();
      expect(ids(listed)).toEqual([ecdsa.id, ...newestFirst(made), HOST_CA]);
      await deleted(ngrok.sshCertificateAuthorities.delete(ecdsa.id));
      expect(await refusal(ngrok.sshCertificateAuthorities.get(ecdsa.id))).toMatchObject({ statusCode: 404 });
    });

    it('creates, gets, lists more than a page and deletes TCP and HTTPS edges', async () => {
      const tcp = await times(MANY, (i) =>
        ngrok.edges.edgesTcp.create({ hostports: [`db-${i}.example.com:5432`] }),
      );
      expect(tcp[0]!.id).toMatch(ID('edgtcp'));
      expect(tcp[0]).toMatchObject({
        uri: `${server.url}/edges/tcp/${tcp[0]!.id}`,
        hostports: ['db-0.example.com:5432'],
      });
      expect(await ngrok.edges.edgesTcp.get(tcp[0]!.id)).toEqual(tcp[0]);
      expect(ids(await ngrok.edges.edgesTcp.list())).toEqual([...newestFirst(tcp), TCP_EDGE]);
      await deleted(ngrok.edges.edgesTcp.delete(tcp[0]!.id));
      expect(await refusal(ngrok.edges.edgesTcp.get(tcp[0]!.id))).toMatchObject({ statusCode: 404 });

      const https = await times(MANY, (i) =>
        ngrok.edges.edgesHttps.create({ description: `web ${i}`, hostports: [`web-${i}.example.com:443`] }),
      );
      expect(https[0]!.id).toMatch(ID('edghts'));
      expect(await ngrok.edges.edgesHttps.get(https[0]!.id)).toEqual(https[0]);
      expect(ids(await ngrok.edges.edgesHttps.list())).toEqual([...newestFirst(https), HTTPS_EDGE]);
      await deleted(ngrok.edges.edgesHttps.delete(https[0]!.id));
      expect(await refusal(ngrok.edges.edgesHttps.get(https[0]!.id))).toMatchObject({ statusCode: 404 });
    });

    it('creates, gets and deletes HTTPS edge routes (the client sends the edge ID in the body)', async () => {
      const route = await ngrok.edges.edgesHttpsRoutes.create({
        edgeId: HTTPS_EDGE,
        matchType: 'exact_path',
        match: '/socket',
        description: 'socket',
      });
      expect(route.id).toMatch(ID('edghtsrt'));
      expect(route).toMatchObject({
        uri: `${server.url}/edges/https/${HTTPS_EDGE}/routes/${route.id}`,
        matchType: 'exact_path',
        match: '/socket',
        description: 'socket',
      });
      const item = { edgeId: HTTPS_EDGE, id: route.id };
      expect(await ngrok.edges.edgesHttpsRoutes.get(item)).toEqual(route);
      const converter = ngrok.edgeModules.edgeRouteWebsocketTcpConverterModule;
      expect(await converter.replace({ ...item, module: { enabled: true } })).toEqual({ enabled: true });
      await deleted(ngrok.edges.edgesHttpsRoutes.delete(item));
      expect(await refusal(ngrok.edges.edgesHttpsRoutes.get(item))).toMatchObject({ statusCode: 404 });
      const noEdge = await refusal(
        ngrok.edges.edgesHttpsRoutes.create({
          edgeId: missing('edghts'),
          matchType: 'path_prefix',
          match: '/',
        }),
      );
      expect(noEdge).toMatchObject({ statusCode: 404, errorCode: 'ERR_NOT_FOUND' });
    });
  });

  describe('the stand-ins, as the OpenAPI description gives them', () => {
    it('updates the description and metadata of an SSH certificate authority', async () => {
      const ca = await ngrok.sshCertificateAuthorities.create({
        privateKeyType: 'ed25519',
        description: 'before',
      } as SSHCertificateAuthorityCreate);
      const updated = await ngrok.sshCertificateAuthorities.update({
        id: ca.id,
        description: 'after',
        metadata: '{"team":"ops"}',
      });
      expect(updated).toEqual({ ...ca, description: 'after', metadata: '{"team":"ops"}' });
      expect(await ngrok.sshCertificateAuthorities.get(ca.id)).toEqual(updated);
      await deleted(ngrok.sshCertificateAuthorities.delete(ca.id));
    });

    it('creates a TCP edge with its IP restriction module inline, and updates both', async () => {
      const edge = await ngrok.edges.edgesTcp.create({
        description: 'db',
        hostports: ['db.example.com:5432'],
        ipRestriction: { enabled: true, ipPolicyIds: [OFFICE] },
      });
      const office = [{ id: OFFICE, uri: `${server.url}/ip_policies/${OFFICE}` }];
      expect(edge.ipRestriction).toEqual({ enabled: true, ipPolicies: office });
      const module = ngrok.edgeModules.tcpEdgeIpRestrictionModule;
      expect(await module.get(edge.id)).toEqual(edge.ipRestriction);
      const updated = await ngrok.edges.edgesTcp.update({
        id: edge.id,
        description: 'database',
        metadata: 'm',
        hostports: ['db2.example.com:5432'],
        ipRestriction: { enabled: false, ipPolicyIds: [VPN] },
      });
      const vpn = [{ id: VPN, uri: `${server.url}/ip_policies/${VPN}` }];
      expect(updated).toEqual({
        ...edge,
        description: 'database',
        metadata: 'm',
        hostports: ['db2.example.com:5432'],
        ipRestriction: { enabled: false, ipPolicies: vpn },
      });
      expect(await module.get(edge.id)).toEqual({ enabled: false, ipPolicies: vpn });
      expect(await ngrok.edges.edgesTcp.get(edge.id)).toEqual(updated);
      await deleted(ngrok.edges.edgesTcp.delete(edge.id));
    });

    it('updates an HTTPS edge, and creates and updates a route with its module inline', async () => {
      const edge = await ngrok.edges.edgesHttps.create({ hostports: ['app.example.com:443'] });
      const renamed = await ngrok.edges.edgesHttps.update({ id: edge.id, description: 'app', metadata: 'm' });
      expect(renamed).toEqual({ ...edge, description: 'app', metadata: 'm' });
      const route = await ngrok.edges.edgesHttpsRoutes.create({
        edgeId: edge.id,
        matchType: 'path_prefix',
        match: '/ws',
        websocketTcpConverter: { enabled: true },
      });
      expect(route.websocketTcpConverter).toEqual({ enabled: true });
      const item = { edgeId: edge.id, id: route.id };
      const converter = ngrok.edgeModules.edgeRouteWebsocketTcpConverterModule;
      expect(await converter.get(item)).toEqual({ enabled: true });
      const updated = await ngrok.edges.edgesHttpsRoutes.update({
        ...item,
        matchType: 'exact_path',
        match: '/socket',
        description: 'socket',
        websocketTcpConverter: { enabled: false },
      });
      expect(updated).toEqual({
        ...route,
        matchType: 'exact_path',
        match: '/socket',
        description: 'socket',
        websocketTcpConverter: { enabled: false },
      });
      expect(await ngrok.edges.edgesHttpsRoutes.get(item)).toEqual(updated);
      // The module's own PUT and DELETE show in the route.
      await converter.replace({ ...item, module: { enabled: true } });
      expect((await ngrok.edges.edgesHttpsRoutes.get(item)).websocketTcpConverter).toEqual({ enabled: true });
      await deleted(converter.delete(item));
      expect((await ngrok.edges.edgesHttpsRoutes.get(item)).websocketTcpConverter).toBeNull();
      await deleted(ngrok.edges.edgesHttps.delete(edge.id));
    });
  });

  it('gets error objects with status, error code and operation ID for refused keys', async () => {
    const stranger = new Ngrok({ apiToken: 'not-the-key', baseUrl: server.url });
    const err = await refusal(stranger.ipPolicies.list());
    expect(err).toMatchObject({ statusCode: 401, errorCode: 'ERR_AUTH_INVALID' });
    expect(err.msg).not.toContain('not-the-key');
  });
});

describe("the production service's refusals, as the official TypeScript client sees them", () => {
  const limited = useSeededService(KEY, { limits: { policies: 3, rulesPerPolicy: 2 } });
  const throttled = useSeededService(KEY, { rateLimit: { requests: 1, perSeconds: 60 } });
  let client: Ngrok;
  beforeAll(() => {
    client = new Ngrok({ apiToken: KEY, baseUrl: limited.url });
  });

  it('sees the codes of rules refused (1406, 1408, 1409, 1411, 1413, 1414, 1422)', async () => {
    const rule = (change: Record<string, string>) =>
      refusal(
        client.ipPolicyRules.create({ ipPolicyId: OFFICE, cidr: '192.0.2.0/24', action: 'allow', ...change }),
      );
    const cases: [string, Record<string, string>][] = [
      ['ERR_NGROK_1406', { cidr: 'office' }],
      ['ERR_NGROK_1409', { cidr: '10.1.2.3/16' }],
      ['ERR_NGROK_1413', { cidr: '10.1.2.3' }],
      ['ERR_NGROK_1414', { ipPolicyId: 'office' }],
      ['ERR_NGROK_1422', { action: 'block' }],
    ];
    for (const [code, change] of cases) {
      expect(await rule(change)).toMatchObject({ statusCode: 400, errorCode: code });
    }
    const p = await client.ipPolicies.create({});
    await client.ipPolicyRules.create({ ipPolicyId: p.id, cidr: '10.0.0.0/8', action: 'allow' });
    await client.ipPolicyRules.create({ ipPolicyId: p.id, cidr: '12.0.0.0/8', action: 'allow' });
    const twice = await refusal(
      client.ipPolicyRules.create({ ipPolicyId: p.id, cidr: '10.0.0.0/8', action: 'deny' }),
    );
    expect(twice).toMatchObject({ statusCode: 400, errorCode: 'ERR_NGROK_1408' });
    const over = await refusal(
      client.ipPolicyRules.create({ ipPolicyId: p.id, cidr: '11.0.0.0/8', action: 'deny' }),
    );
    expect(over).toMatchObject({ statusCode: 400, errorCode: 'ERR_NGROK_1411' });
    await deleted(client.ipPolicies.delete(p.id));
  });

  it('sees the codes of policies and restrictions refused (1410, 1419, 1420, 1801, 1802, 1804)', async () => {
    const p = await client.ipPolicies.create({ description: 'the third' });
    expect(await refusal(client.ipPolicies.create({}))).toMatchObject({
      statusCode: 400,
      errorCode: 'ERR_NGROK_1410',
    });
    const only = await client.ipPolicyRules.create({ ipPolicyId: p.id, cidr: '10.0.0.0/8', action: 'allow' });
    const dashboard = await client.ipRestrictions.create({
      type: 'dashboard',
      enforced: true,
      ipPolicyIds: [p.id],
    });
    const lastRule = await refusal(client.ipPolicyRules.delete(only.id));
    expect(lastRule).toMatchObject({ statusCode: 409, errorCode: 'ERR_NGROK_1419' });
    const named = await refusal(client.ipPolicies.delete(p.id));
    expect(named).toMatchObject({ statusCode: 409, errorCode: 'ERR_NGROK_1420' });
    expect(named.msg).toContain(`${dashboard.id} (dashboard)`);
    const taken = await refusal(
      client.ipRestrictions.create({ type: 'dashboard', enforced: true, ipPolicyIds: [OFFICE] }),
    );
    expect(taken).toMatchObject({ statusCode: 409, errorCode: 'ERR_NGROK_1802' });
    const absent = await refusal(
      client.ipRestrictions.create({ type: 'api', enforced: true, ipPolicyIds: [missing('ipp')] }),
    );
    expect(absent).toMatchObject({ statusCode: 400, errorCode: 'ERR_NGROK_1801' });
    const none = await refusal(
      client.ipRestrictions.create({ type: 'api', enforced: true, ipPolicyIds: [] }),
    );
    expect(none).toMatchObject({ statusCode: 400, errorCode: 'ERR_NGROK_1804' });
    await deleted(client.ipRestrictions.delete(dashboard.id));
    await deleted(client.ipPolicies.delete(p.id));
  });

  it('sees the rate limit (226, 429)', async () => {
    const slow = new Ngrok({ apiToken: KEY, baseUrl: throttled.url });
    await slow.ipPolicies.get(OFFICE);
    expect(await refusal(slow.ipPolicies.get(OFFICE))).toMatchObject({
      statusCode: 429,
      errorCode: 'ERR_NGROK_226',
    });
  });
});
