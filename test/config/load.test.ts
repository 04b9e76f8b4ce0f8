import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadDesiredState } from '../../src/config/index.js';
import { firstInvalidUtf8 } from '../../src/config/source.js';
import { parseDuration } from '../../src/resources/reading.js';
import { closest, levenshtein } from '../../src/suggest.js';
import { lineOf } from '../support/kinds.js';
import { ED25519, IPP, IPP2, problemsOf, REPO, Scratch, SSHCA, y } from './helpers.js';

const scratch = new Scratch();
afterAll(() => scratch.remove());

describe('loadDesiredState on examples/accord.yaml', () => {
  it('normalizes every kind', async () => {
    const s = await loadDesiredState('examples/accord.yaml', REPO);
    // Lines as the example has them today: an entry of a kind added before them moves them down.
    const example = readFileSync(join(REPO, 'examples/accord.yaml'), 'utf8');
    const edge = lineOf(example, /^ {2}edgtcp_2demoDb0+:/);
    expect(s.files).toEqual([{ shown: 'examples/accord.yaml', path: join(REPO, 'examples/accord.yaml') }]);
    expect(s.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(s.owner).toBe('platform');

    const [office, api] = s.ip_restrictions;
    expect(office).toMatchObject({
      kind: 'ip_restriction',
      key: 'office-dashboard',
      type: 'dashboard',
      enforced: true,
      ip_policy_ids: [IPP, IPP2].sort(),
      description: 'Dashboard only from the office and the VPN',
      data: { team: 'platform', ticket: 'OPS-1234' },
      protect: true,
      loc: { file: 'examples/accord.yaml', line: lineOf(example, /^ {2}office-dashboard:/), col: 3 },
    });
    // A policy named by key stays a key in the desired state; the planner resolves it.
    expect(api).toMatchObject({
      key: 'api-clients',
      enforced: false,
      protect: false,
      ip_policy_ids: ['ci-runners', IPP2].sort(),
    });
    expect(api).not.toHaveProperty('data');

    // The policy's rules, inline and from its allow_file, each CIDR once and canonical.
    const [runners] = s.ip_policies;
    expect(runners).toMatchObject({
      kind: 'ip_policy',
      key: 'ci-runners',
      description: 'CI runners and the build farm',
    });
    expect(s.ip_policy_rules.map((r) => `${r.key} ${r.action} ${JSON.stringify(r.description)}`)).toEqual([
      'ci-runners/192.0.2.0/24 allow "build farm"',
      'ci-runners/2001:db8:200::/48 allow "build farm (IPv6)"',
      'ci-runners/192.0.2.13/32 deny "retired runner"',
      'ci-runners/198.18.0.0/24 allow ""',
      'ci-runners/198.18.1.0/24 allow ""',
    ]);

    const [root] = s.certificate_authorities;
    expect(root).toMatchObject({
      kind: 'certificate_authority',
      key: 'internal-root',
      subject_common_name: 'Example Corp Internal Root CA',
      data: { rotation: '2046' },
    });
    expect(root!.ca_pem).toBe(readFileSync(join(REPO, 'examples/certs/internal-root.pem'), 'utf8'));
    expect(root!.ca_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(root!.not_after) - Date.parse(root!.not_before)).toBeGreaterThan(19 * 365 * 86_400_000);

    const [bastion, db, git] = s.ssh_host_certificates;
    expect(bastion).toMatchObject({
      key: 'bastion',
      ssh_certificate_authority_id: SSHCA,
      public_key: ED25519,
      public_key_canonical: ED25519.split(' ').slice(0, 2).join(' '),
      principals: ['10.0.0.5', 'bastion.example.com'],
      valid_for_seconds: 90 * 86_400,
      renew_before_seconds: 30 * 86_400,
      description: 'Bastion host key',
    });
    expect(bastion).not.toHaveProperty('valid_until');
    expect(db).toMatchObject({
      valid_after: '2026-01-01T00:00:00.000Z',
      valid_until: '2036-01-01T00:00:00.000Z',
      public_key_canonical: expect.stringMatching(/^ecdsa-sha2-nistp256 AAAA/),
      description: '',
    });
    expect(git).toMatchObject({ principals: [], public_key_canonical: expect.stringMatching(/^ssh-rsa /) });

    expect(s.tcp_edge_ip_restrictions).toEqual([
      {
        kind: 'tcp_edge_ip_restriction',
        edge_id: 'edgtcp_2demoDb00000000000000000000',
        state: 'present',
        enabled: true,
        ip_policy_ids: [IPP, IPP2].sort(),
        loc: { file: 'examples/accord.yaml', line: lineOf(example, /^ {4}ip_restriction:/, edge), col: 5 },
      },
    ]);
    expect(s.websocket_tcp_converters.map((m) => [m.route_id, m.state, m.enabled])).toEqual([
      ['edghtsrt_2demoWebSocket0000000000000', 'present', true],
      ['edghtsrt_2demoApi0000000000000000000', 'absent', true],
    ]);
  });
});

describe('normalization', () => {
  it('applies defaults, sorts and deduplicates sets, reads timestamps as instants', async () => {
    scratch.write(
      'accord.yaml',
      y(
        'version: 1',
        'ip_restrictions:',
        `  a: {type: agent, enforced: false, ip_policies: [${IPP2}, ${IPP}, ${IPP2}], metadata: }`,
        'ssh_host_certificates:',
        '  h:',
        `    ssh_certificate_authority_id: ${SSHCA}`,
        `    public_key: "  ${ED25519}  "`,
        '    principals: [b, a, b]',
        '    valid_after: 2030-01-01T02:00:00+02:00',
        '    valid_until: 2030-06-01t00:00:00z',
        '    renew_before: 12h',
        'tcp_edges:',
        '  edgtcp_1: {ip_restriction: {ip_policies: [ipp_1]}}',
        '  edgtcp_2: {ip_restriction: absent}',
        'https_edges:',
        '  edghts_1:',
        '    routes:',
        '      edghtsrt_1: {websocket_tcp_converter: {}}',
        '      edghtsrt_2: {websocket_tcp_converter: {enabled: false}}',
      ),
    );
    const s = await loadDesiredState(join(scratch.dir, 'accord.yaml'));
    expect(s.owner).toBe('default');
    expect(s.ip_restrictions[0]).toMatchObject({ ip_policy_ids: [IPP, IPP2].sort(), description: '' });
    expect(s.ip_restrictions[0]).not.toHaveProperty('data');
    expect(s.ssh_host_certificates[0]).toMatchObject({
      public_key: ED25519,
      principals: ['a', 'b'],
      valid_after: '2030-01-01T00:00:00.000Z',
      valid_until: '2030-06-01T00:00:00.000Z',
      renew_before_seconds: 12 * 3600,
    });
    expect(s.tcp_edge_ip_restrictions.map((m) => [m.edge_id, m.state, m.enabled, m.ip_policy_ids])).toEqual([
      ['edgtcp_1', 'present', true, ['ipp_1']],
      ['edgtcp_2', 'absent', true, []],
    ]);
    expect(s.websocket_tcp_converters.map((m) => [m.route_id, m.state, m.enabled])).toEqual([
      ['edghtsrt_1', 'present', true],
      ['edghtsrt_2', 'present', false],
    ]);
  });

  it('accepts a 255-byte multi-byte description and metadata that exactly fills the budget', async () => {
    const { entryBudgetLeft, encodeMarker, APPLIED_MAX_CHARS } = await import(
      '../../src/resources/marker.js'
    );
    // What fits beside the marker once room is kept for the longest fingerprint accord writes.
    const fill = 'x'.repeat(entryBudgetLeft('default', 'a', false, ''));
    scratch.write(
      'accord.yaml',
      y(
        'version: 1',
        'ip_restrictions:',
        `  a: {type: api, enforced: true, ip_policies: [${IPP}], description: "${'é'.repeat(127)}x", metadata: ${fill}}`,
      ),
    );
    const s = await loadDesiredState(join(scratch.dir, 'accord.yaml'));
    expect(Buffer.byteLength(s.ip_restrictions[0]!.description)).toBe(255);
    const applied = 'x'.repeat(APPLIED_MAX_CHARS);
    expect(encodeMarker('default', 'a', false, s.ip_restrictions[0]!.data, { applied })).toHaveLength(4096);
  });

  it('reports every problem of a file at once, in file order', async () => {
    const problems = await problemsOf(
      scratch,
      y(
        'version: 1',
        'ip_restrictions:',
        '  a: {type: api, enforced: maybe, ip_policies: [ipp_1]}',
        '  b: {type: api, enforced: true, ip_policies: [ipp_1]}',
        'certificate_authorities:',
        '  c: {ca_pem_file: missing.pem}',
        'bogus: 1',
      ),
    );
    expect(problems.map((p) => `${p.line}:${p.col} ${p.path}`)).toEqual([
      '3:28 ip_restrictions.a.enforced',
      '4:13 ip_restrictions.b.type',
      '6:20 certificate_authorities.c.ca_pem_file',
      '7:1 bogus',
    ]);
  });

  it('ConfigError lists problems as FILE:LINE:COL: path: message', async () => {
    scratch.write('accord.yaml', y('version: 1', 'owner: 7'));
    const err = await loadDesiredState('accord.yaml', scratch.dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).exitCode).toBe(1);
    expect((err as Error).message).toBe(
      'accord.yaml has 1 problem:\naccord.yaml:2:8: owner: must be a string, not the number 7',
    );
  });

  it('allows an alias to be used many times', async () => {
    const entries = Array.from(
      { length: 300 },
      (_, i) => `  k${i}: {ssh_certificate_authority_id: *ca, public_key: ${ED25519}, principals: [*p]}`,
    );
    scratch.write(
      'accord.yaml',
      y(
        'version: 1',
        'x-shared: &p host.example.com',
        'ssh_host_certificates:',
        `  first: {ssh_certificate_authority_id: &ca ${SSHCA}, public_key: ${ED25519}, principals: []}`,
        ...entries,
      ),
    );
    // x-shared is not a field: anchors must be defined on real values. The file fails only for that.
    const problems = await problemsOf(scratch);
    expect(problems.map((p) => p.path)).toEqual(['x-shared']);
  });
});

describe('helpers', () => {
  it('parseDuration', () => {
    expect(parseDuration('90d')).toBe(90 * 86_400);
    expect(parseDuration('12h')).toBe(43_200);
    expect(parseDuration('30m')).toBe(1_800);
    expect(parseDuration('0d')).toBeUndefined();
    expect(parseDuration('1w')).toBeUndefined();
  });

  it('firstInvalidUtf8', () => {
    expect(firstInvalidUtf8(Buffer.from('héllo ✓ 🎉'))).toBe(Buffer.byteLength('héllo ✓ 🎉'));
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xc0, 0x80]))).toBe(1); // overlong
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xed, 0xa0, 0x80]))).toBe(1); // surrogate
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xe2, 0x82]))).toBe(1); // truncated
  });

  it('levenshtein and closest', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(closest('enforce', ['type', 'enforced'])).toBe('enforced');
    expect(closest('colour', ['type', 'enforced'])).toBeUndefined();
  });
});

it('a ConfigError is never thrown for a good file', async () => {
  await expect(loadDesiredState('examples/accord.yaml', REPO)).resolves.toBeDefined();
});
