// For any account (any descriptions, any metadata, resources of this owner, of another, of nobody), the
// export with --include-managed --include-other-owners is a file that loads, its plan holds only adopts that change nothing but the marker (and metadata too big for it),
// and once those PATCHes are applied the plan is empty.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { LiveState } from '../../src/account/model.js';
import { plan } from '../../src/cli/worded-plan.js';
import { loadDesiredState } from '../../src/config/index.js';
import { buildExport } from '../../src/export/document.js';
import type { LiveAccount } from '../../src/export/read.js';
import { encodeMarker } from '../../src/resources/marker.js';
import type { LiveObject } from '../../src/resources/values.js';
import { NOW, OPTIONS } from '../plan/fixtures.js';

const REPO = join(import.meta.dirname, '..', '..');
const PEM = readFileSync(join(REPO, 'examples/certs/internal-root.pem'), 'utf8');
const KEYS = ['ed25519', 'ecdsa', 'rsa'].map((k) =>
  readFileSync(join(REPO, `examples/keys/ssh_host_${k}_key.pub`), 'utf8').trim(),
);
const TYPES = ['dashboard', 'api', 'agent', 'endpoints'] as const;

const text = fc.string({ unit: 'grapheme', maxLength: 40 });
const metadata = fc.oneof(
  fc.constant(undefined),
  text,
  fc.json({ maxDepth: 3 }),
  fc.constantFrom('', '42', 'null', '{"a":1,"a":2}', '{"n": 1e400}', '{"big": 9007199254740993}', '[1, 2]\n'),
  fc.integer({ min: 4000, max: 4096 }).map((n) => `{"b":"${'x'.repeat(n - 8)}"}`),
);
/** Who holds the resource: nobody (unmanaged), this owner (under a key), or another owner. */
const holder = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
  fc.record({
    kind: fc.constant('mine' as const),
    key: fc.constantFrom('web', 'db', 'certificate-authority-00000002'),
  }),
  fc.record({ kind: fc.constant('other' as const), key: fc.constantFrom('web', 'x') }),
);
const common = fc.record({ description: fc.oneof(fc.constant(''), text), metadata, holder });

const account = fc.record({
  ipTypes: fc.subarray([...TYPES]),
  ipCommon: fc.array(common, { minLength: 4, maxLength: 4 }),
  cas: fc.array(common, { maxLength: 6 }),
  endpoints: fc.array(common, { maxLength: 3 }),
  certs: fc.array(
    fc.record({
      common,
      key: fc.constantFrom(...KEYS),
      principals: fc.uniqueArray(fc.stringMatching(/^[a-z0-9.-]{1,12}$/), { maxLength: 3 }),
    }),
    { maxLength: 6 },
  ),
});

type Generated = typeof account extends fc.Arbitrary<infer T> ? T : never;

function liveAccount(g: Generated): LiveAccount {
  let n = 0;
  const used = new Set<string>();
  const base = (prefix: string, c: Generated['cas'][number]) => {
    n++;
    // Marker data stays small; this owner's keys are unique per kind (a second holder of one key is a
    // duplicate, which the planner deletes: not what this property is about).
    const data = c.metadata?.startsWith('{"b":"xxx') ? undefined : c.metadata;
    let metadata = c.metadata;
    if (c.holder.kind === 'other') metadata = encodeMarker('team-b', c.holder.key, false, data);
    else if (c.holder.kind === 'mine' && !used.has(prefix + c.holder.key)) {
      used.add(prefix + c.holder.key);
      metadata = encodeMarker('platform', c.holder.key, n % 3 === 0, data);
    }
    return {
      id: `${prefix}${String(n).padStart(27, '0')}`,
      created_at: `2026-01-01T00:00:${String(n).padStart(2, '0')}Z`,
      description: c.description,
      ...(metadata !== undefined ? { metadata } : {}),
    };
  };
  return {
    managed: {
      ip_policy: [
        { id: 'ipp_2demoOffice0000000000000000', created_at: '2026-01-01T00:00:00Z', description: '' },
      ],
      ip_policy_rule: [
        {
          id: 'ipr_2demoOffice0000000000000000',
          created_at: '2026-01-01T00:00:00Z',
          description: '',
          cidr: '203.0.113.0/24',
          action: 'allow',
          ip_policy: { id: 'ipp_2demoOffice0000000000000000', uri: 'http://x' },
        },
      ],
      ip_restriction: g.ipTypes.map((type, i) => ({
        ...base('ipx_', g.ipCommon[i]!),
        type,
        enforced: i % 2 === 0,
        ip_policies: [{ id: 'ipp_2demoOffice0000000000000000', uri: 'http://x' }],
      })),
      certificate_authority: g.cas.map((c) => ({
        ...base('ca_', c),
        ca_pem: PEM,
        subject_common_name: 'Example Corp Internal Root CA',
        not_after: '2046-11-22T06:00:52Z',
      })),
      ssh_host_certificate: g.certs.map((c) => ({
        ...base('shcrt_', c.common),
        ssh_certificate_authority_id: 'sshca_2demoHostCA0000000000000000',
        public_key: c.key,
        principals: c.principals,
        valid_after: '2026-01-01T00:00:00Z',
        valid_until: '2027-01-01T00:00:00Z',
      })),
      cloud_endpoint: g.endpoints.map((c, i) => ({
        ...base('ep_', c),
        type: 'cloud',
        url: `https://e${i}.example.com`,
        bindings: ['public'],
        pooling_enabled: i === 1,
        traffic_policy: POLICIES[i % POLICIES.length],
      })),
    },
    modules: {},
  };
}

/** Live policy texts as the service keeps them: JSON as accord sends it, YAML as another tool might. */
const POLICIES = [
  JSON.stringify({
    on_http_request: [
      {
        actions: [
          {
            type: 'restrict-ips',
            config: { ip_policies: ['ipp_2demoOffice0000000000000000'], deny: ['203.0.113.66/32'] },
          },
        ],
      },
    ],
  }),
  'on_tcp_connect:\n  - name: office\n    actions:\n      - type: restrict-ips\n        config: {allow: [10.0.0.0/8]}\n',
];

describe('export then plan, for any account', () => {
  const root = mkdtempSync(join(tmpdir(), 'accord-export-prop-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let run = 0;

  it('loads, plans only adopts, and plans nothing once they are applied', async () => {
    await fc.assert(
      fc.asyncProperty(account, async (g) => {
        const acct = liveAccount(g);
        const result = buildExport(acct, {
          owner: 'platform',
          includeManaged: true,
          includeOtherOwners: true,
          pem: 'files',
        });
        const dir = join(root, String(run++));
        for (const f of [...result.files, { path: 'accord.yaml', content: result.yaml }]) {
          mkdirSync(dirname(join(dir, f.path)), { recursive: true });
          writeFileSync(join(dir, f.path), f.content);
        }
        const desired = await loadDesiredState(join(dir, 'accord.yaml'));
        const live: LiveState = { managed: acct.managed, modules: {} };
        const options = { ...OPTIONS, allowTakeover: true };
        const first = plan(desired, live, NOW, options);
        const total = Object.values(acct.managed).flat().length;
        expect(first.summary.adopt + first.summary.no_op).toBe(total);
        for (const c of first.changes) {
          // This owner's resources are already in accord; the rest are adopted or taken over.
          const mine = c.before?.['marker'] === `platform/${c.key}`;
          expect(c.action).toBe(mine ? 'no-op' : 'adopt');
          const extra = c.changed_fields.filter((f) => f !== 'marker');
          // Only metadata that could not be kept (too big for the marker) changes.
          if (extra.length > 0) {
            expect(extra).toEqual(['metadata']);
            expect(result.yaml).toContain(`${c.key}: metadata left out`);
          }
        }
        // Apply the PATCHes to the in-memory account, then plan again.
        const byId = new Map<string, LiveObject>(
          Object.values(acct.managed).flatMap((l) => l.map((o) => [String(o['id']), o])),
        );
        for (const c of first.changes) {
          for (const r of c.requests) Object.assign(byId.get(c.id!)!, r.body);
        }
        const second = plan(desired, live, NOW, options);
        expect(second.changes.filter((c) => c.action !== 'no-op')).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });
});
