// `accord drift` against accord serve when markers themselves were tampered with outside accord
// (DESIGN §4 "Drift": markers are evidence too). Nine cases, each listed by address in text, JSON and
// Markdown with exit 2:
//   a. a slot's restriction whose marker was broken, emptied or given to another owner: `unknown`,
//      never the plan error (exit 1) that hid it;
//   b. a marker whose key was rewritten outside accord (SSH host certificate, restriction, CA, rule):
//      `outside`, a rename nobody filed;
//   c. an object created outside accord with a copy of this owner's marker (a second SSH host
//      certificate; a rule carrying another rule's metadata): `outside`, its delete listed.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import type { DriftReport } from '../../src/render/drift.js';
import type { RunningServer } from '../../src/server/index.js';
import { accord, HOST_KEY, listAll, markerOf, type Obj } from '../apply/helpers.js';
import { HOST_CA, OFFICE, ROOT, serveSeeded } from '../support/server.js';

const REPO_CA = join(ROOT, 'examples', 'certs', 'internal-root.pem');

const KEY = 'test-key-drift-markers-0123456789';
const OWNER = 'markers';

const FILE = [
  'version: 1',
  `owner: ${OWNER}`,
  'ip_policies:',
  '  office:',
  '    rules:',
  '      - allow: 10.0.0.0/8',
  '      - allow: 192.0.2.0/24',
  'ip_restrictions:',
  '  dash:',
  '    type: dashboard',
  '    enforced: true',
  `    ip_policies: [office, ${OFFICE}]`,
  'certificate_authorities:',
  '  root:',
  '    ca_pem_file: root.pem',
  'ssh_host_certificates:',
  '  bastion:',
  `    ssh_certificate_authority_id: ${HOST_CA}`,
  `    public_key: ${HOST_KEY}`,
  '    principals: [bastion.example.com]',
  '',
].join('\n');

interface Tamper {
  name: string;
  /** The address drift must list. */
  address: string;
  /** `outside` in `changes`, or `unattributed`. */
  listed: 'outside' | 'unattributed';
  /** For `unattributed`: why nothing tells who changed it. */
  why?: string;
  act: (api: Api) => Promise<void>;
}

interface Api {
  client: ApiClient;
  /** This owner's live object of a collection by marker key. */
  ours: (path: string, key: string) => Promise<Obj>;
}

const restriction = (api: Api) => api.ours('/ip_restrictions', 'dash');
const patchMetadata = async (api: Api, path: string, obj: Obj, metadata: string) => {
  await api.client.patch(`${path}/${String(obj['id'])}`, { metadata });
};
/** `obj`'s marker with another key (or owner), as someone editing the JSON would leave it. */
const rewritten = (obj: Obj, change: Record<string, string>) => {
  const parsed = JSON.parse(String(obj['metadata'])) as { accord: Record<string, unknown> };
  Object.assign(parsed.accord, change);
  return JSON.stringify(parsed);
};

const CASES: Tamper[] = [
  {
    name: 'a. a restriction marker broken',
    address: 'ip_restrictions.dash',
    listed: 'unattributed',
    why: 'marker_broken',
    act: async (api) => {
      const dash = await restriction(api);
      await patchMetadata(api, '/ip_restrictions', dash, String(dash['metadata']).slice(0, -2));
    },
  },
  {
    name: 'a. a restriction marker emptied',
    address: 'ip_restrictions.dash',
    listed: 'unattributed',
    why: 'slot_held',
    act: async (api) => patchMetadata(api, '/ip_restrictions', await restriction(api), ''),
  },
  {
    name: 'a. a restriction marker given to another owner',
    address: 'ip_restrictions.dash',
    listed: 'unattributed',
    why: 'slot_held',
    act: async (api) => {
      const dash = await restriction(api);
      await patchMetadata(api, '/ip_restrictions', dash, rewritten(dash, { owner: 'someone-else' }));
    },
  },
  ...(
    [
      ['/ssh_host_certificates', 'bastion', 'ssh_host_certificates.bastion'],
      ['/ip_restrictions', 'dash', 'ip_restrictions.dash'],
      ['/certificate_authorities', 'root', 'certificate_authorities.root'],
      ['/ip_policy_rules', 'office/10.0.0.0/8', 'ip_policies.office/10.0.0.0/8'],
    ] as const
  ).map(
    ([path, key, address]): Tamper => ({
      name: `b. the key of ${address} rewritten`,
      address,
      listed: 'outside',
      act: async (api) => {
        const obj = await api.ours(path, key);
        await patchMetadata(api, path, obj, rewritten(obj, { key: key.replace(/^\w+/, '$&-x') }));
      },
    }),
  ),
  {
    name: 'c. a second SSH host certificate with a copy of the marker',
    address: 'ssh_host_certificates.bastion#',
    listed: 'outside',
    act: async (api) => {
      const bastion = await api.ours('/ssh_host_certificates', 'bastion');
      await api.client.post('/ssh_host_certificates', {
        ssh_certificate_authority_id: HOST_CA,
        public_key: HOST_KEY,
        principals: ['bastion.example.com'],
        metadata: bastion['metadata'],
      });
    },
  },
  {
    name: "c. a rule carrying another rule's metadata",
    address: 'ip_policies.office/198.51.100.0/24',
    listed: 'outside',
    act: async (api) => {
      const rule = await api.ours('/ip_policy_rules', 'office/10.0.0.0/8');
      await api.client.post('/ip_policy_rules', {
        ip_policy_id: rule['ip_policy_id'] ?? (rule['ip_policy'] as Obj | undefined)?.['id'],
        action: 'allow',
        cidr: '198.51.100.0/24',
        metadata: rule['metadata'],
      });
    },
  },
];

describe('accord drift: markers tampered with outside accord', () => {
  let server: RunningServer;
  const dir = mkdtempSync(join(tmpdir(), 'accord-drift-markers-'));
  const file = join(dir, 'accord.yaml');
  writeFileSync(join(dir, 'root.pem'), readFileSync(REPO_CA));
  writeFileSync(file, FILE);
  const run = (...args: string[]) => accord(server.url, KEY, args);
  beforeEach(async () => {
    server = await serveSeeded(KEY);
  });
  afterEach(async () => {
    await server.close();
  });

  it.each(CASES)('$name', async (c) => {
    const setup = await run('apply', '-f', file, '--auto-approve');
    expect(setup.code, setup.out + setup.err).toBe(0);
    expect((await run('drift', '-f', file)).code).toBe(0);
    const client = new ApiClient({ baseUrl: server.url, apiKey: KEY });
    try {
      const ours = async (path: string, key: string) => {
        const found = (await listAll(server.url, KEY, path, path.slice(1))).find(
          (o) => markerOf(o)?.owner === OWNER && markerOf(o)?.key === key,
        );
        if (!found) throw new Error(`no ${path} with key ${key}`);
        return found;
      };
      await c.act({ client, ours });
    } finally {
      await client.close();
    }

    const text = await run('drift', '-f', file);
    const plan = await run('plan', '-f', file);
    expect(text.code, `${text.out + text.err}\n--- plan:\n${plan.out}${plan.err}`).toBe(2);
    expect(text.out).toContain(`  ${c.address}`);

    const json = await run('drift', '-f', file, '--json');
    expect(json.code, json.err).toBe(2);
    const report = JSON.parse(json.out) as DriftReport;
    const listed = c.listed === 'outside' ? report.changes : report.unattributed;
    expect(
      listed.map((x) => x.address).filter((a) => a.startsWith(c.address)),
      JSON.stringify(report),
    ).toHaveLength(1);
    if (c.why) expect(report.unattributed.find((u) => u.address === c.address)?.why).toBe(c.why);
    // plan still refuses a slot held outside accord (exit 1, naming the holder); only drift lists it.
    expect(plan.code).toBe(c.why ? 1 : 0);

    const markdown = await run('drift', '-f', file, '--markdown');
    expect(markdown.code, markdown.err).toBe(2);
    expect(markdown.out).toContain(c.address);
  });
});
