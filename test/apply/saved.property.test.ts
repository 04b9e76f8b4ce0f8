// A saved plan does only what it shows (DESIGN §4): for random desired and live states, the plan made
// from them, saved as JSON, and any one edit of any field of that JSON, `apply FILE` (the steps of
// src/cli/commands/apply.ts, with the account and the files in memory) either refuses the edited file
// before any request, or makes exactly the requests it makes for the file as saved.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LiveState } from '../../src/account/model.js';
import { checkPlanPaths, checkSameFiles, parsePlan } from '../../src/apply/planfile.js';
import { planSavedAgain } from '../../src/apply/stale.js';
import { plan } from '../../src/cli/worded-plan.js';
import type { DesiredState } from '../../src/config/model.js';
import { parseCaPem } from '../../src/crypto/pem.js';
import { AccordError } from '../../src/errors.js';
import type { PlanOptions } from '../../src/plan/options.js';
import { type Selection, UnmatchedSelection } from '../../src/plan/select.js';
import type { Plan, PlannedRequest } from '../../src/plan/types.js';
import type { DesiredCertificateAuthority } from '../../src/resources/certificate_authority.js';
import { desiredOf, moduleDescriptors } from '../../src/resources/index.js';
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

// Real certificates: a CA's summary is parsed from its PEM.
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
    }
  }
  const live: LiveState = { managed, modules };
  return { desired, live };
}

/** The desired-state file as the plan names it (relative to where plan ran). */
const FILE = 'accord.yaml';

type Flags = Pick<PlanOptions, 'force' | 'maxDestroyPercent' | 'allowTakeover'>;
const flags: fc.Arbitrary<Flags> = fc.record({
  force: fc.boolean(),
  maxDestroyPercent: fc.constantFrom(0, 30, 100),
  allowTakeover: fc.boolean(),
});
const selection = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 3 },
  fc.constantFrom(
    { target: [], exclude: ['ssh_host_certificates'] },
    { target: ['ip_restrictions'], exclude: [] },
  ),
);

/** One edit of one place of a JSON document, chosen among all its places by index. */
const edit = fc.record({
  at: fc.nat(),
  /** Most plans are mostly no-ops: half the edits go to a field of a change that does something. */
  active: fc.boolean(),
  op: fc.constantFrom('replace', 'another', 'tweak', 'tweak', 'remove', 'duplicate'),
  value: fc.jsonValue({ maxDepth: 2 }),
  pick: fc.nat(),
});
type Edit = typeof edit extends fc.Arbitrary<infer E> ? E : never;
type Json = unknown;

type Place = [Record<string, Json> | Json[], string | number];

/** Every place of a JSON value: [parent, key] pairs, the root aside. */
function places(root: Json): Place[] {
  const out: Place[] = [];
  const visit = (v: Json) => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        out.push([v, i]);
        visit(x);
      });
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        out.push([v as Record<string, Json>, k]);
        visit(x);
      }
    }
  };
  visit(root);
  return out;
}

/** The fields of the changes that are not no-ops, and of their `before` and `after` (all places when none). */
function activePlaces(doc: Json, all: Place[]): Place[] {
  const fields = (o: unknown): Place[] =>
    typeof o === 'object' && o !== null && !Array.isArray(o)
      ? Object.keys(o).map((k): Place => [o as Record<string, Json>, k])
      : [];
  const within = (doc as { changes: { action?: unknown; before?: unknown; after?: unknown }[] }).changes
    .filter((c) => c.action !== 'no-op')
    .flatMap((c) => [...fields(c), ...fields(c.before), ...fields(c.after)]);
  return within.length > 0 ? within : all;
}

/** The saved text with `e` applied; the same text when the edit changes nothing. */
function edited(text: string, e: Edit): string {
  const doc = JSON.parse(text) as Json;
  const all = places(doc);
  const from = e.active ? activePlaces(doc, all) : all;
  const [parent, key] = from[e.at % from.length]!;
  const current = (parent as Record<string | number, Json>)[key];
  // Values found elsewhere in the plan: IDs, keys, addresses, owners swapped between places.
  const others = all.map(([p, k]) => (p as Record<string | number, Json>)[k]);
  const set = (v: Json) => {
    (parent as Record<string | number, Json>)[key] = v;
  };
  switch (e.op) {
    case 'replace':
      set(e.value);
      break;
    case 'another':
      set(structuredClone(others[e.pick % others.length]));
      break;
    case 'tweak':
      if (typeof current === 'string') set(`${current}x`);
      else if (typeof current === 'number') set(current + 1);
      else if (typeof current === 'boolean') set(!current);
      else set(null);
      break;
    case 'remove':
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key as string];
      break;
    case 'duplicate':
      if (Array.isArray(parent)) parent.splice(key as number, 0, structuredClone(current));
      else set(structuredClone(current));
      break;
  }
  return JSON.stringify(doc, null, 2);
}

/**
 * What `apply FILE` sends for `text`, or `refused` (an error before any request): the steps of
 * src/cli/commands/apply.ts, with the files and the account in memory.
 */
async function applySaved(
  text: string,
  files: ReadonlyMap<string, DesiredState>,
  live: LiveState,
  applyFlags: Flags,
): Promise<PlannedRequest[] | 'refused'> {
  try {
    const saved = parsePlan(text, 'plan.json');
    // The command names FILE (as CI does, with its files input); the plan's `files` only must match.
    checkPlanPaths(saved, 'plan.json');
    checkSameFiles(saved, [FILE], '-f', 'plan.json');
    const desired = files.get(FILE)!;
    const { verdict, plan: fresh } = await planSavedAgain(
      saved,
      desired,
      'plan.json',
      OPTIONS.apiUrl,
      async (context) => ({
        plan: plan(desired, live, NOW, { ...OPTIONS, ...applyFlags, ...context }),
      }),
    );
    return verdict === 'applied' ? [] : fresh.changes.flatMap((c) => c.requests);
  } catch (err) {
    if (refusesToPlan(err)) return 'refused';
    throw err;
  }
}

/** What a saved plan promises: where, whose, from what, and each change as shown, in any order. */
function promise(p: Plan) {
  return {
    api_url: p.api_url,
    owner: p.owner,
    config_digest: p.config_digest,
    changes: p.changes
      .map((c) => [c.address, c.kind, c.action, c.id, c.before, c.after, c.changed_fields] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  };
}

/** An error of the planner's that the command line reports (patterns matching nothing: as its usage error). */
function refusesToPlan(err: unknown): boolean {
  return err instanceof AccordError || err instanceof UnmatchedSelection;
}

/** Whether a plan made with these flags may be applied: it can be made, and no safety rule refuses it. */
function planFreely(desired: DesiredState, live: LiveState, f: Flags, part: Selection | undefined): boolean {
  try {
    return plan(desired, live, NOW, { ...OPTIONS, ...f, ...(part ? { selection: part } : {}) }).safe;
  } catch (err) {
    if (refusesToPlan(err)) return false;
    throw err;
  }
}

describe('apply FILE: an edited saved plan is refused, or makes the requests of the plan as saved', () => {
  it('for random plans and any one edit of any field of their JSON', async () => {
    const seen = { plans: 0, refused: 0, harmless: 0, unsafe: 0 };
    await fc.assert(
      fc.asyncProperty(world, flags, flags, selection, edit, async (w, planFlags, applyFlags, part, e) => {
        const { desired, live } = build(w);
        let made: Plan;
        try {
          made = plan(desired, live, NOW, {
            ...OPTIONS,
            ...planFlags,
            files: [FILE],
            ...(part ? { selection: part } : {}),
          });
        } catch (err) {
          if (refusesToPlan(err)) return; // a file the planner refuses makes no plan to save
          throw err;
        }
        seen.plans++;
        const files = new Map([[FILE, desired]]);
        const text = `${JSON.stringify(made, null, 2)}\n`;
        const asSaved = await applySaved(text, files, live, applyFlags);
        // The plan as saved applies, unless this apply's own flags refuse it: the file's never count.
        if (planFreely(desired, live, applyFlags, part)) {
          expect(asSaved).toEqual(made.changes.flatMap((c) => c.requests));
        } else {
          seen.unsafe++;
          expect(asSaved).toBe('refused');
        }
        const changed = edited(text, e);
        const result = await applySaved(changed, files, live, applyFlags);
        if (result === 'refused') {
          seen.refused++;
          return;
        }
        if (changed !== text) seen.harmless++;
        expect(result).toEqual(asSaved === 'refused' ? [] : asSaved);
        // And what a reviewer reads as the promise is the one saved, unless nothing is left to do.
        const active = made.changes.some((c) => c.action !== 'no-op');
        if (active) expect(promise(JSON.parse(changed) as Plan)).toEqual(promise(made));
      }),
      { numRuns: 500 },
    );
    // The generators reach every outcome, or the property proves less than it says.
    expect(seen.plans).toBeGreaterThan(200);
    expect(seen.unsafe).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(50);
    expect(seen.harmless).toBeGreaterThan(15);
  });
});
