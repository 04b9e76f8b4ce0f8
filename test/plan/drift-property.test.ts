// Properties of drift attribution (DESIGN §4 "Drift"), over random entries of every managed kind in an
// in-memory account: after apply no field is attributed to anyone; after random PATCHes sent outside
// accord and random edits of the file, each changed field is attributed to exactly who changed it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import type { DesiredManaged } from '../../src/config/model.js';
import type { ManagedKind } from '../../src/plan/types.js';
import { descriptorFor } from '../../src/resources/index.js';
import type { LiveObject } from '../../src/resources/values.js';
import { FakeAccount } from '../support/account.js';
import { ca, cert, desiredState, IPP_1, IPP_2, IPP_3, ipr, KEY_A, KEY_B, NOW, OPTIONS } from './fixtures.js';

const CA_SEEDS = {
  r1: { cn: 'CN r1', notAfter: '2030-01-01T00:00:00Z' },
  r2: { cn: 'CN r2', notAfter: '2030-01-01T00:00:00Z' },
};

/** A field the service lets anyone PATCH, with the values it takes in these runs. */
interface Patchable {
  name: string;
  values: readonly unknown[];
  /** The entry option that sets it. */
  entry: (v: unknown) => Record<string, unknown>;
  /** The PATCH body someone outside accord sends to set it (`metadata` keeps the marker). */
  body: (v: unknown, live: LiveObject) => Record<string, unknown>;
}

const description: Patchable = {
  name: 'description',
  values: ['', 'one', 'two'],
  entry: (v) => ({ description: v }),
  body: (v) => ({ description: v }),
};
const metadata: Patchable = {
  name: 'metadata',
  values: [undefined, { team: 'a' }, { team: 'b', n: [1] }],
  entry: (v) => (v === undefined ? {} : { data: v }),
  body: (v, live) => {
    const m = JSON.parse(String(live['metadata']));
    if (v === undefined) delete m.data;
    else m.data = v;
    return { metadata: JSON.stringify(m) };
  },
};
const FIELDS: Record<ManagedKind, Patchable[]> = {
  ip_policy: [description, metadata],
  ip_policy_rule: [description],
  ip_restriction: [
    {
      name: 'enforced',
      values: [true, false],
      entry: (v) => ({ enforced: v }),
      body: (v) => ({ enforced: v }),
    },
    {
      name: 'ip_policies',
      values: [[IPP_1], [IPP_1, IPP_2], [IPP_3]],
      entry: (v) => ({ ip_policy_ids: v }),
      body: (v) => ({ ip_policy_ids: [...(v as string[])].reverse() }),
    },
    description,
    metadata,
  ],
  certificate_authority: [description, metadata],
  ssh_host_certificate: [description, metadata],
  cloud_endpoint: [description, metadata],
};

/** Per field: the value accord first writes, and who changes it to what (always to another value). */
const fieldPlan = (n: number) =>
  fc
    .record({ init: fc.nat(n - 1), file: fc.boolean(), outside: fc.boolean(), pick: fc.nat(1) })
    .map(({ init, file, outside, pick }) => {
      const others = [...Array(n).keys()].filter((i) => i !== init);
      const fileTo = file ? others[pick % others.length]! : undefined;
      // With three values, a field both sides change goes two different ways; with two, the same way.
      const outsideTo = !outside
        ? undefined
        : fileTo === undefined
          ? others[pick % others.length]!
          : (others.find((i) => i !== fileTo) ?? fileTo);
      return { init, fileTo, outsideTo };
    });

const objectPlan = (kind: ManagedKind) => fc.tuple(...FIELDS[kind].map((f) => fieldPlan(f.values.length)));

const world = fc.record({
  ip: fc.array(objectPlan('ip_restriction'), { maxLength: 2 }),
  ca: fc.array(objectPlan('certificate_authority'), { maxLength: 2 }),
  ssh: fc.array(objectPlan('ssh_host_certificate'), { maxLength: 2 }),
});

type Plans = { init: number; fileTo?: number; outsideTo?: number }[];

function entryFor(kind: ManagedKind, i: number, plans: Plans, side: 'init' | 'file'): DesiredManaged {
  const options: Record<string, unknown> = {};
  FIELDS[kind].forEach((f, j) => {
    const p = plans[j]!;
    const at = side === 'file' && p.fileTo !== undefined ? p.fileTo : p.init;
    Object.assign(options, f.entry(f.values[at]));
  });
  if (kind === 'ip_restriction') return ipr(`ip${i}`, { type: i === 0 ? 'dashboard' : 'api', ...options });
  if (kind === 'certificate_authority') return ca(`ca${i}`, i === 0 ? 'r1' : 'r2', options);
  const key = i === 0 ? KEY_A : KEY_B;
  return cert(`host${i}`, { public_key: `${key} host`, public_key_canonical: key, ...options });
}

describe('drift attribution', () => {
  it('after apply nothing is attributed; after outside PATCHes and file edits, exactly who changed what', () => {
    fc.assert(
      fc.property(world, (w) => {
        const objects: { kind: ManagedKind; i: number; plans: Plans }[] = [
          ...w.ip.map((plans, i) => ({ kind: 'ip_restriction' as const, i, plans })),
          ...w.ca.map((plans, i) => ({ kind: 'certificate_authority' as const, i, plans })),
          ...w.ssh.map((plans, i) => ({ kind: 'ssh_host_certificate' as const, i, plans })),
        ];
        const state = (side: 'init' | 'file') =>
          desiredState({
            ip_restrictions: objects
              .filter((o) => o.kind === 'ip_restriction')
              .map((o) => entryFor(o.kind, o.i, o.plans, side)) as never,
            certificate_authorities: objects
              .filter((o) => o.kind === 'certificate_authority')
              .map((o) => entryFor(o.kind, o.i, o.plans, side)) as never,
            ssh_host_certificates: objects
              .filter((o) => o.kind === 'ssh_host_certificate')
              .map((o) => entryFor(o.kind, o.i, o.plans, side)) as never,
          });
        const account = new FakeAccount(NOW, CA_SEEDS);
        const first = state('init');
        account.execute(plan(first, account.live(first), NOW, OPTIONS));

        // After apply: nothing to do, nothing attributed.
        const settled = plan(first, account.live(first), NOW, OPTIONS);
        expect(settled.changes.map((c) => [c.action, c.drift])).toEqual(
          settled.changes.map(() => ['no-op', {}]),
        );

        // Outside accord: one PATCH per object through the service, of the fields it changes.
        const expected = new Map<string, Record<string, string>>();
        for (const o of objects) {
          const d = descriptorFor(o.kind);
          const address = `${d.section}.${entryFor(o.kind, o.i, o.plans, 'init').key}`;
          const live = account
            .objects(o.kind)
            .find((x) => String(x['metadata']).includes(`"key":"${address.split('.')[1]}"`))!;
          const body: Record<string, unknown> = {};
          const want: Record<string, string> = {};
          FIELDS[o.kind].forEach((f, j) => {
            const p = o.plans[j]!;
            if (p.outsideTo !== undefined)
              Object.assign(body, f.body(f.values[p.outsideTo], { ...live, ...body }));
            if (p.fileTo !== undefined && p.outsideTo !== undefined) want[f.name] = 'both';
            else if (p.fileTo !== undefined) want[f.name] = 'file';
            else if (p.outsideTo !== undefined) want[f.name] = 'outside';
          });
          if (Object.keys(body).length > 0)
            account.send({ method: 'PATCH', path: d.itemPath(String(live['id'])), body });
          expected.set(address, want);
        }

        const edited = state('file');
        const p = plan(edited, account.live(edited), NOW, OPTIONS);
        // The drift of a swap of IP policies is on its change, not on the union step before it.
        for (const c of p.changes.filter((x) => !x.address.endsWith('#union')))
          expect([c.address, c.drift]).toEqual([c.address, expected.get(c.address)]);

        // Applying it settles everything again.
        account.execute(p);
        const after = plan(edited, account.live(edited), NOW, OPTIONS);
        expect(after.changes.map((c) => [c.action, c.drift])).toEqual(after.changes.map(() => ['no-op', {}]));
      }),
      { numRuns: 200 },
    );
  });
});
