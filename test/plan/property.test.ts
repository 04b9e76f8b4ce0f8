// For any desired and live state: applying the plan to an in-memory account, in any order the plan
// allows, never leaves a type that the account and the file both want unrestricted; planning again gives
// only no-ops, and no request ever touches an unmanaged resource or another owner's.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import { reasonText } from '../../src/render/reasons.js';
import type { DesiredCertificateAuthority } from '../../src/resources/certificate_authority.js';
import type { DesiredIpRestriction } from '../../src/resources/ip_restriction.js';
import type { DesiredSshHostCertificate } from '../../src/resources/ssh_host_certificate.js';
import type { LiveObject } from '../../src/resources/values.js';
import { FakeAccount } from '../support/account.js';
import {
  ca,
  cert,
  desiredState,
  IPP_1,
  IPP_2,
  IPP_3,
  ipr,
  KEY_A,
  KEY_B,
  liveCa,
  liveCert,
  liveIpr,
  marker,
  NOW,
  OPTIONS,
  SSHCA_1,
  SSHCA_2,
  tcpModule,
  wsModule,
} from './fixtures.js';

const TYPES = ['dashboard', 'api', 'agent', 'endpoints'] as const;
const KEYS = ['a', 'b', 'c', 'd', 'e'];
const CA_SEEDS = {
  r1: { cn: 'CN r1', notAfter: '2030-01-01T00:00:00Z' },
  r2: { cn: 'CN r2', notAfter: '2030-01-01T00:00:00Z' },
};

type Holder = { kind: 'none' } | { kind: 'unmanaged' } | { kind: 'other' } | { kind: 'mine'; key: string };
const holder: fc.Arbitrary<Holder> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.constant({ kind: 'unmanaged' as const }),
  fc.constant({ kind: 'other' as const }),
  fc.constantFrom(...KEYS).map((key) => ({ kind: 'mine' as const, key })),
);
const metadataFor = (h: Holder, data?: unknown): string | undefined =>
  h.kind === 'mine'
    ? marker(h.key, { data })
    : h.kind === 'other'
      ? marker('a', { owner: 'team-b' })
      : h.kind === 'unmanaged'
        ? 'by hand'
        : undefined;

const policies = fc.subarray([IPP_1, IPP_2, IPP_3], { minLength: 1 });
const description = fc.constantFrom('', 'x');
const data = fc.constantFrom(undefined, { team: 'p' });

const iprEntries = fc
  .uniqueArray(fc.record({ key: fc.constantFrom(...KEYS), type: fc.constantFrom(...TYPES) }), {
    selector: (e) => e.key,
    maxLength: 4,
  })
  .chain((entries) => {
    const unique = entries.filter((e, i) => entries.findIndex((x) => x.type === e.type) === i);
    return fc.tuple(
      ...unique.map((e) =>
        fc
          .record({
            enforced: fc.boolean(),
            ip_policy_ids: policies,
            description,
            data,
            protect: fc.boolean(),
          })
          .map(
            (o): DesiredIpRestriction =>
              ipr(e.key, { ...o, type: e.type, ip_policy_ids: [...o.ip_policy_ids].sort() }),
          ),
      ),
    );
  });

const liveIprs = fc.tuple(
  ...TYPES.map(() => fc.record({ holder, enforced: fc.boolean(), ipp: policies, data })),
);

const caEntries = fc.uniqueArray(
  fc.record({ key: fc.constantFrom(...KEYS), seed: fc.constantFrom('r1', 'r2'), description, data }),
  { selector: (e) => e.key, maxLength: 3 },
);
const liveCas = fc.array(fc.record({ holder, seed: fc.constantFrom('r1', 'r2'), description }), {
  maxLength: 4,
});

const certFields = fc.record({
  ssh_certificate_authority_id: fc.constantFrom(SSHCA_1, SSHCA_2),
  key: fc.constantFrom(KEY_A, KEY_B),
  principals: fc.subarray(['p.example', 'q.example']),
  valid_until: fc.constantFrom(undefined, '2026-12-01T00:00:00.000Z', '2027-06-01T00:00:00.000Z'),
});
const certEntries = fc.uniqueArray(
  fc.record({
    key: fc.constantFrom(...KEYS),
    f: certFields,
    description,
    data,
    renew: fc.constantFrom(undefined, 30 * 86_400),
    adopt: fc.option(fc.nat(5), { nil: undefined }),
  }),
  { selector: (e) => e.key, maxLength: 4 },
);
const liveCerts = fc.array(
  fc.record({
    holder,
    f: certFields,
    created: fc.constantFrom('2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z'),
  }),
  { maxLength: 6 },
);

const moduleState = fc.constantFrom('present', 'absent') as fc.Arbitrary<'present' | 'absent'>;
const modules = fc.record({
  tcp: fc.option(fc.record({ state: moduleState, enabled: fc.boolean(), ipp: policies }), { nil: undefined }),
  tcpLive: fc.option(fc.record({ enabled: fc.option(fc.boolean(), { nil: undefined }), ipp: policies }), {
    nil: null,
  }),
  ws: fc.option(fc.record({ state: moduleState, enabled: fc.boolean() }), { nil: undefined }),
  wsLive: fc.option(fc.record({ enabled: fc.option(fc.boolean(), { nil: undefined }) }), { nil: null }),
});

const world = fc.record({
  iprs: iprEntries,
  liveIprs,
  cas: caEntries,
  liveCas,
  certs: certEntries,
  liveCerts,
  modules,
  schedule: fc.array(fc.nat(), { minLength: 1, maxLength: 20 }),
});

describe('plan, apply, plan again', () => {
  it('converges to no-ops, never leaves a wanted type unrestricted, never touches what it does not own', () => {
    fc.assert(
      fc.property(world, (w) => {
        const account = new FakeAccount(NOW, CA_SEEDS);
        const foreign = new Set<string>();
        const track = (kind: Parameters<FakeAccount['add']>[0], obj: LiveObject, h: Holder) => {
          account.add(kind, obj);
          if (h.kind === 'unmanaged' || h.kind === 'other') foreign.add(String(obj['id']));
        };
        const desiredTypes = new Set(w.iprs.map((e) => e.type));
        TYPES.forEach((type, i) => {
          const l = w.liveIprs[i]!;
          // An unmanaged holder of a type the file wants would make every create fail (a warning, not a plan).
          const h: Holder =
            desiredTypes.has(type) && (l.holder.kind === 'unmanaged' || l.holder.kind === 'other')
              ? { kind: 'none' }
              : l.holder;
          if (h.kind === 'none') return;
          track(
            'ip_restriction',
            liveIpr(`ipx_${i}`, { type, enforced: l.enforced, metadata: metadataFor(h, l.data) }, l.ipp),
            h,
          );
        });
        w.liveCas.forEach((l, i) => {
          if (l.holder.kind === 'none') return;
          track(
            'certificate_authority',
            liveCa(`ca_${i}`, l.seed, { description: l.description, metadata: metadataFor(l.holder) }),
            l.holder,
          );
        });
        const unmanagedCerts: string[] = [];
        w.liveCerts.forEach((l, i) => {
          if (l.holder.kind === 'none') return;
          const id = `shcrt_${i}`;
          if (l.holder.kind === 'unmanaged') unmanagedCerts.push(id);
          track(
            'ssh_host_certificate',
            liveCert(id, {
              created_at: l.created,
              ssh_certificate_authority_id: l.f.ssh_certificate_authority_id,
              public_key: `${l.f.key} c`,
              principals: l.f.principals,
              valid_until: l.f.valid_until ?? '2027-11-01T00:00:00Z',
              metadata: metadataFor(l.holder),
            }),
            l.holder,
          );
        });
        const adopted = new Set<string>();
        const certsDesired: DesiredSshHostCertificate[] = w.certs.map((e) => {
          const target =
            e.adopt !== undefined ? unmanagedCerts[e.adopt % Math.max(1, unmanagedCerts.length)] : undefined;
          const id = target && !adopted.has(target) ? target : undefined;
          if (id) adopted.add(id);
          return cert(e.key, {
            id,
            ssh_certificate_authority_id: e.f.ssh_certificate_authority_id,
            public_key: `${e.f.key} host`,
            public_key_canonical: e.f.key,
            principals: [...e.f.principals].sort(),
            valid_until: e.f.valid_until,
            renew_before_seconds: e.renew,
            description: e.description,
            data: e.data,
          });
        });
        const casDesired: DesiredCertificateAuthority[] = w.cas.map((e) =>
          ca(e.key, e.seed, {
            description: e.description,
            data: e.data,
            not_after: '2030-01-01T00:00:00.000Z',
          }),
        );
        const m = w.modules;
        if (m.tcpLive)
          account.setModule('/edges/tcp/edgtcp_1/ip_restriction', {
            ...(m.tcpLive.enabled !== undefined ? { enabled: m.tcpLive.enabled } : {}),
            ip_policies: m.tcpLive.ipp.map((id) => ({ id })),
          });
        if (m.wsLive)
          account.setModule(
            '/edges/https/edghts_1/routes/edghtsrt_1/websocket_tcp_converter',
            m.wsLive.enabled !== undefined ? { enabled: m.wsLive.enabled } : {},
          );
        const desired = desiredState({
          ip_restrictions: w.iprs,
          certificate_authorities: casDesired,
          ssh_host_certificates: certsDesired,
          tcp_edge_ip_restrictions: m.tcp
            ? [
                tcpModule('edgtcp_1', {
                  state: m.tcp.state,
                  enabled: m.tcp.enabled,
                  ip_policy_ids: [...m.tcp.ipp].sort(),
                }),
              ]
            : [],
          websocket_tcp_converters: m.ws
            ? [wsModule('edghts_1', 'edghtsrt_1', { state: m.ws.state, enabled: m.ws.enabled })]
            : [],
        });
        const options = { ...OPTIONS, force: true };
        const modulePaths = [
          ...desired.tcp_edge_ip_restrictions.map((x) => `/edges/tcp/${x.edge_id}/ip_restriction`),
          ...desired.websocket_tcp_converters.map(
            (x) => `/edges/https/${x.edge_id}/routes/${x.route_id}/websocket_tcp_converter`,
          ),
        ];

        const first = plan(desired, account.live(desired), NOW, options);
        if (!first.safe) return; // only `protect` can refuse a forced plan, and live markers here never protect
        // No window (DESIGN §2 "Slots"): a type that the account restricted before and the file wants
        // has a restriction after every single request, in whatever order the DAG allows.
        const types = () => new Set(account.objects('ip_restriction').map((o) => o['type']));
        const before = types();
        const guarded = [...desiredTypes].filter((t) => before.has(t));
        let turn = 0;
        const sent = account.execute(
          first,
          (n) => w.schedule[turn++ % w.schedule.length]! % n,
          (r) => {
            const now = types();
            for (const t of guarded)
              expect(now.has(t), `type ${t} unrestricted after ${r.method} ${r.path}`).toBe(true);
          },
        );
        // Every reason is data first: the sentences are those of the codes, one each, in order.
        for (const c of first.changes) expect(c.reasons).toEqual(c.reason_codes.map(reasonText));
        // No create waits for a delete of its slot: nothing depends on a restriction's delete.
        const byAddress = new Map(first.changes.map((c) => [c.address, c]));
        for (const c of first.changes) {
          for (const a of c.depends_on) {
            const dep = byAddress.get(a);
            expect(
              dep?.kind === 'ip_restriction' && dep.action === 'delete',
              `${c.address} waits for ${a}`,
            ).toBe(false);
          }
        }
        for (const r of sent) {
          for (const id of foreign) {
            if (!adopted.has(id)) expect(r.path.endsWith(`/${id}`), `${r.method} ${r.path}`).toBe(false);
          }
          if (r.path.startsWith('/edges/')) expect(modulePaths).toContain(r.path);
        }
        const second = plan(desired, account.live(desired), NOW, options);
        const active = second.changes.filter((c) => c.action !== 'no-op');
        expect(active.map((c) => `${c.address} ${c.action} ${c.reasons.join('; ')}`)).toEqual([]);
      }),
      { numRuns: 400 },
    );
    // A fixed amount of work against the in-memory service; the bound is for a busy machine.
  }, 120_000);
});
