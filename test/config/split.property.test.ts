// Files never override each other, so where an entry is written does not change what it means: a valid
// file split into any partition of its entries over several files plans the same as the whole file, and
// the same partition given in any order has the same config_digest (DESIGN §1 "Several files"). An IP
// policy is named by key from whichever file, its own or another.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LiveState } from '../../src/account/model.js';
import { plan } from '../../src/cli/worded-plan.js';
import { loadDesiredState } from '../../src/config/index.js';
import type { Plan } from '../../src/plan/types.js';
import {
  emptyManaged,
  liveIpr,
  livePolicy,
  liveRule,
  marker,
  NOW,
  OPTIONS,
  OWNER,
} from '../plan/fixtures.js';
import { ED25519, EXAMPLE_CA, IPP, IPP2, Scratch, SSHCA } from './helpers.js';

/** One entry as the file writes it: the lines under its section, and the section's header lines. */
interface Entry {
  header: string[];
  lines: string[];
}

const TYPES = ['dashboard', 'api', 'agent', 'endpoints'] as const;

const restrictions = fc
  .subarray([...TYPES], { minLength: 0 })
  .chain((types) =>
    fc.tuple(
      ...types.map((type) =>
        fc.record({
          type: fc.constant(type),
          enforced: fc.boolean(),
          policies: fc.subarray([IPP, IPP2, 'office'], { minLength: 1 }),
          description: fc.constantFrom('', 'office only', 'ünïcode'),
        }),
      ),
    ),
  )
  .map((list) =>
    list.map(
      (r): Entry => ({
        header: ['ip_restrictions:'],
        lines: [
          `  r-${r.type}:`,
          `    type: ${r.type}`,
          `    enforced: ${r.enforced}`,
          `    ip_policies: [${r.policies.join(', ')}]`,
          ...(r.description ? [`    description: ${r.description}`] : []),
        ],
      }),
    ),
  );

const cas = fc
  .boolean()
  .map((on): Entry[] =>
    on
      ? [{ header: ['certificate_authorities:'], lines: ['  root:', '    ca_pem_file: certs/root.pem'] }]
      : [],
  );

const hosts = fc.uniqueArray(fc.constantFrom('web', 'db', 'bastion'), { maxLength: 3 }).map((keys) =>
  keys.map(
    (key): Entry => ({
      header: ['ssh_host_certificates:'],
      lines: [
        `  ${key}:`,
        `    ssh_certificate_authority_id: ${SSHCA}`,
        '    public_key_file: keys/host.pub',
        `    principals: [${key}.example.com]`,
        '    valid_until: 2030-01-01T00:00:00Z',
      ],
    }),
  ),
);

const tcp = fc
  .uniqueArray(fc.constantFrom('edgtcp_1', 'edgtcp_2'), { maxLength: 2 })
  .chain((edges) =>
    fc.tuple(
      ...edges.map((edge) =>
        fc
          .constantFrom(`{ip_policies: [${IPP}]}`, '{ip_policies: [office]}', 'absent')
          .map((v) => ({ edge, v })),
      ),
    ),
  )
  .map((list) =>
    list.map(
      ({ edge, v }): Entry => ({ header: ['tcp_edges:'], lines: [`  ${edge}: {ip_restriction: ${v}}`] }),
    ),
  );

const routes = fc
  .uniqueArray(fc.constantFrom('edghtsrt_1', 'edghtsrt_2', 'edghtsrt_3'), { maxLength: 3 })
  .map((ids) =>
    ids.map(
      (route): Entry => ({
        header: ['https_edges:', '  edghts_1:', '    routes:'],
        lines: [`      ${route}: {websocket_tcp_converter: {enabled: ${route !== 'edghtsrt_2'}}}`],
      }),
    ),
  );

/** The policy restrictions and modules name by key, wherever each is written (a file of its own or not). */
const policies = fc.boolean().map((deny): Entry[] => [
  {
    header: ['ip_policies:'],
    lines: ['  office:', `    rules: [{allow: 203.0.113.0/24}${deny ? ', {deny: 203.0.113.66/32}' : ''}]`],
  },
]);

const entries = fc.tuple(policies, restrictions, cas, hosts, tcp, routes).map((lists) => lists.flat());

/** Each entry's file (0 .. files-1), the file that says `owner:`, and an order to give the files in. */
const partitioned = entries.chain((list) =>
  fc.integer({ min: 1, max: 4 }).chain((files) =>
    fc.record({
      entries: fc.constant(list),
      files: fc.constant(files),
      fileOf: fc.array(fc.nat(files - 1), { minLength: list.length, maxLength: list.length }),
      ownerIn: fc.nat(files - 1),
      order: fc.shuffledSubarray([...Array(files).keys()], { minLength: files, maxLength: files }),
    }),
  ),
);

/** The YAML text of `list`: each section's header once, its entries in order. */
function fileText(list: readonly Entry[], owner: boolean): string {
  const lines = ['version: 1', ...(owner ? [`owner: ${OWNER}`] : [])];
  let header = '';
  for (const e of [...list].sort((a, b) =>
    a.header.join() < b.header.join() ? -1 : a.header.join() > b.header.join() ? 1 : 0,
  )) {
    if (e.header.join() !== header) lines.push(...e.header);
    header = e.header.join();
    lines.push(...e.lines);
  }
  return `${lines.join('\n')}\n`;
}

/** Some of the entries are live already, one of them differing from the file. */
const SEEDED = emptyManaged();
const LIVE: LiveState = {
  managed: {
    ...SEEDED,
    // The policies the restrictions name, each letting an office range in.
    ip_policy: [...SEEDED.ip_policy, livePolicy(IPP), livePolicy(IPP2)],
    ip_policy_rule: [
      ...SEEDED.ip_policy_rule,
      liveRule('ipr_office', IPP, ['allow', '203.0.113.0/24']),
      liveRule('ipr_vpn', IPP2, ['allow', '198.51.100.0/24']),
    ],
    ip_restriction: [
      liveIpr('ipx_1', { type: 'api', metadata: marker('r-api') }, [IPP]),
      liveIpr('ipx_2', { type: 'agent', enforced: false, metadata: marker('r-agent') }, [IPP, IPP2]),
      liveIpr('ipx_3', { type: 'endpoints', metadata: marker('gone') }),
    ],
  },
  modules: {},
};

/** The plan without the files it was made from: the only part that may differ between layouts. */
function meaning(p: Plan) {
  const { config_digest: _digest, file_digests: _digests, files: _files, ...rest } = p;
  return { ...rest, changes: p.changes.map(({ source: _source, ...c }) => c) };
}

describe('splitting a file over several files', () => {
  it('plans the same as the whole file; the same partition in any order has one digest', async () => {
    await fc.assert(
      fc.asyncProperty(partitioned, async (t) => {
        const scratch = new Scratch();
        const dir = scratch.dir;
        try {
          scratch.write('certs/root.pem', EXAMPLE_CA);
          scratch.write('keys/host.pub', `${ED25519}\n`);
          scratch.write('whole.yaml', fileText(t.entries, true));
          const names = [...Array(t.files).keys()].map((i) => `part-${i}.yaml`);
          for (const [i, name] of names.entries()) {
            const own = t.entries.filter((_, e) => t.fileOf[e] === i);
            scratch.write(name, fileText(own, i === t.ownerIn));
          }
          const whole = await loadDesiredState('whole.yaml', dir);
          const split = await loadDesiredState(names, dir);
          const shuffled = await loadDesiredState(
            t.order.map((i) => names[i]!),
            dir,
          );
          const planned = [whole, split, shuffled].map((s) => plan(s, LIVE, NOW, OPTIONS));
          expect(meaning(planned[1]!)).toEqual(meaning(planned[0]!));
          // The same files in another order: the same plan, sources included; only the list's order differs.
          expect({ ...planned[2], files: [] }).toEqual({ ...planned[1], files: [] });
          expect([...planned[2]!.files].sort()).toEqual([...names].sort());
          expect(shuffled.digest).toBe(split.digest);
          // Every change an entry makes names the part and the line it is written at.
          for (const c of planned[1]!.changes) {
            if (c.source === undefined) continue;
            expect(c.source.file).toMatch(/^part-\d\.yaml$/);
            const line = readFileSync(join(dir, c.source.file), 'utf8').split('\n')[c.source.line - 1];
            // A rule is at its CIDR (`- allow: 203.0.113.0/24`), any other entry at its key.
            const rule = c.kind === 'ip_policy_rule';
            expect(line).toContain(
              rule ? c.key.slice(c.key.indexOf('/') + 1) : `${c.key.split('.').at(-1)}:`,
            );
          }
        } finally {
          scratch.remove();
        }
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
