// For random desired and live states: what `apply FILE` derives from the plan as saved is exactly what
// the planner made (requests, order), every check against the account accepts the untampered plan, and
// the safety verdict recomputed from the account is the planner's. Derivation cannot drift from
// planning.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkPlanIsCurrent, UnsafePlanError } from '../../src/apply/stale.js';
import { verifyShownPlan } from '../../src/apply/verify.js';
import { parseCaPem } from '../../src/crypto/pem.js';
import type { LiveSource } from '../../src/plan/live.js';
import { PlanError, plan } from '../../src/plan/planner.js';
import { changeRequests } from '../../src/plan/requests.js';
import type { LiveState } from '../../src/plan/state.js';
import type { Plan } from '../../src/plan/types.js';
import type { DesiredCertificateAuthority } from '../../src/resources/certificate_authority.js';
import { desiredOf, managedDescriptors, moduleDescriptors } from '../../src/resources/index.js';
import type { DesiredIpRestriction } from '../../src/resources/ip_restriction.js';
import type { DesiredSshHostCertificate } from '../../src/resources/ssh_host_certificate.js';
import type { LiveObject } from '../../src/resources/values.js';
import {
  cert,
  desiredState,
  emptyManaged,
  ipr,
  KEY_A,
  KEY_B,
  liveCert,
  liveIpr,
  marker,
  NOW,
  OPTIONS,
  OWNER,
  tcpModule,
  wsModule,
} from '../plan/fixtures.js';
import { makeCaPemSync } from '../support/ca.js';

const TYPES = ['dashboard', 'api', 'agent', 'endpoints'] as const;
const KEYS = ['a', 'b', 'c', 'd'];

// Real certificates: apply FILE checks that a CA's PEM is the one its summary shows.
const dir = mkdtempSync(join(tmpdir(), 'accord-derive-'));
const PEMS = ['r1', 'r2'].map((name) => {
  const pem = readFileSync(makeCaPemSync(dir, name, { days: 3650 }), 'utf8');
  const parsed = parseCaPem(pem);
  return { pem, sha256: parsed.sha256, cn: parsed.subjectCommonName, notAfter: parsed.notAfter };
});

type Holder = { kind: 'none' } | { kind: 'unmanaged' } | { kind: 'other' } | { kind: 'mine'; key: string };
const holder: fc.Arbitrary<Holder> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.constant({ kind: 'unmanaged' as const }),
  fc.constant({ kind: 'other' as const }),
  fc.constantFrom(...KEYS).map((key) => ({ kind: 'mine' as const, key })),
);
const metadataFor = (h: Holder, protect: boolean): string | undefined =>
  h.kind === 'mine'
    ? marker(h.key, { protect })
    : h.kind === 'other'
      ? marker('a', { owner: 'team-b' })
      : h.kind === 'unmanaged'
        ? 'by hand'
        : undefined;

const entry = fc.record({
  description: fc.constantFrom('', 'x'),
  data: fc.constantFrom(undefined, { team: 'p' }),
  protect: fc.boolean(),
  // Mostly not: most `id:` guesses name an object another entry matches, which the planner refuses.
  adopt: fc.oneof({ arbitrary: fc.constant(undefined), weight: 5 }, { arbitrary: fc.nat(7), weight: 1 }),
});

const world = fc.record({
  iprs: fc.uniqueArray(
    fc.record({
      key: fc.constantFrom(...KEYS),
      type: fc.constantFrom(...TYPES),
      enforced: fc.boolean(),
      e: entry,
    }),
    { selector: (x) => x.key, maxLength: 4 },
  ),
  liveIprs: fc.tuple(
    ...TYPES.map(() =>
      fc.record({ holder, enforced: fc.boolean(), protect: fc.boolean(), future: fc.boolean() }),
    ),
  ),
  cas: fc.uniqueArray(fc.record({ key: fc.constantFrom(...KEYS), pem: fc.nat(1), e: entry }), {
    selector: (x) => x.key,
    maxLength: 3,
  }),
  liveCas: fc.array(fc.record({ holder, pem: fc.nat(1), protect: fc.boolean() }), { maxLength: 4 }),
  certs: fc.uniqueArray(
    fc.record({
      key: fc.constantFrom(...KEYS),
      publicKey: fc.constantFrom(KEY_A, KEY_B),
      comment: fc.constantFrom('', ' host@x'),
      principals: fc.subarray(['p.example', 'q.example']),
      validAfter: fc.constantFrom(undefined, '2026-12-01T00:00:00.000Z'),
      validUntil: fc.constantFrom(undefined, '2027-06-01T00:00:00.000Z'),
      validFor: fc.constantFrom(undefined, 90 * 86_400),
      renew: fc.constantFrom(undefined, 30 * 86_400),
      e: entry,
    }),
    { selector: (x) => x.key, maxLength: 4 },
  ),
  liveCerts: fc.array(
    fc.record({
      holder,
      publicKey: fc.constantFrom(KEY_A, KEY_B),
      principals: fc.subarray(['p.example', 'q.example']),
      created: fc.constantFrom('2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z'),
      protect: fc.boolean(),
    }),
    { maxLength: 5 },
  ),
  tcp: fc.option(fc.record({ state: fc.constantFrom('present', 'absent' as const), enabled: fc.boolean() }), {
    nil: undefined,
  }),
  tcpLive: fc.option(fc.boolean(), { nil: undefined }),
  ws: fc.option(fc.record({ state: fc.constantFrom('present', 'absent' as const), enabled: fc.boolean() }), {
    nil: undefined,
  }),
  wsLive: fc.option(fc.boolean(), { nil: undefined }),
  force: fc.boolean(),
  maxDestroyPercent: fc.constantFrom(0, 30, 100),
  allowTakeover: fc.boolean(),
});

type World = typeof world extends fc.Arbitrary<infer W> ? W : never;

function build(w: World) {
  const managed = emptyManaged();
  // A type the file wants, held by an unmanaged or another owner's restriction, is a plan error
  // (test/plan/slots.test.ts): mostly leave those out, so that most worlds make a plan.
  const wanted = new Set(w.iprs.map((x) => x.type));
  TYPES.forEach((type, i) => {
    const l = w.liveIprs[i]!;
    if (l.holder.kind === 'none') return;
    if (wanted.has(type) && l.holder.kind !== 'mine' && i % 2 === 0) return;
    managed.ip_restriction.push(
      liveIpr(`ipx_${i}`, {
        type,
        enforced: l.enforced,
        // A field a newer version wrote into the marker: a PATCH keeps it.
        metadata:
          l.future && l.holder.kind === 'mine'
            ? JSON.stringify({ accord: { owner: OWNER, key: l.holder.key, since: 'v9' }, later: 1 })
            : metadataFor(l.holder, l.protect),
      }),
    );
  });
  w.liveCas.forEach((l, i) => {
    if (l.holder.kind === 'none') return;
    const p = PEMS[l.pem]!;
    managed.certificate_authority.push({
      id: `ca_${i}`,
      created_at: '2026-01-01T00:00:00Z',
      ca_pem: `${p.pem}\n`,
      subject_common_name: p.cn,
      not_after: p.notAfter.toISOString(),
      description: '',
      metadata: metadataFor(l.holder, l.protect),
    });
  });
  w.liveCerts.forEach((l, i) => {
    if (l.holder.kind === 'none') return;
    managed.ssh_host_certificate.push(
      liveCert(`shcrt_${i}`, {
        created_at: l.created,
        public_key: `${l.publicKey} live`,
        principals: l.principals,
        metadata: metadataFor(l.holder, l.protect),
      }),
    );
  });
  // `id:` of any live object of the kind (the planner refuses the impossible ones: skipped below).
  const idOf = (list: LiveObject[], n: number | undefined) =>
    n === undefined || list.length === 0 ? undefined : String(list[n % list.length]!['id']);
  const typesTaken = new Set<string>();
  const iprs: DesiredIpRestriction[] = [];
  for (const x of w.iprs) {
    if (typesTaken.has(x.type)) continue;
    typesTaken.add(x.type);
    iprs.push(
      ipr(x.key, {
        type: x.type,
        enforced: x.enforced,
        description: x.e.description,
        data: x.e.data,
        protect: x.e.protect,
        id: idOf(managed.ip_restriction, x.e.adopt),
      }),
    );
  }
  const cas: DesiredCertificateAuthority[] = w.cas.map((x) => {
    const p = PEMS[x.pem]!;
    return {
      kind: 'certificate_authority',
      key: x.key,
      description: x.e.description,
      data: x.e.data,
      protect: x.e.protect,
      id: idOf(managed.certificate_authority, x.e.adopt),
      loc: { file: '/w/accord.yaml', line: 1, col: 1 },
      ca_pem: p.pem,
      ca_sha256: p.sha256,
      subject_common_name: p.cn,
      not_before: '2026-01-01T00:00:00.000Z',
      not_after: p.notAfter.toISOString(),
    };
  });
  const certs: DesiredSshHostCertificate[] = w.certs.map((x) =>
    cert(x.key, {
      public_key: `${x.publicKey}${x.comment}`,
      public_key_canonical: x.publicKey,
      principals: [...x.principals].sort(),
      valid_after: x.validAfter,
      valid_until: x.validUntil,
      valid_for_seconds: x.validFor,
      renew_before_seconds: x.renew,
      description: x.e.description,
      data: x.e.data,
      protect: x.e.protect,
      id: idOf(managed.ssh_host_certificate, x.e.adopt),
    }),
  );
  const desired = desiredState({
    ip_restrictions: iprs,
    certificate_authorities: cas,
    ssh_host_certificates: certs,
    tcp_edge_ip_restrictions: w.tcp ? [tcpModule('edgtcp_1', w.tcp)] : [],
    websocket_tcp_converters: w.ws ? [wsModule('edghts_1', 'edghtsrt_1', w.ws)] : [],
  });
  const modules: LiveState['modules'] = {};
  const byPath = new Map<string, LiveObject>();
  for (const d of moduleDescriptors) {
    for (const m of desiredOf(d, desired)) {
      const enabled = d.kind === 'tcp_edge_ip_restriction' ? w.tcpLive : w.wsLive;
      const obj =
        enabled === undefined
          ? null
          : d.kind === 'tcp_edge_ip_restriction'
            ? { enabled, ip_policies: [{ id: 'ipp_1' }] }
            : { enabled };
      modules[d.address(m)] = obj;
      if (obj) byPath.set(d.path(m), obj);
    }
  }
  const live: LiveState = { managed, modules };
  const source: LiveSource = {
    async *listAll<T>(path: string) {
      const d = managedDescriptors.find((x) => x.collectionPath === path)!;
      for (const o of managed[d.kind]) yield o as T;
    },
    getOptional: async <T>(path: string) => byPath.get(path) as T | undefined,
  };
  return { desired, live, source };
}

describe('apply FILE derives what the planner made', () => {
  it('requests, order, ownership and the safety verdict, for random plans', async () => {
    let plans = 0;
    let unsafe = 0;
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        const { desired, live, source } = build(w);
        const options = {
          ...OPTIONS,
          force: w.force,
          maxDestroyPercent: w.maxDestroyPercent,
          allowTakeover: w.allowTakeover,
        };
        let made: Plan;
        try {
          made = plan(desired, live, NOW, options);
        } catch (err) {
          if (err instanceof PlanError) return; // a file the planner refuses makes no plan to save
          throw err;
        }
        plans++;
        // The file as `plan --out` writes it and `apply FILE` reads it.
        const saved = JSON.parse(JSON.stringify(made)) as Plan;
        const context = { owner: saved.owner, createdAt: new Date(saved.created_at) };
        for (const c of saved.changes) {
          expect(changeRequests(c, context), c.address).toEqual(c.requests);
        }
        expect(() => verifyShownPlan(saved, 'plan.json')).not.toThrow();
        const check = checkPlanIsCurrent(saved, OPTIONS.apiUrl, source, {
          shownAs: 'plan.json',
          force: w.force,
          maxDestroyPercent: w.maxDestroyPercent,
        });
        if (made.safe) await expect(check).resolves.toBeInstanceOf(Map);
        else {
          unsafe++;
          await expect(check).rejects.toBeInstanceOf(UnsafePlanError);
        }
      }),
      { numRuns: 500 },
    );
    // The generator reaches both verdicts, or the last check proves nothing.
    expect(plans).toBeGreaterThan(250);
    expect(unsafe).toBeGreaterThan(0);
  });
});
