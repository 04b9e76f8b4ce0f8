// Attribution of every compared field of every managed kind (DESIGN §4 "Drift"): accord applies an
// entry to an in-memory account, then the file, the account ("outside"), both or neither change one
// field, and the plan must say which.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import type { DesiredManaged, DesiredState } from '../../src/config/model.js';
import { attributeDrift, fingerprint } from '../../src/plan/drift.js';
import { fingerprintFields } from '../../src/plan/requests.js';
import type { ManagedKind, Plan, PlanChange } from '../../src/plan/types.js';
import { fileName } from '../../src/render/names.js';
import { descriptorFor, managedDescriptors } from '../../src/resources/index.js';
import { APPLIED_MAX_CHARS, decodeMarker } from '../../src/resources/marker.js';
import type { LiveObject } from '../../src/resources/values.js';
import { canonicalJson } from '../../src/resources/values.js';
import { FakeAccount } from '../support/account.js';
import {
  ca,
  cert,
  desiredState,
  emptyManaged,
  fakePem,
  IPP_1,
  IPP_2,
  IPP_3,
  ipr,
  KEY_A,
  KEY_B,
  NOW,
  OPTIONS,
  OWNER,
  SSHCA_1,
  SSHCA_2,
  SSHCA_3,
  tcpModule,
  wsModule,
} from './fixtures.js';

const O_K = { owner: 'o', key: 'k' };
const KEY_C = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC';
const CA_SEEDS = {
  r1: { cn: 'CN r1', notAfter: '2030-01-01T00:00:00Z' },
  r2: { cn: 'CN r2', notAfter: '2030-01-01T00:00:00Z' },
  r3: { cn: 'CN r3', notAfter: '2030-01-01T00:00:00Z' },
};
const refs = (ids: string[]) => ids.map((id) => ({ id, uri: `http://x/ip_policies/${id}` }));

/** Rewrites the live marker as someone editing `metadata` by hand would (the fingerprint untouched). */
function editMarker(obj: LiveObject, edit: (m: { accord: Record<string, unknown>; data?: unknown }) => void) {
  const m = JSON.parse(String(obj['metadata']));
  edit(m);
  obj['metadata'] = JSON.stringify(m);
}

interface FieldCase {
  kind: ManagedKind;
  field: string;
  /** The entry with this field at value i (0: what accord first wrote). */
  entry: (i: number) => DesiredManaged;
  /** The live object with this field set to value i, as a change made outside accord leaves it. */
  setLive: (obj: LiveObject, i: number) => void;
  /** How many distinct values the field takes (two for booleans: "both" then means both agree). */
  values: 2 | 3;
}

const IP_POLICIES = [[IPP_1], [IPP_1, IPP_2], [IPP_3]];
const DATA = [undefined, { team: 'file' }, { team: 'outside' }];
const DESCRIPTION = ['', 'from the file', 'from the dashboard'];
const SSH_CA = [SSHCA_1, SSHCA_2, SSHCA_3];
const PUBLIC_KEY = [KEY_A, KEY_B, KEY_C];
const PRINCIPALS = [['a.example'], ['a.example', 'b.example'], ['c.example']];
const AFTER = ['2026-10-01T00:00:00.000Z', '2026-10-02T00:00:00.000Z', '2026-10-03T00:00:00.000Z'];
const UNTIL = ['2027-10-01T00:00:00.000Z', '2027-10-02T00:00:00.000Z', '2027-10-03T00:00:00.000Z'];
const SEED = ['r1', 'r2', 'r3'] as const;

const baseCert = (o = {}) =>
  cert('bastion', { principals: PRINCIPALS[0]!, valid_after: AFTER[0], valid_until: UNTIL[0], ...o });

/** description, metadata and protect, shared by the three kinds. */
function shared(kind: ManagedKind, entry: (o: Record<string, unknown>) => DesiredManaged): FieldCase[] {
  return [
    {
      kind,
      field: 'description',
      entry: (i) => entry({ description: DESCRIPTION[i] }),
      setLive: (obj, i) => {
        obj['description'] = DESCRIPTION[i];
      },
      values: 3,
    },
    {
      kind,
      field: 'metadata',
      entry: (i) => entry(DATA[i] === undefined ? {} : { data: DATA[i] }),
      setLive: (obj, i) =>
        editMarker(obj, (m) => {
          if (DATA[i] === undefined) delete m.data;
          else m.data = DATA[i];
        }),
      values: 3,
    },
    {
      kind,
      field: 'protect',
      entry: (i) => entry({ protect: i === 1 }),
      setLive: (obj, i) =>
        editMarker(obj, (m) => {
          if (i === 1) m.accord['protect'] = true;
          else delete m.accord['protect'];
        }),
      values: 2,
    },
  ];
}

const cases: FieldCase[] = [
  {
    kind: 'ip_restriction',
    field: 'type',
    entry: (i) => ipr('office', { type: (['dashboard', 'api', 'agent'] as const)[i] }),
    setLive: (obj, i) => {
      obj['type'] = ['dashboard', 'api', 'agent'][i];
    },
    values: 3,
  },
  {
    kind: 'ip_restriction',
    field: 'enforced',
    entry: (i) => ipr('office', { enforced: i === 0 }),
    setLive: (obj, i) => {
      obj['enforced'] = i === 0;
    },
    values: 2,
  },
  {
    kind: 'ip_restriction',
    field: 'ip_policies',
    entry: (i) => ipr('office', { ip_policy_ids: IP_POLICIES[i]! }),
    setLive: (obj, i) => {
      obj['ip_policies'] = refs(IP_POLICIES[i]!);
    },
    values: 3,
  },
  ...shared('ip_restriction', (o) => ipr('office', o)),
  {
    kind: 'certificate_authority',
    field: 'ca_pem',
    entry: (i) => ca('root', SEED[i]!),
    setLive: (obj, i) => {
      obj['ca_pem'] = `${fakePem(SEED[i]!).pem}\n`;
      obj['subject_common_name'] = CA_SEEDS[SEED[i]!].cn;
    },
    values: 3,
  },
  ...shared('certificate_authority', (o) => ca('root', 'r1', o)),
  {
    kind: 'ssh_host_certificate',
    field: 'ssh_certificate_authority_id',
    entry: (i) => baseCert({ ssh_certificate_authority_id: SSH_CA[i] }),
    setLive: (obj, i) => {
      obj['ssh_certificate_authority_id'] = SSH_CA[i];
    },
    values: 3,
  },
  {
    kind: 'ssh_host_certificate',
    field: 'public_key',
    entry: (i) => baseCert({ public_key: `${PUBLIC_KEY[i]} host`, public_key_canonical: PUBLIC_KEY[i] }),
    setLive: (obj, i) => {
      obj['public_key'] = `${PUBLIC_KEY[i]} other-comment`;
    },
    values: 3,
  },
  {
    kind: 'ssh_host_certificate',
    field: 'principals',
    entry: (i) => baseCert({ principals: PRINCIPALS[i] }),
    setLive: (obj, i) => {
      // The service may list a set in any order: the fingerprint hashes the normalized set.
      obj['principals'] = [...PRINCIPALS[i]!].reverse();
    },
    values: 3,
  },
  {
    kind: 'ssh_host_certificate',
    field: 'valid_after',
    entry: (i) => baseCert({ valid_after: AFTER[i] }),
    setLive: (obj, i) => {
      obj['valid_after'] = AFTER[i]!.replace('.000Z', '+00:00');
    },
    values: 3,
  },
  {
    kind: 'ssh_host_certificate',
    field: 'valid_until',
    entry: (i) => baseCert({ valid_until: UNTIL[i] }),
    setLive: (obj, i) => {
      obj['valid_until'] = UNTIL[i];
    },
    values: 3,
  },
  ...shared('ssh_host_certificate', (o) => baseCert(o)),
];

function stateWith(c: FieldCase, i: number): DesiredState {
  return desiredState({ [descriptorFor(c.kind).section]: [c.entry(i)] });
}

/** The account after accord applied the field's value 0, and its one object of the kind. */
function appliedAccount(c: FieldCase): { account: FakeAccount; obj: LiveObject } {
  const account = new FakeAccount(NOW, CA_SEEDS);
  const desired = stateWith(c, 0);
  account.execute(plan(desired, account.live(desired), NOW, OPTIONS));
  const obj = account.objects(c.kind)[0]!;
  return { account, obj };
}

function planFor(c: FieldCase, account: FakeAccount, fileValue: number): { p: Plan; change: PlanChange } {
  const desired = stateWith(c, fileValue);
  const p = plan(desired, account.live(desired), NOW, OPTIONS);
  // A swap of IP policies first passes through their union (src/traffic/order.ts): a step of its own.
  const changes = p.changes.filter((x) => x.kind === c.kind && !x.address.endsWith('#union'));
  expect(changes).toHaveLength(1);
  return { p, change: changes[0]! };
}

describe.each(cases)('$kind.$field', (c) => {
  it('neither changed: no-op, nothing attributed', () => {
    const { account } = appliedAccount(c);
    const { change } = planFor(c, account, 0);
    expect(change.action).toBe('no-op');
    expect(change.drift).toEqual({});
  });

  it('the file changed: file', () => {
    const { account } = appliedAccount(c);
    const { change } = planFor(c, account, 1);
    expect(change.changed_fields).toEqual([c.field]);
    expect(change.drift).toEqual({ [c.field]: 'file' });
  });

  it('the account changed outside accord: outside', () => {
    const { account } = appliedAccount(c);
    account.edit(c.kind, (o) => c.setLive(o, 1));
    const { change } = planFor(c, account, 0);
    expect(change.changed_fields).toEqual([c.field]);
    expect(change.drift).toEqual({ [c.field]: 'outside' });
  });

  it('both changed: both', () => {
    const { account } = appliedAccount(c);
    account.edit(c.kind, (o) => c.setLive(o, c.values === 3 ? 2 : 1));
    const { p, change } = planFor(c, account, 1);
    expect(change.drift).toEqual({ [c.field]: 'both' });
    if (c.values === 3) {
      expect(change.changed_fields).toEqual([c.field]);
      return;
    }
    // Both to the one other value: nothing to change but the fingerprint, which must learn it.
    expect(change.action).toBe('patch');
    expect(change.changed_fields).toEqual([]);
    expect(change.reasons).toEqual([`${fileName(c.field)} changed outside accord to the file's value`]);
    account.execute(p);
    const again = planFor(c, account, 1).change;
    expect([again.action, again.drift]).toEqual(['no-op', {}]);
    // ...so that editing the file back reads as the file's change, not the account's.
    expect(planFor(c, account, 0).change.drift).toEqual({ [c.field]: 'file' });
  });

  it('a marker written before fingerprints: unknown, either way', () => {
    const { account } = appliedAccount(c);
    account.edit(c.kind, (o) =>
      editMarker(o, (m) => {
        delete m.accord['applied'];
      }),
    );
    expect(planFor(c, account, 1).change.drift).toEqual({ [c.field]: 'unknown' });
    account.edit(c.kind, (o) => c.setLive(o, 1));
    expect(planFor(c, account, 0).change.drift).toEqual({ [c.field]: 'unknown' });
  });

  it('after apply, nothing is attributed and the fingerprint is what the plan shows', () => {
    const { account } = appliedAccount(c);
    account.edit(c.kind, (o) => c.setLive(o, c.values === 3 ? 2 : 1));
    const { p } = planFor(c, account, 1);
    account.execute(p);
    const { change } = planFor(c, account, 1);
    expect([change.action, change.drift]).toEqual(['no-op', {}]);
    const live = account.objects(c.kind)[0]!;
    const applied = decodeMarker(String(live['metadata']))!.applied;
    const written = p.changes.find((x) => x.kind === c.kind)!;
    expect(applied).toBe(
      fingerprint(fingerprintFields(descriptorFor(c.kind)), written.after!, {
        owner: OWNER,
        key: written.key,
      }),
    );
  });
});

describe('the fingerprint', () => {
  it('fits the reserved length for every kind', () => {
    for (const d of managedDescriptors) {
      const fields = fingerprintFields(d);
      expect(fingerprint(fields, {}, O_K).length).toBeLessThanOrEqual(APPLIED_MAX_CHARS);
    }
    expect(Buffer.byteLength(`,"applied":"${'x'.repeat(APPLIED_MAX_CHARS)}"`)).toBeLessThanOrEqual(64);
  });

  it('covers each kind in a fixed field order', () => {
    // The fingerprints in the accounts hold these orders: a kind's may never change (a kind added since
    // has its own, ending as every kind's does).
    const orders = Object.fromEntries(
      managedDescriptors.map((d) => [d.kind, fingerprintFields(d).map((f) => f.name)]),
    );
    expect(orders).toMatchObject({
      ip_policy: ['description', 'metadata', 'protect'],
      ip_policy_rule: ['ip_policy', 'action', 'cidr', 'description', 'metadata', 'protect'],
      ip_restriction: ['type', 'enforced', 'ip_policies', 'description', 'metadata', 'protect'],
      certificate_authority: ['ca_pem', 'description', 'metadata', 'protect'],
      ssh_host_certificate: [
        'ssh_certificate_authority_id',
        'public_key',
        'principals',
        'valid_after',
        'valid_until',
        'description',
        'metadata',
        'protect',
      ],
      cloud_endpoint: [
        'url',
        'bindings',
        'pooling_enabled',
        'traffic_policy',
        'description',
        'metadata',
        'protect',
      ],
    });
    for (const order of Object.values(orders))
      expect(order.slice(-3)).toEqual(['description', 'metadata', 'protect']);
  });

  it('hashes values as JSON that ignores key order, and tells unset from null', () => {
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: 'x', z: undefined })).toBe(
      '{"a":"x","b":[1,{"c":2,"d":1}]}',
    );
    const fields = fingerprintFields(descriptorFor('ip_restriction'));
    expect(fingerprint(fields, { metadata: null }, O_K)).not.toBe(fingerprint(fields, {}, O_K));
    expect(fingerprint(fields, { metadata: { a: 1, b: 2 } }, O_K)).toBe(
      fingerprint(fields, { metadata: { b: 2, a: 1 } }, O_K),
    );
  });

  it('is read as none when it has another length or version', () => {
    const c = cases[1]!; // ip_restriction.enforced
    for (const applied of ['1abc', '2'.repeat(37), 'x']) {
      const { account } = appliedAccount(c);
      account.edit(c.kind, (o) =>
        editMarker(o, (m) => {
          m.accord['applied'] = applied;
        }),
      );
      expect(planFor(c, account, 1).change.drift).toEqual({ enforced: 'unknown' });
    }
  });
});

describe("the marker's key: a rename by the file, or a key rewritten outside accord", () => {
  const KEYS = ['k0', 'k1', 'k2'];
  const entries: [string, (key: string) => DesiredManaged][] = [
    ['ip_restriction', (key) => ipr(key, { type: 'dashboard', ip_policy_ids: [IPP_1] })],
    ['certificate_authority', (key) => ca(key, 'r1')],
    ['ssh_host_certificate', (key) => baseCert({ key })],
  ];

  /** The kind's entry applied as k0, the live key then set to `live`, planned with the file's key `file`. */
  function keyDrift(entry: (key: string) => DesiredManaged, file: string, live: string, legacy = false) {
    const account = new FakeAccount(NOW, CA_SEEDS);
    const first = desiredState({ [descriptorFor(entry('k0').kind).section]: [entry('k0')] });
    account.execute(plan(first, account.live(first), NOW, OPTIONS));
    account.edit(entry('k0').kind, (o) =>
      editMarker(o, (m) => {
        m.accord['key'] = live;
        // An earlier version's fingerprint: the same components, no marker part.
        if (legacy) m.accord['applied'] = `1${String(m.accord['applied']).slice(3)}`;
      }),
    );
    const desired = desiredState({ [descriptorFor(entry(file).kind).section]: [entry(file)] });
    const [change] = plan(desired, account.live(desired), NOW, OPTIONS).changes;
    return change!;
  }

  describe.each(entries)('%s', (_kind, entry) => {
    it.each([
      ['renamed in the file', 'k1', 'k0', 'file'],
      ['rewritten outside accord', 'k0', 'k1', 'outside'],
      ['renamed in the file and rewritten outside accord', 'k1', 'k2', 'both'],
    ])('%s', (_name, file, live, source) => {
      const change = keyDrift(entry, file, live);
      expect([change.action, change.reasons[0], change.drift]).toEqual([
        'patch',
        `renamed from ${live}`,
        { marker: source },
      ]);
    });

    it('an earlier version’s fingerprint (no marker part): the file’s, as before, and its fields still read', () => {
      expect(keyDrift(entry, 'k0', 'k1', true).drift).toEqual({ marker: 'file' });
    });
  });

  it('property: file when the account holds the key accord wrote, outside when the file does, else both', () => {
    const fields = fingerprintFields(descriptorFor('ip_restriction'));
    const values = { type: 'api', enforced: true, ip_policies: [IPP_1], description: '', protect: false };
    fc.assert(
      fc.property(fc.constantFrom(...KEYS), fc.constantFrom(...KEYS), fc.constantFrom(...KEYS), (w, f, l) => {
        fc.pre(f !== l);
        const { drift } = attributeDrift({
          fields,
          before: { ...values, marker: `o/${l}` },
          after: { ...values, marker: `o/${f}` },
          changed: ['marker'],
          applied: fingerprint(fields, values, { owner: 'o', key: w }),
          markers: { live: { owner: 'o', key: l }, desired: { owner: 'o', key: f } },
        });
        expect(drift).toEqual({ marker: l === w ? 'file' : f === w ? 'outside' : 'both' });
      }),
    );
  });
});

describe('what no fingerprint can tell', () => {
  it('a create (a new entry, or an object deleted outside accord) is unknown', () => {
    const desired = desiredState({ ip_restrictions: [ipr('office')] });
    const account = new FakeAccount(NOW, CA_SEEDS);
    const [change] = plan(desired, account.live(desired), NOW, OPTIONS).changes;
    expect(change!.action).toBe('create');
    expect(Object.values(change!.drift)).toEqual(change!.changed_fields.map(() => 'unknown'));
  });

  it('an edge module is unknown', () => {
    const desired = desiredState({
      tcp_edge_ip_restrictions: [tcpModule('edgtcp_1', { enabled: false })],
      websocket_tcp_converters: [wsModule('edghts_1', 'edghtsrt_1', { enabled: false })],
    });
    const p = plan(
      desired,
      {
        managed: emptyManaged(),
        modules: {
          'tcp_edges.edgtcp_1.ip_restriction': { enabled: true, ip_policies: refs([IPP_1]) },
          'https_edges.edghts_1.routes.edghtsrt_1.websocket_tcp_converter': { enabled: true },
        },
      },
      NOW,
      OPTIONS,
    );
    expect(p.changes.map((c) => [c.action, c.drift])).toEqual([
      ['put', { enabled: 'unknown' }],
      ['put', { enabled: 'unknown' }],
    ]);
  });

  it('an unmarked object adopted by id: is unknown', () => {
    const account = new FakeAccount(NOW, CA_SEEDS);
    account.add('ip_restriction', {
      id: 'ipx_9',
      type: 'dashboard',
      enforced: false,
      ip_policies: refs([IPP_1]),
      created_at: NOW.toISOString(),
    });
    const desired = desiredState({ ip_restrictions: [ipr('office', { id: 'ipx_9' })] });
    const [change] = plan(desired, account.live(desired), NOW, OPTIONS).changes;
    expect(change!.action).toBe('adopt');
    expect(change!.drift).toEqual({ enforced: 'unknown', marker: 'unknown' });
  });

  it("another owner's fingerprint is not this file's: a takeover is unknown", () => {
    const c = cases[1]!;
    const { account, obj } = appliedAccount(c);
    account.edit(c.kind, (o) =>
      editMarker(o, (m) => {
        m.accord['owner'] = 'team-b';
      }),
    );
    const desired = desiredState({
      ip_restrictions: [ipr('office', { id: String(obj['id']), enforced: false })],
    });
    const [change] = plan(desired, account.live(desired), NOW, { ...OPTIONS, allowTakeover: true }).changes;
    expect(change!.drift).toEqual({ enforced: 'unknown', marker: 'unknown' });
  });
});
