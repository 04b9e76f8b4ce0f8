import { describe, expect, it } from 'vitest';
import type { LiveState } from '../../src/account/model.js';
import { plan } from '../../src/cli/worded-plan.js';
import { PlanError } from '../../src/plan/planner.js';
import type { Plan, PlanChange } from '../../src/plan/types.js';
import { decodeMarker } from '../../src/resources/marker.js';
import {
  ca,
  cert,
  desiredState,
  emptyLive,
  IPP_1,
  IPP_2,
  ipr,
  KEY_B,
  liveCa,
  liveCert,
  liveIpr,
  marker,
  NOW,
  OPTIONS,
  SEEDED_POLICIES,
  SSHCA_1,
  tcpModule,
  wsModule,
} from './fixtures.js';

type Desired = ReturnType<typeof desiredState>;

function live(parts: Partial<LiveState['managed']> = {}, modules: LiveState['modules'] = {}): LiveState {
  const l = emptyLive();
  return { managed: { ...l.managed, ...parts }, modules };
}

function only(p: Plan): PlanChange {
  const active = p.changes.filter((c) => c.action !== 'no-op');
  expect(active).toHaveLength(1);
  return active[0]!;
}

/** The body with the marker's `applied` fingerprint left out (test/plan/drift.test.ts checks it). */
function withoutFingerprint(body: Record<string, unknown> | undefined) {
  if (typeof body?.['metadata'] !== 'string' || !body['metadata'].startsWith('{')) return body;
  const m = JSON.parse(body['metadata']) as { accord?: Record<string, unknown> };
  if (m.accord) delete m.accord['applied'];
  return { ...body, metadata: JSON.stringify(m) };
}

interface Row {
  name: string;
  desired: Desired;
  live: LiveState;
  action: PlanChange['action'];
  reasons: string[];
  fields?: string[];
  body?: Record<string, unknown>;
}

const rows: Row[] = [
  // IP restrictions
  {
    name: 'ip_restriction: create',
    desired: desiredState({ ip_restrictions: [ipr('office', { description: 'hi' })] }),
    live: live(),
    action: 'create',
    reasons: ['not in the account yet'],
    body: {
      type: 'dashboard',
      enforced: true,
      ip_policy_ids: [IPP_1],
      description: 'hi',
      metadata: '{"accord":{"owner":"platform","key":"office"}}',
    },
  },
  {
    name: 'ip_restriction: enforced changed',
    desired: desiredState({ ip_restrictions: [ipr('office', { enforced: false })] }),
    live: live({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('office') })] }),
    action: 'patch',
    reasons: ['enforced changed'],
    fields: ['enforced'],
    body: { enforced: false, metadata: '{"accord":{"owner":"platform","key":"office"}}' },
  },
  {
    name: 'ip_restriction: ip_policies changed',
    desired: desiredState({ ip_restrictions: [ipr('office', { ip_policy_ids: [IPP_1, IPP_2] })] }),
    live: live({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('office') })] }),
    action: 'patch',
    reasons: ['ip_policies changed'],
    fields: ['ip_policies'],
    body: { ip_policy_ids: [IPP_1, IPP_2], metadata: marker('office') },
  },
  {
    name: 'ip_restriction: description changed',
    desired: desiredState({ ip_restrictions: [ipr('office', { description: 'new' })] }),
    live: live({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('office'), description: 'old' })] }),
    action: 'patch',
    reasons: ['description changed'],
    fields: ['description'],
    body: { description: 'new', metadata: marker('office') },
  },
  {
    name: 'ip_restriction: metadata data changed',
    desired: desiredState({ ip_restrictions: [ipr('office', { data: { team: 'b' } })] }),
    live: live({
      ip_restriction: [liveIpr('ipx_1', { metadata: marker('office', { data: { team: 'a' } }) })],
    }),
    action: 'patch',
    reasons: ['metadata changed'],
    fields: ['metadata'],
    body: { metadata: marker('office', { data: { team: 'b' } }) },
  },
  {
    name: 'ip_restriction: protect turned on',
    desired: desiredState({ ip_restrictions: [ipr('office', { protect: true })] }),
    live: live({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('office') })] }),
    action: 'patch',
    reasons: ['lifecycle.prevent_destroy changed'],
    fields: ['protect'],
    body: { metadata: marker('office', { protect: true }) },
  },
  {
    name: 'ip_restriction: type changed',
    desired: desiredState({ ip_restrictions: [ipr('office', { type: 'api' })] }),
    live: live({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('office') })] }),
    action: 'replace',
    reasons: ['type cannot be updated'],
    fields: ['type'],
  },
  {
    name: 'ip_restriction: removed from the file',
    desired: desiredState(),
    live: live({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('office') })] }),
    action: 'delete',
    reasons: ['not in the file'],
  },
  {
    name: 'ip_restriction: adopt unmanaged by id',
    desired: desiredState({ ip_restrictions: [ipr('office', { id: 'ipx_1' })] }),
    live: live({ ip_restriction: [liveIpr('ipx_1', { metadata: 'hand made' })] }),
    action: 'adopt',
    reasons: ['adopts unmanaged ipx_1 named by id:', 'metadata changed', 'marker changed'],
    fields: ['metadata', 'marker'],
    body: { metadata: marker('office') },
  },
  {
    name: 'ip_restriction: adopt keeping unmarked metadata as data (string)',
    desired: desiredState({ ip_restrictions: [ipr('office', { id: 'ipx_1', data: 'hand made' })] }),
    live: live({ ip_restriction: [liveIpr('ipx_1', { metadata: 'hand made' })] }),
    action: 'adopt',
    reasons: ['adopts unmanaged ipx_1 named by id:', 'marker changed'],
    fields: ['marker'],
    body: { metadata: marker('office', { data: 'hand made' }) },
  },
  {
    name: 'ip_restriction: adopt keeping unmarked JSON metadata as data',
    desired: desiredState({ ip_restrictions: [ipr('office', { id: 'ipx_1', data: { team: 'a', n: [1] } })] }),
    live: live({ ip_restriction: [liveIpr('ipx_1', { metadata: '{ "team": "a", "n": [1] }' })] }),
    action: 'adopt',
    reasons: ['adopts unmanaged ipx_1 named by id:', 'marker changed'],
    fields: ['marker'],
    body: { metadata: marker('office', { data: { team: 'a', n: [1] } }) },
  },
  {
    name: 'ip_restriction: adopt with empty live metadata and none in the file',
    desired: desiredState({ ip_restrictions: [ipr('office', { id: 'ipx_1' })] }),
    live: live({ ip_restriction: [liveIpr('ipx_1', { metadata: '' })] }),
    action: 'adopt',
    reasons: ['adopts unmanaged ipx_1 named by id:', 'marker changed'],
    fields: ['marker'],
  },
  {
    name: 'ip_restriction: adopt with a patchable difference',
    desired: desiredState({ ip_restrictions: [ipr('office', { id: 'ipx_1', enforced: false })] }),
    live: live({ ip_restriction: [liveIpr('ipx_1')] }),
    action: 'adopt',
    reasons: ['adopts unmanaged ipx_1 named by id:', 'enforced changed', 'marker changed'],
    body: { enforced: false, metadata: marker('office') },
  },
  {
    name: 'ip_restriction: adopt with an immutable difference is a replace',
    desired: desiredState({ ip_restrictions: [ipr('office', { id: 'ipx_1', type: 'agent' })] }),
    live: live({ ip_restriction: [liveIpr('ipx_1')] }),
    action: 'replace',
    reasons: ['adopts unmanaged ipx_1 named by id:', 'type cannot be updated'],
  },
  {
    name: 'ip_restriction: takeover allowed',
    desired: desiredState({ ip_restrictions: [ipr('office', { id: 'ipx_1' })] }),
    live: live({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('x', { owner: 'team-b' }) })] }),
    action: 'adopt',
    reasons: ['takes ipx_1 over from owner "team-b" (--allow-takeover)', 'marker changed'],
  },
  {
    name: 'ip_restriction: rename by id',
    desired: desiredState({ ip_restrictions: [ipr('front', { id: 'ipx_1' })] }),
    live: live({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('office') })] }),
    action: 'patch',
    reasons: ['renamed from office'],
  },
  // certificate authorities
  {
    name: 'certificate_authority: create',
    desired: desiredState({ certificate_authorities: [ca('root', 'r1')] }),
    live: live(),
    action: 'create',
    reasons: ['not in the account yet'],
  },
  {
    name: 'certificate_authority: PEM changed',
    desired: desiredState({ certificate_authorities: [ca('root', 'r2')] }),
    live: live({ certificate_authority: [liveCa('ca_1', 'r1', { metadata: marker('root') })] }),
    action: 'replace',
    reasons: ['ca_pem cannot be updated'],
    fields: ['ca_pem'],
  },
  {
    name: 'certificate_authority: description changed',
    desired: desiredState({ certificate_authorities: [ca('root', 'r1', { description: 'Root' })] }),
    live: live({ certificate_authority: [liveCa('ca_1', 'r1', { metadata: marker('root') })] }),
    action: 'patch',
    reasons: ['description changed'],
    body: { description: 'Root', metadata: marker('root') },
  },
  {
    name: 'certificate_authority: removed',
    desired: desiredState(),
    live: live({ certificate_authority: [liveCa('ca_1', 'r1', { metadata: marker('root') })] }),
    action: 'delete',
    reasons: ['not in the file'],
  },
  // SSH host certificates
  {
    name: 'ssh_host_certificate: create with valid_for',
    desired: desiredState({ ssh_host_certificates: [cert('bastion', { valid_for_seconds: 86_400 })] }),
    live: live(),
    action: 'create',
    reasons: ['not in the account yet'],
    body: {
      ssh_certificate_authority_id: SSHCA_1,
      public_key: expect.stringContaining('host@x'),
      principals: ['a.example.com'],
      valid_until: '2026-11-23T00:00:00.000Z',
      metadata: marker('bastion'),
    },
  },
  {
    name: 'ssh_host_certificate: principals changed',
    desired: desiredState({ ssh_host_certificates: [cert('bastion', { principals: ['b'] })] }),
    live: live({ ssh_host_certificate: [liveCert('shcrt_1', { metadata: marker('bastion') })] }),
    action: 'replace',
    reasons: ['principals cannot be updated'],
  },
  {
    name: 'ssh_host_certificate: public key changed',
    desired: desiredState({
      ssh_host_certificates: [cert('bastion', { public_key: KEY_B, public_key_canonical: KEY_B })],
    }),
    live: live({ ssh_host_certificate: [liveCert('shcrt_1', { metadata: marker('bastion') })] }),
    action: 'replace',
    reasons: ['public_key cannot be updated'],
  },
  {
    name: 'ssh_host_certificate: valid_until set and different',
    desired: desiredState({
      ssh_host_certificates: [cert('bastion', { valid_until: '2028-01-01T00:00:00.000Z' })],
    }),
    live: live({ ssh_host_certificate: [liveCert('shcrt_1', { metadata: marker('bastion') })] }),
    action: 'replace',
    reasons: ['valid_until cannot be updated'],
  },
  {
    name: 'ssh_host_certificate: renew_before reached',
    desired: desiredState({
      ssh_host_certificates: [cert('bastion', { renew_before_seconds: 30 * 86_400 })],
    }),
    live: live({
      ssh_host_certificate: [
        liveCert('shcrt_1', { metadata: marker('bastion'), valid_until: '2026-12-04T12:00:00Z' }),
      ],
    }),
    action: 'replace',
    reasons: ['expires in 12 days (renew_before)'],
  },
  {
    name: 'ssh_host_certificate: already expired with renew_before',
    desired: desiredState({ ssh_host_certificates: [cert('bastion', { renew_before_seconds: 86_400 })] }),
    live: live({
      ssh_host_certificate: [
        liveCert('shcrt_1', { metadata: marker('bastion'), valid_until: '2026-11-19T00:00:00Z' }),
      ],
    }),
    action: 'replace',
    reasons: ['expired 3 days ago (renew_before)'],
  },
  {
    name: 'ssh_host_certificate: duplicate marker, oldest kept',
    desired: desiredState({ ssh_host_certificates: [cert('bastion')] }),
    live: live({
      ssh_host_certificate: [
        liveCert('shcrt_2', { metadata: marker('bastion'), created_at: '2026-02-01T00:00:00Z' }),
        liveCert('shcrt_1', { metadata: marker('bastion'), created_at: '2026-01-01T00:00:00Z' }),
      ],
    }),
    action: 'delete',
    reasons: ['duplicate of shcrt_1 (key bastion; the oldest is kept)'],
  },
  {
    name: 'certificate_authority: adopt by id',
    desired: desiredState({ certificate_authorities: [ca('root', 'r1', { id: 'ca_1' })] }),
    live: live({ certificate_authority: [liveCa('ca_1', 'r1')] }),
    action: 'adopt',
    reasons: ['adopts unmanaged ca_1 named by id:', 'marker changed'],
    body: { metadata: marker('root') },
  },
  {
    name: 'ssh_host_certificate: description changed',
    desired: desiredState({ ssh_host_certificates: [cert('bastion', { description: 'Bastion' })] }),
    live: live({ ssh_host_certificate: [liveCert('shcrt_1', { metadata: marker('bastion') })] }),
    action: 'patch',
    reasons: ['description changed'],
    body: { description: 'Bastion', metadata: marker('bastion') },
  },
  {
    name: 'ssh_host_certificate: adopt by id',
    desired: desiredState({ ssh_host_certificates: [cert('bastion', { id: 'shcrt_1', data: { a: 1 } })] }),
    live: live({ ssh_host_certificate: [liveCert('shcrt_1')] }),
    action: 'adopt',
    reasons: ['adopts unmanaged shcrt_1 named by id:', 'metadata changed', 'marker changed'],
    body: { metadata: marker('bastion', { data: { a: 1 } }) },
  },
  {
    name: 'ssh_host_certificate: removed',
    desired: desiredState(),
    live: live({ ssh_host_certificate: [liveCert('shcrt_1', { metadata: marker('bastion') })] }),
    action: 'delete',
    reasons: ['not in the file'],
  },
  {
    name: 'websocket_tcp_converter: not configured',
    desired: desiredState({ websocket_tcp_converters: [wsModule('edghts_1', 'edghtsrt_1')] }),
    live: live({}, { 'https_edges.edghts_1.routes.edghtsrt_1.websocket_tcp_converter': null }),
    action: 'put',
    reasons: ['not configured'],
    body: { enabled: true },
  },
  {
    name: 'tcp_edge_ip_restriction: disabled',
    desired: desiredState({ tcp_edge_ip_restrictions: [tcpModule('edgtcp_1', { enabled: false })] }),
    live: live({}, { 'tcp_edges.edgtcp_1.ip_restriction': { ip_policies: [{ id: IPP_1 }] } }),
    action: 'put',
    reasons: ['enabled changed'],
    body: { enabled: false, ip_policy_ids: [IPP_1] },
  },
  // modules
  {
    name: 'tcp_edge_ip_restriction: not configured',
    desired: desiredState({ tcp_edge_ip_restrictions: [tcpModule('edgtcp_1')] }),
    live: live({}, { 'tcp_edges.edgtcp_1.ip_restriction': null }),
    action: 'put',
    reasons: ['not configured'],
    body: { enabled: true, ip_policy_ids: [IPP_1] },
  },
  {
    name: 'tcp_edge_ip_restriction: policies changed',
    desired: desiredState({
      tcp_edge_ip_restrictions: [tcpModule('edgtcp_1', { ip_policy_ids: [IPP_1, IPP_2] })],
    }),
    live: live({}, { 'tcp_edges.edgtcp_1.ip_restriction': { enabled: true, ip_policies: [{ id: IPP_1 }] } }),
    action: 'put',
    reasons: ['ip_policies changed'],
  },
  {
    name: 'tcp_edge_ip_restriction: absent',
    desired: desiredState({ tcp_edge_ip_restrictions: [tcpModule('edgtcp_1', { state: 'absent' })] }),
    live: live({}, { 'tcp_edges.edgtcp_1.ip_restriction': { enabled: true, ip_policies: [{ id: IPP_1 }] } }),
    action: 'delete',
    reasons: ['set to "absent"'],
  },
  {
    name: 'websocket_tcp_converter: enabled changed',
    desired: desiredState({
      websocket_tcp_converters: [wsModule('edghts_1', 'edghtsrt_1', { enabled: false })],
    }),
    live: live({}, { 'https_edges.edghts_1.routes.edghtsrt_1.websocket_tcp_converter': { enabled: true } }),
    action: 'put',
    reasons: ['enabled changed'],
    body: { enabled: false },
  },
  {
    name: 'websocket_tcp_converter: absent',
    desired: desiredState({
      websocket_tcp_converters: [wsModule('edghts_1', 'edghtsrt_1', { state: 'absent' })],
    }),
    live: live({}, { 'https_edges.edghts_1.routes.edghtsrt_1.websocket_tcp_converter': {} }),
    action: 'delete',
    reasons: ['set to "absent"'],
  },
];

describe('plan: one action per row', () => {
  it.each(rows)('$name', (row) => {
    const p = plan(row.desired, row.live, NOW, { ...OPTIONS, allowTakeover: true });
    const c = only(p);
    expect(c.action).toBe(row.action);
    expect(c.reasons).toEqual(row.reasons);
    if (row.fields) expect(c.changed_fields).toEqual(row.fields);
    if (row.body)
      expect(withoutFingerprint(c.requests.find((r) => r.method !== 'DELETE')?.body)).toEqual(row.body);
    expect(p.summary[c.action === 'no-op' ? 'no_op' : c.action]).toBe(1);
  });
});

const noOpRows: { name: string; desired: Desired; live: LiveState }[] = [
  {
    name: 'ip_restriction: sets, omitted description',
    desired: desiredState({ ip_restrictions: [ipr('office', { ip_policy_ids: [IPP_1, IPP_2] })] }),
    live: live({
      ip_restriction: [liveIpr('ipx_1', { metadata: marker('office'), description: '' }, [IPP_2, IPP_1])],
    }),
  },
  {
    name: 'ip_restriction: marker compared as JSON, not text',
    desired: desiredState({ ip_restrictions: [ipr('office', { data: { a: 1, b: 2 } })] }),
    live: live({
      ip_restriction: [
        liveIpr('ipx_1', {
          metadata: '{ "data": {"b":2,"a":1}, "accord": {"key":"office","owner":"platform"} }',
        }),
      ],
    }),
  },
  {
    name: 'certificate_authority: PEM with another trailing newline',
    desired: desiredState({ certificate_authorities: [ca('root', 'r1')] }),
    live: live({
      certificate_authority: [
        liveCa('ca_1', 'r1', { metadata: marker('root'), ca_pem: `${liveCa('x', 'r1').ca_pem}\n` }),
      ],
    }),
  },
  {
    name: 'ssh_host_certificate: comment, principal order and instants',
    desired: desiredState({
      ssh_host_certificates: [
        cert('bastion', {
          principals: ['a', 'b'],
          valid_until: '2027-11-01T01:00:00.000Z',
          valid_for_seconds: 5,
        }),
      ],
    }),
    live: live({
      ssh_host_certificate: [
        liveCert('shcrt_1', {
          metadata: marker('bastion'),
          principals: ['b', 'a'],
          valid_until: '2027-11-01T02:00:00+01:00',
        }),
      ],
    }),
  },
  {
    name: 'ssh_host_certificate: renew_before not reached',
    desired: desiredState({ ssh_host_certificates: [cert('bastion', { renew_before_seconds: 86_400 })] }),
    live: live({ ssh_host_certificate: [liveCert('shcrt_1', { metadata: marker('bastion') })] }),
  },
  {
    name: 'modules: enabled defaults to true',
    desired: desiredState({
      tcp_edge_ip_restrictions: [tcpModule('edgtcp_1')],
      websocket_tcp_converters: [wsModule('edghts_1', 'edghtsrt_1')],
    }),
    live: live(
      {},
      {
        'tcp_edges.edgtcp_1.ip_restriction': { ip_policies: [{ id: IPP_1, uri: 'u' }] },
        'https_edges.edghts_1.routes.edghtsrt_1.websocket_tcp_converter': {},
      },
    ),
  },
  {
    name: 'modules: absent and not configured',
    desired: desiredState({ tcp_edge_ip_restrictions: [tcpModule('edgtcp_1', { state: 'absent' })] }),
    live: live({}, { 'tcp_edges.edgtcp_1.ip_restriction': null }),
  },
];

describe('plan: no perpetual diff', () => {
  it.each(noOpRows)('$name', (row) => {
    const p = plan(row.desired, row.live, NOW, OPTIONS);
    expect(p.changes.map((c) => [c.action, c.reasons])).toEqual(p.changes.map(() => ['no-op', []]));
    expect(p.changes.every((c) => c.requests.length === 0)).toBe(true);
  });
});

describe('plan: ownership', () => {
  it('leaves unmanaged and other owners alone and counts them', () => {
    const p = plan(
      desiredState(),
      live({
        ip_restriction: [
          liveIpr('ipx_1'),
          liveIpr('ipx_2', { type: 'api', metadata: marker('x', { owner: 'b' }) }),
        ],
        ssh_host_certificate: [liveCert('shcrt_1', { metadata: '{"accord":"nope"}' })],
      }),
      NOW,
      OPTIONS,
    );
    expect(p.changes).toEqual([]);
    expect(p.summary.unmanaged).toBe(2 + SEEDED_POLICIES);
    expect(p.summary.other_owners).toBe(1);
  });

  it('refuses adopting another owner without --allow-takeover, and unknown ids', () => {
    const desired = desiredState({
      ip_restrictions: [ipr('office', { id: 'ipx_1' })],
      ssh_host_certificates: [cert('gone', { id: 'shcrt_9' })],
    });
    const l = live({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('x', { owner: 'b' }) })] });
    expect(() => plan(desired, l, NOW, OPTIONS)).toThrow(PlanError);
    try {
      plan(desired, l, NOW, OPTIONS);
    } catch (err) {
      expect((err as PlanError).messages).toEqual([
        expect.stringContaining('belongs to owner "b"'),
        expect.stringContaining('shcrt_9 does not exist'),
      ]);
    }
  });

  it('deletes duplicates of a removed key, the oldest at the plain address', () => {
    const p = plan(
      desiredState(),
      live({
        ssh_host_certificate: [
          liveCert('shcrt_b', { metadata: marker('k'), created_at: '2026-03-01T00:00:00Z' }),
          liveCert('shcrt_a', { metadata: marker('k'), created_at: '2026-03-01T00:00:00Z' }),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(p.changes.map((c) => [c.address, c.id])).toEqual([
      ['ssh_host_certificates.k', 'shcrt_a'],
      ['ssh_host_certificates.k#shcrt_b', 'shcrt_b'],
    ]);
  });

  it('an id: entry makes another object with its key a duplicate', () => {
    const p = plan(
      desiredState({ ssh_host_certificates: [cert('k', { id: 'shcrt_2' })] }),
      live({ ssh_host_certificate: [liveCert('shcrt_1', { metadata: marker('k') }), liveCert('shcrt_2')] }),
      NOW,
      OPTIONS,
    );
    expect(p.changes.map((c) => [c.address, c.action])).toEqual([
      ['ssh_host_certificates.k', 'adopt'],
      ['ssh_host_certificates.k#shcrt_1', 'delete'],
    ]);
  });
});

describe('plan: ordering', () => {
  // Slots, renames and swaps: test/plan/slots.test.ts.
  it('replace creates before it deletes when the type is free', () => {
    const p = plan(
      desiredState({ ip_restrictions: [ipr('office', { type: 'api' })] }),
      live({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('office') })] }),
      NOW,
      OPTIONS,
    );
    const c = only(p);
    expect(c.replace_order).toBe('create_before_delete');
    expect(c.requests.map((r) => r.method)).toEqual(['POST', 'DELETE']);
    expect(c.depends_on).toEqual([]);
  });

  it('lists changes in kind order, then by address', () => {
    const p = plan(
      desiredState({
        ip_restrictions: [ipr('z'), ipr('a', { type: 'api' })],
        ssh_host_certificates: [cert('m')],
        tcp_edge_ip_restrictions: [tcpModule('edgtcp_1')],
      }),
      live(),
      NOW,
      OPTIONS,
    );
    expect(p.changes.map((c) => c.address)).toEqual([
      'ip_restrictions.a',
      'ip_restrictions.z',
      'ssh_host_certificates.m',
      'tcp_edges.edgtcp_1.ip_restriction',
    ]);
  });
});

describe('plan: safety', () => {
  const owned = (n: number) =>
    Array.from({ length: n }, (_, i) => liveCert(`shcrt_${i}`, { metadata: marker(`c${i}`) }));
  const keep = (n: number) => Array.from({ length: n }, (_, i) => cert(`c${i}`));

  it('deleting more than 30% of >= 10 managed resources is unsafe', () => {
    const p = plan(
      desiredState({ ssh_host_certificates: keep(6) }),
      live({ ssh_host_certificate: owned(10) }),
      NOW,
      OPTIONS,
    );
    expect(p.safe).toBe(false);
    expect(p.unsafe_reasons).toEqual([
      expect.stringContaining('would delete or replace 4 of 10 managed resources (40%)'),
    ]);
    expect(p.safety).toMatchObject({ managed: 10, destroyed: 4, threshold_exceeded: true, forced: false });
  });

  it('exactly 30% is safe, and fewer than 10 managed is never over the threshold', () => {
    expect(
      plan(
        desiredState({ ssh_host_certificates: keep(7) }),
        live({ ssh_host_certificate: owned(10) }),
        NOW,
        OPTIONS,
      ).safe,
    ).toBe(true);
    expect(plan(desiredState(), live({ ssh_host_certificate: owned(9) }), NOW, OPTIONS).safe).toBe(true);
  });

  it('--force and --max-destroy-percent allow it', () => {
    const d = desiredState({ ssh_host_certificates: keep(6) });
    const forced = plan(d, live({ ssh_host_certificate: owned(10) }), NOW, { ...OPTIONS, force: true });
    expect(forced.safe).toBe(true);
    expect(forced.warnings).toContainEqual(expect.stringContaining('allowed by --force'));
    expect(
      plan(d, live({ ssh_host_certificate: owned(10) }), NOW, { ...OPTIONS, maxDestroyPercent: 50 }).safe,
    ).toBe(true);
  });

  it('protect refuses a delete and a replace, even with --force', () => {
    const l = live({
      ip_restriction: [liveIpr('ipx_1', { metadata: marker('a', { protect: true }) })],
      ssh_host_certificate: [liveCert('shcrt_1', { metadata: marker('c', { protect: true }) })],
    });
    const p = plan(
      desiredState({ ssh_host_certificates: [cert('c', { principals: ['other'], protect: true })] }),
      l,
      NOW,
      { ...OPTIONS, force: true },
    );
    expect(p.safe).toBe(false);
    expect(p.safety.protected).toEqual(['ip_restrictions.a', 'ssh_host_certificates.c']);
    expect(p.unsafe_reasons).toHaveLength(2);
  });
});

describe('plan: warnings and metadata', () => {
  it('warns for CAs that expire within 30 days or have expired', () => {
    const p = plan(
      desiredState({
        certificate_authorities: [
          ca('soon', 's', { not_after: '2026-12-02T00:00:00.000Z' }),
          ca('old', 'o', { not_after: '2026-11-01T00:00:00.000Z' }),
          ca('fine', 'f'),
        ],
      }),
      live(),
      NOW,
      OPTIONS,
    );
    expect(p.warnings).toEqual([
      expect.stringContaining('certificate_authorities.soon: the certificate (CN=CN s) expires in 10 days'),
      expect.stringContaining('certificate_authorities.old: the certificate (CN=CN o) expired on'),
    ]);
  });

  it('warns instead of replacing forever when a fixed valid_until is inside renew_before', () => {
    const p = plan(
      desiredState({
        ssh_host_certificates: [
          cert('b', { renew_before_seconds: 30 * 86_400, valid_until: '2026-12-01T00:00:00.000Z' }),
        ],
      }),
      live({
        ssh_host_certificate: [
          liveCert('shcrt_1', { metadata: marker('b'), valid_until: '2026-12-01T00:00:00Z' }),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(p.changes[0]!.action).toBe('no-op');
    expect(p.warnings).toEqual([expect.stringContaining('is within renew_before')]);
  });

  it('plan header', () => {
    const obj = liveIpr('ipx_1', { metadata: marker('a') });
    const p = plan(
      desiredState({ ip_restrictions: [ipr('a', { enforced: false })] }),
      live({ ip_restriction: [obj] }),
      NOW,
      OPTIONS,
    );
    expect(p).toMatchObject({
      format_version: 5,
      api_url: OPTIONS.apiUrl,
      owner: 'platform',
      created_at: NOW.toISOString(),
      files: ['accord.yaml'],
      config_digest: 'a'.repeat(64),
    });
    expect(plan(desiredState({}), live({}), NOW, { ...OPTIONS, files: ['a.yaml', 'b.yaml'] }).files).toEqual([
      'a.yaml',
      'b.yaml',
    ]);
    expect(decodeMarker(String(p.changes[0]!.requests[0]!.body!['metadata']))).toMatchObject({
      owner: 'platform',
      key: 'a',
      protect: false,
    });
  });
});
