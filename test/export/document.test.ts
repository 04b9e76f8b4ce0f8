// The pure half of accord export: live objects in, YAML text and files out.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildExport, type ExportOptions, SCHEMA_COMMENT } from '../../src/export/document.js';
import type { LiveAccount } from '../../src/export/read.js';
import { encodeMarker } from '../../src/resources/marker.js';
import { emptyManaged, IPP_1, liveCa, liveCert, liveIpr, SSHCA_1 } from '../plan/fixtures.js';

const OPTIONS: ExportOptions = {
  owner: 'platform',
  includeManaged: false,
  includeOtherOwners: false,
  pem: 'files',
};

function account(parts: Partial<LiveAccount['managed']> = {}, rest: Partial<LiveAccount> = {}): LiveAccount {
  return {
    // No seeded IP policies: each test names what the account holds.
    managed: { ...emptyManaged(), ip_policy: [], ip_policy_rule: [], ...parts },
    modules: {},
    ...rest,
  };
}

// biome-ignore lint/suspicious/noExplicitAny: the parsed document is read field by field
const doc = (yaml: string): any => parse(yaml);

describe('buildExport', () => {
  it('writes an adopting entry per unmanaged resource, keyed by description', () => {
    const result = buildExport(
      account({
        ip_restriction: [liveIpr('ipx_1', { description: 'Office Dashboard', metadata: 'team=web' })],
        certificate_authority: [
          liveCa('ca_1', 'r1', { description: 'Internal root', metadata: '{"a": [1, 2]}' }),
        ],
        ssh_host_certificate: [liveCert('shcrt_1', { description: '', principals: [] })],
      }),
      OPTIONS,
    );
    expect(result.yaml.startsWith(`#${SCHEMA_COMMENT}\n`)).toBe(true);
    const d = doc(result.yaml);
    expect(d.version).toBe(1);
    expect(d.owner).toBe('platform');
    expect(d.ip_restrictions['office-dashboard']).toEqual({
      id: 'ipx_1',
      description: 'Office Dashboard',
      type: 'dashboard',
      enforced: true,
      ip_policies: [IPP_1],
      metadata: 'team=web',
    });
    expect(d.certificate_authorities['internal-root']).toEqual({
      id: 'ca_1',
      description: 'Internal root',
      ca_pem_file: 'certs/internal-root.pem',
      metadata: { a: [1, 2] },
    });
    expect(result.files).toEqual([{ path: 'certs/internal-root.pem', content: liveCa('ca_1', 'r1').ca_pem }]);
    expect(d.ssh_host_certificates['ssh-host-certificate-1']).toEqual({
      id: 'shcrt_1',
      ssh_certificate_authority_id: SSHCA_1,
      public_key: liveCert('x').public_key,
      principals: [],
      valid_after: '2026-01-01T00:00:00Z',
      valid_until: '2027-11-01T00:00:00Z',
    });
    expect(result.summary).toMatchObject({ adopt: 3, managed: 0, takeover: 0, leftOutManaged: 0 });
  });

  it('keys a resource without a description by what names it: type, subject CN, first principal', () => {
    const out = buildExport(
      account({
        ip_restriction: [
          liveIpr('ipx_2aaaaaaaaaaaaaaaaaaaaaaaaApi1', { type: 'api', description: '' }),
          // An older restriction whose description is "api" keeps that key; the type's gets a tail.
          liveIpr('ipx_2aaaaaaaaaaaaaaaaaaaaaaaaDsh1', {
            description: 'API',
            created_at: '2025-01-01T00:00:00Z',
          }),
          liveIpr('ipx_2aaaaaaaaaaaaaaaaaaaaaaaaAgt1', { type: 'agent', description: '   ' }),
        ],
        certificate_authority: [
          liveCa('ca_2aaaaaaaaaaaaaaaaaaaaaaaaaRoot1', 'r1', { subject_common_name: 'Example Corp Root CA' }),
          liveCa('ca_2aaaaaaaaaaaaaaaaaaaaaaaaaRoot2', 'r2', { subject_common_name: 'Example Corp Root CA' }),
          liveCa('ca_2aaaaaaaaaaaaaaaaaaaaaaaaaKanji', 'r3', { subject_common_name: '社内ルート' }),
        ],
        ssh_host_certificate: [
          liveCert('shcrt_2aaaaaaaaaaaaaaaaaaaaaaaDb1', {
            principals: ['db-1.internal.example.com', 'db-1'],
          }),
          liveCert('shcrt_2aaaaaaaaaaaaaaaaaaaaaaaAll', { principals: [] }),
        ],
      }),
      OPTIONS,
    );
    const d = doc(out.yaml);
    const ids = (section: Record<string, { id: string }>) =>
      Object.fromEntries(Object.entries(section).map(([key, v]) => [key, v.id]));
    expect(ids(d.ip_restrictions)).toEqual({
      api: 'ipx_2aaaaaaaaaaaaaaaaaaaaaaaaDsh1',
      'api-aaaaapi1': 'ipx_2aaaaaaaaaaaaaaaaaaaaaaaaApi1',
      agent: 'ipx_2aaaaaaaaaaaaaaaaaaaaaaaaAgt1',
    });
    expect(ids(d.certificate_authorities)).toEqual({
      'example-corp-root-ca': 'ca_2aaaaaaaaaaaaaaaaaaaaaaaaaRoot1',
      'example-corp-root-ca-aaaroot2': 'ca_2aaaaaaaaaaaaaaaaaaaaaaaaaRoot2',
      'certificate-authority-aaakanji': 'ca_2aaaaaaaaaaaaaaaaaaaaaaaaaKanji',
    });
    expect(d.certificate_authorities['example-corp-root-ca'].ca_pem_file).toBe(
      'certs/example-corp-root-ca.pem',
    );
    expect(ids(d.ssh_host_certificates)).toEqual({
      'db-1.internal.example.com': 'shcrt_2aaaaaaaaaaaaaaaaaaaaaaaDb1',
      'ssh-host-certificate-aaaaaall': 'shcrt_2aaaaaaaaaaaaaaaaaaaaaaaAll',
    });
  });

  it('writes a file with only version and owner for an empty account', () => {
    const out = buildExport(account(), OPTIONS);
    expect(out.yaml.endsWith('owner: platform\n')).toBe(true);
    expect(doc(out.yaml)).toEqual({ version: 1, owner: 'platform' });
  });

  it('marks expired certificates when given the time', () => {
    const live = account({
      certificate_authority: [
        liveCa('ca_1', 'r1', { description: 'old', not_after: '2026-01-01T00:00:00Z' }),
      ],
      ssh_host_certificate: [
        liveCert('shcrt_1', { description: 'old', valid_until: '2026-06-01T00:00:00Z' }),
      ],
    });
    const now = new Date('2026-11-22T00:00:00Z');
    const out = buildExport(live, { ...OPTIONS, now });
    expect(out.yaml).toContain('  # CN=CN r1, EXPIRED on 2026-01-01T00:00:00Z, SHA-256 ');
    expect(out.yaml).toContain('  # expired on 2026-06-01T00:00:00Z: adopting keeps it as it is.');
    const timeless = buildExport(live, OPTIONS);
    expect(timeless.yaml).not.toMatch(/expired/i);
  });

  it('puts CA PEMs inline for stdout', () => {
    const result = buildExport(account({ certificate_authority: [liveCa('ca_1', 'r1')] }), {
      ...OPTIONS,
      pem: 'inline',
    });
    expect(result.files).toEqual([]);
    expect(result.yaml).toContain('    ca_pem: |\n      -----BEGIN CERTIFICATE-----\n');
    expect(Object.values(doc(result.yaml).certificate_authorities)).toEqual([
      { id: 'ca_1', ca_pem: liveCa('ca_1', 'r1').ca_pem },
    ]);
  });

  it("leaves this owner's resources out but keeps their keys reserved; --include-managed writes them by marker", () => {
    const live = account({
      ip_restriction: [
        liveIpr('ipx_1', { type: 'api', metadata: encodeMarker('platform', 'web', true, { t: 1 }) }),
        liveIpr('ipx_2', { description: 'web', created_at: '2025-01-01T00:00:00Z' }),
        liveIpr('ipx_3', {
          type: 'api',
          metadata: encodeMarker('platform', 'web', false),
          created_at: '2026-06-01T00:00:00Z',
        }),
      ],
    });
    const out = buildExport(live, OPTIONS);
    expect(Object.keys(doc(out.yaml).ip_restrictions)).toEqual(['web-2']);
    expect(out.summary.leftOutManaged).toBe(2);
    expect(out.yaml).toContain(
      '# Left out: 2 resources already managed by owner "platform" (--include-managed',
    );

    const all = buildExport(live, { ...OPTIONS, includeManaged: true });
    const d = doc(all.yaml);
    expect(d.ip_restrictions.web).toEqual({
      type: 'api',
      enforced: true,
      ip_policies: [IPP_1],
      metadata: { t: 1 },
      lifecycle: { prevent_destroy: true },
    });
    expect(all.summary.notes).toEqual([
      'ip_restrictions: ipx_3 duplicates key web (kept: ipx_1); left out, and plan will delete it',
    ]);
  });

  it('leaves other owners out unless asked, then names them for --allow-takeover', () => {
    const live = account({
      certificate_authority: [
        liveCa('ca_9', 'o', { metadata: encodeMarker('team-b', 'their-root', false, 'x') }),
      ],
    });
    const out = buildExport(live, OPTIONS);
    expect(doc(out.yaml).certificate_authorities).toBeUndefined();
    expect(out.summary.leftOutOtherOwners).toBe(1);
    const taken = buildExport(live, { ...OPTIONS, includeOtherOwners: true });
    expect(doc(taken.yaml).certificate_authorities['their-root']).toMatchObject({
      id: 'ca_9',
      metadata: 'x',
    });
    expect(taken.yaml).toContain(
      '  # managed by owner "team-b" (key their-root): plan and apply need --allow-takeover\n',
    );
  });

  it('comments out metadata that would not fit beside the marker', () => {
    const big = `{"blob":"${'x'.repeat(4060)}"}`;
    const out = buildExport(
      account({ ip_restriction: [liveIpr('ipx_1', { description: 'a', metadata: big })] }),
      OPTIONS,
    );
    expect(doc(out.yaml).ip_restrictions.a.metadata).toBeUndefined();
    expect(out.yaml).toMatch(
      /# metadata left out: with accord's ownership marker it would be \d+ bytes over/,
    );
    expect(out.yaml).toContain(`# {"blob":"xxxx`);
    expect(out.summary.notes[0]).toMatch(/^ip_restrictions\.a: metadata left out/);
  });

  it('writes configured edge modules and notes the ones it cannot', () => {
    const refs = (ids: string[]) => ids.map((id) => ({ id, uri: `http://x/${id}` }));
    const out = buildExport(
      account(
        {},
        {
          modules: {
            tcp_edge_ip_restriction: {
              edges: ['edgtcp_1', 'edgtcp_2'],
              found: [
                {
                  identity: { edge_id: 'edgtcp_1' },
                  live: { enabled: false, ip_policies: refs(['ipp_b', 'ipp_a']) },
                },
                { identity: { edge_id: 'edgtcp_2' }, live: null },
              ],
            },
            websocket_tcp_converter: {
              edges: ['edghts_1', 'edghts_2'],
              found: [
                { identity: { edge_id: 'edghts_1', route_id: 'edghtsrt_1' }, live: { enabled: true } },
                { identity: { edge_id: 'edghts_1', route_id: 'edghtsrt_2' }, live: null },
              ],
            },
          },
        },
      ),
      OPTIONS,
    );
    const d = doc(out.yaml);
    expect(d.tcp_edges).toEqual({
      edgtcp_1: { ip_restriction: { enabled: false, ip_policies: ['ipp_a', 'ipp_b'] } },
    });
    expect(d.https_edges).toEqual({
      edghts_1: { routes: { edghtsrt_1: { websocket_tcp_converter: { enabled: true } } } },
    });
    expect(out.summary.modules).toBe(2);
    expect(out.summary.notes).toEqual([
      'tcp_edges.edgtcp_2: no IP restriction module is configured (or no such edge); left out',
      'https_edges.edghts_1: 1 of 2 routes have no websocket TCP converter module configured; left out',
      'https_edges.edghts_2: the edge has no routes; left out',
    ]);
  });

  it('gives the same bytes whatever order the API lists things in', () => {
    const items = Array.from({ length: 12 }, (_, i) =>
      liveCa(`ca_${i}`, `s${i}`, {
        description: i % 3 === 0 ? '' : `Root ${i % 2}`,
        created_at: `2026-01-${10 + i}T00:00:00Z`,
      }),
    );
    const a = buildExport(account({ certificate_authority: items }), OPTIONS);
    const b = buildExport(account({ certificate_authority: [...items].reverse() }), OPTIONS);
    expect(b.yaml).toBe(a.yaml);
    expect(b.files).toEqual(a.files);
    // A newer resource with a colliding description does not move the older ones' keys.
    const c = buildExport(
      account({
        certificate_authority: [
          ...items,
          liveCa('ca_new', 'n', { description: 'Root 1', created_at: '2026-03-01T00:00:00Z' }),
        ],
      }),
      OPTIONS,
    );
    const keysOf = (yaml: string) =>
      Object.fromEntries(
        Object.entries(doc(yaml).certificate_authorities as Record<string, { id: string }>).map(([k, v]) => [
          v.id,
          k,
        ]),
      );
    expect(keysOf(c.yaml)).toMatchObject(keysOf(a.yaml));
  });
});
