// A saved plan does only what it shows (DESIGN §4): a real plan made by the CLI against the local
// service, edited by hand in every way a build artifact could be, is either refused with exit 1 (or 3)
// before any request, the account byte for byte as it was, or is harmless: `apply FILE` plans again
// from the reviewed files and sends that plan's requests, never the file's.
import { mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Plan, PlanChange } from '../../src/plan/types.js';
import { accord, HOST_CA, HOST_KEY, listAll, markerOf, type Obj, OFFICE, VPN } from '../apply/helpers.js';
import { HTTPS_EDGE, TCP_EDGE, useSeededService, WS_ROUTE } from '../support/server.js';

const KEY = 'test-key-apply-tamper-0123456789';
const OWNER = 'tamper';
const API_ROUTE = 'edghtsrt_2demoApi0000000000000000000';
/** Managed SSH host certificates besides bastion and vault: enough for the destroy threshold. */
const HOSTS = Array.from({ length: 8 }, (_, i) => `h${i}`);
/** The four that the `fewer` plan deletes: 4 of 12 managed is over 30%. */
const GONE = HOSTS.slice(0, 4);
/** The time the final apply runs at: a `valid_for: 90d` certificate is valid until 90 days later. */
const APPLY_NOW = new Date('2027-03-01T00:00:00Z');

function cert(key: string, extra: string[] = []): string[] {
  return [
    `  ${key}:`,
    `    ssh_certificate_authority_id: ${HOST_CA}`,
    `    public_key: ${HOST_KEY}`,
    `    principals: [${key}.example.com]`,
    ...extra.map((line) => `    ${line}`),
  ];
}

function desired(step: 'before' | 'after' | 'fewer'): string {
  const after = step !== 'before';
  return [
    'version: 1',
    `owner: ${OWNER}`,
    'ip_restrictions:',
    '  office:',
    '    type: dashboard',
    `    enforced: ${!after}`,
    `    ip_policies: [${OFFICE}]`,
    '    lifecycle: {prevent_destroy: true}',
    '  api:',
    '    type: api',
    `    enforced: ${!after}`,
    `    ip_policies: [${OFFICE}]`,
    'ssh_host_certificates:',
    '  bastion:',
    `    ssh_certificate_authority_id: ${HOST_CA}`,
    `    public_key: ${HOST_KEY}`,
    `    principals: [${after ? 'bastion2' : 'bastion'}.example.com]`,
    ...cert('vault', ['lifecycle: {prevent_destroy: true}']),
    ...HOSTS.filter((h) => step !== 'fewer' || !GONE.includes(h)).flatMap((h) => cert(h)),
    ...(after ? cert('fresh', ['valid_for: 90d']) : []),
    'tcp_edges:',
    `  ${TCP_EDGE}:`,
    `    ip_restriction: {enabled: true, ip_policies: [${after ? VPN : OFFICE}]}`,
    'https_edges:',
    `  ${HTTPS_EDGE}:`,
    '    routes:',
    `      ${WS_ROUTE}:`,
    `        websocket_tcp_converter: {enabled: ${after}}`,
    '',
  ].join('\n');
}

describe('accord apply FILE: an edited plan is refused, or harmless', () => {
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-tamper-'));
  const planFile = join(dir, 'plan.json');
  const fewerFile = join(dir, 'fewer.json');
  // Run where the files are, as CI does: the plan names them relative to this directory.
  const run = (args: string[], now?: Date) =>
    accord(server.url, KEY, args, { cwd: dir, ...(now ? { now: () => now } : {}) });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${KEY}`,
        'service-version': '2',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as Obj) };
  };

  /** Everything accord could touch, as the API returns it. */
  const account = async () => {
    const lists: Record<string, Obj[]> = {};
    for (const [path, key] of [
      ['/ip_restrictions', 'ip_restrictions'],
      ['/certificate_authorities', 'certificate_authorities'],
      ['/ssh_host_certificates', 'ssh_host_certificates'],
      ['/ip_policies', 'ip_policies'],
    ] as const) {
      lists[path] = await listAll(server.url, KEY, path, key);
    }
    const modules: Record<string, unknown> = {};
    for (const path of [
      `/edges/tcp/${TCP_EDGE}/ip_restriction`,
      `/edges/tcp/${otherEdge}/ip_restriction`,
      `/edges/https/${HTTPS_EDGE}/routes/${WS_ROUTE}/websocket_tcp_converter`,
      `/edges/https/${HTTPS_EDGE}/routes/${API_ROUTE}/websocket_tcp_converter`,
    ]) {
      const got = await api('GET', path);
      // A 404's body carries a fresh operation ID each time: its status is the state.
      modules[path] = got.status === 200 ? got.body : got.status;
    }
    return JSON.stringify({ lists, modules });
  };

  let unmanaged: Obj;
  let otherOwners: Obj;
  let theirCert: Obj;
  /** A TCP edge the file does not name, made by hand. */
  let otherEdge: string;
  let saved: string;
  let fewer: string;
  let before: string;
  /** This owner's objects by key, as set up. */
  let ours: Map<string, Obj>;

  beforeAll(async () => {
    const setup = await run(['apply', '-f', file('before.yaml', desired('before')), '--auto-approve']);
    expect(setup.code, setup.err).toBe(0);
    // Made by hand: one without a marker, one marked by another owner.
    const made = await api('POST', '/ip_restrictions', {
      type: 'agent',
      enforced: false,
      ip_policy_ids: [VPN],
      description: 'made by hand',
    });
    expect(made.status).toBe(201);
    unmanaged = made.body!;
    const theirs = await api('POST', '/ip_restrictions', {
      type: 'endpoints',
      enforced: false,
      ip_policy_ids: [VPN],
      metadata: JSON.stringify({ accord: { owner: 'someone-else', key: 'office' } }),
    });
    expect(theirs.status).toBe(201);
    otherOwners = theirs.body!;
    const their = await api('POST', '/ssh_host_certificates', {
      ssh_certificate_authority_id: HOST_CA,
      public_key: HOST_KEY,
      principals: ['theirs.example.com'],
      metadata: JSON.stringify({ accord: { owner: 'someone-else', key: 'bastion' } }),
    });
    expect(their.status).toBe(201);
    theirCert = their.body!;
    const edge = await api('POST', '/edges/tcp', { hostports: ['1.tcp.ngrok.io:20001'] });
    expect(edge.status).toBe(201);
    otherEdge = String(edge.body!['id']);
    const module = await api('PUT', `/edges/tcp/${otherEdge}/ip_restriction`, {
      enabled: false,
      ip_policy_ids: [OFFICE],
    });
    expect(module.status).toBe(200);
    file('after.yaml', desired('after'));
    const planned = await run(['plan', '-f', 'after.yaml', '--out', planFile]);
    expect(planned.code, planned.err).toBe(0);
    saved = readFileSync(planFile, 'utf8');
    file('fewer.yaml', desired('fewer'));
    const unsafe = await run(['plan', '-f', 'fewer.yaml', '--out', fewerFile]);
    expect(unsafe.code, unsafe.err).toBe(3);
    fewer = readFileSync(fewerFile, 'utf8');
    before = await account();
    ours = new Map();
    for (const path of ['/ip_restrictions', '/ssh_host_certificates']) {
      for (const o of await listAll(server.url, KEY, path, path.slice(1))) {
        const m = markerOf(o);
        if (m?.owner === OWNER) ours.set(m.key, o);
      }
    }
  });

  function file(name: string, text: string): string {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  }

  const changeAt = (plan: Plan, address: string): PlanChange => {
    const c = plan.changes.find((x) => x.address === address);
    if (!c) throw new Error(`no ${address} in ${plan.changes.map((x) => x.address).join(', ')}`);
    return c;
  };
  const idOf = (key: string) => String(ours.get(key)!['id']);

  /**
   * Applies `plan` (the saved `plan.json` unless given) after `edit`; expects `exit`, `code` in --json
   * with `message` on stderr, nothing applied and an untouched account.
   */
  const refused = async (
    edit: (plan: Plan) => void,
    message: string | RegExp,
    { code = 'ACCORD_STALE_PLAN', exit = 1, from = saved, flags = [] as string[] } = {},
  ) => {
    const plan = JSON.parse(from) as Plan;
    // Applied, as CI does, with the files the plan was made from named by the command.
    const files = plan.files.flatMap((f) => ['-f', f]);
    edit(plan);
    const tampered = join(dir, 'tampered.json');
    writeFileSync(tampered, JSON.stringify(plan, null, 2));
    // With --json: the code says what kind of refusal it is, the paragraph on stderr what differs.
    const r = await run(['apply', tampered, ...files, '--json', ...flags]);
    expect(r.code, r.out + r.err).toBe(exit);
    expect(JSON.parse(r.out)).toEqual({ error: { code, message: expect.any(String) } });
    if (typeof message === 'string') expect(r.err).toContain(message);
    else expect(r.err).toMatch(message);
    expect(await account()).toBe(before);
  };

  it('shows the changes the tampering below starts from', () => {
    const plan = JSON.parse(saved) as Plan;
    expect(plan.files).toEqual(['after.yaml']);
    expect(plan.changes.filter((c) => c.action !== 'no-op').map((c) => [c.address, c.action])).toEqual([
      ['ip_restrictions.api', 'patch'],
      ['ip_restrictions.office', 'patch'],
      ['ssh_host_certificates.bastion', 'replace'],
      ['ssh_host_certificates.fresh', 'create'],
      [`tcp_edges.${TCP_EDGE}.ip_restriction`, 'put'],
      // The module swaps policies: it first passes through their union (src/traffic/order.ts).
      [`tcp_edges.${TCP_EDGE}.ip_restriction#union`, 'put'],
      [`https_edges.${HTTPS_EDGE}.routes.${WS_ROUTE}.websocket_tcp_converter`, 'put'],
    ]);
    const unsafe = JSON.parse(fewer) as Plan;
    expect(unsafe.safe).toBe(false);
    expect(unsafe.changes.filter((c) => c.action === 'delete').map((c) => c.address)).toEqual(
      GONE.map((h) => `ssh_host_certificates.${h}`),
    );
  });

  it('a change pointed at an unmanaged object', async () => {
    const id = String(unmanaged['id']);
    await refused(
      (p) => {
        const c = changeAt(p, 'ip_restrictions.office');
        c.id = id;
        c.requests[0]!.path = `/ip_restrictions/${id}`;
      },
      `plan is stale: ip_restrictions.office: its id is "${id}" in the plan, "${idOf('office')}" now; run plan again.`,
    );
  });

  it("a change pointed at another owner's object, or an added delete of it", async () => {
    const id = String(otherOwners['id']);
    await refused((p) => {
      const c = changeAt(p, 'ip_restrictions.office');
      c.id = id;
      c.requests[0]!.path = `/ip_restrictions/${id}`;
    }, `plan is stale: ip_restrictions.office: its id is "${id}" in the plan`);
    await refused((p) => {
      p.changes.push({
        address: 'ip_restrictions.office-old',
        kind: 'ip_restriction',
        key: 'office-old',
        id,
        action: 'delete',
        reasons: ['not in the file'],
        reason_codes: [{ code: 'not_in_file' }],
        before: { type: 'endpoints', enforced: false, ip_policies: [VPN], description: '' },
        after: null,
        changed_fields: [],
        drift: {},
        depends_on: [],
        requests: [{ method: 'DELETE', path: `/ip_restrictions/${id}` }],
      });
      p.summary.delete++;
    }, 'plan is stale: the plan shows ip_restrictions.office-old (delete), which a plan made now does not');
  });

  it('a module change pointed at another edge', async () => {
    const address = `tcp_edges.${TCP_EDGE}.ip_restriction`;
    await refused((p) => {
      const c = changeAt(p, address);
      c.id = otherEdge;
      c.requests[0]!.path = `/edges/tcp/${otherEdge}/ip_restriction`;
    }, `plan is stale: ${address}: its id is "${otherEdge}" in the plan, "${TCP_EDGE}" now`);
  });

  it('a changed value shown', async () => {
    await refused((p) => {
      changeAt(p, 'ip_restrictions.office').after!['enforced'] = true;
    }, 'plan is stale: ip_restrictions.office: it sets enforced to true in the plan, false now; run plan again.');
    await refused((p) => {
      changeAt(p, `tcp_edges.${TCP_EDGE}.ip_restriction`).after!['ip_policies'] = [OFFICE];
    }, `tcp_edges.${TCP_EDGE}.ip_restriction: it sets ip_policies to ["${OFFICE}"] in the plan, ["${VPN}"] now`);
    await refused((p) => {
      changeAt(p, 'ip_restrictions.api').changed_fields = [];
    }, 'plan is stale: ip_restrictions.api: changes [] in the plan, [enforced] now');
    await refused((p) => {
      changeAt(p, 'ip_restrictions.api').action = 'replace';
    }, 'plan is stale: ip_restrictions.api: the plan would replace it, a plan made now would patch it; run plan again.');
  });

  it('an added change', async () => {
    await refused((p) => {
      const office = changeAt(p, 'ip_restrictions.office');
      p.changes.push({ ...structuredClone(office), address: 'ip_restrictions.office2', key: 'office2' });
      p.summary.patch++;
    }, 'the plan shows ip_restrictions.office2 (patch), which a plan made now does not');
    // A removed one: the plan made now has it.
    await refused((p) => {
      p.changes = p.changes.filter((c) => c.address !== 'ip_restrictions.api');
    }, 'plan is stale: a plan made now also shows ip_restrictions.api (patch), which the plan does not');
    await refused((p) => {
      p.changes.push(structuredClone(changeAt(p, 'ip_restrictions.api')));
    }, 'plan is stale: ip_restrictions.api appears twice in the plan');
    // A create consistent in itself, with its request, that the summary reviewers read does not count.
    await refused((p) => {
      const office = changeAt(p, 'ip_restrictions.office');
      p.changes.push({
        ...structuredClone(office),
        address: 'ip_restrictions.extra',
        key: 'extra',
        id: null,
        action: 'create',
        before: null,
        after: { ...office.after, type: 'agent', marker: `${OWNER}/extra` },
        requests: [{ method: 'POST', path: '/ip_restrictions', body: { type: 'agent', enforced: false } }],
      });
    }, 'the plan shows ip_restrictions.extra (create), which a plan made now does not');
  });

  it('a selection that leaves out the changes shown: never taken for an account that already matches', async () => {
    for (const selection of [
      { target: ['ip_restrictions'], exclude: ['ip_restrictions'], left_out: [] },
      { target: ['ip_restrictions.api'], exclude: [], left_out: [] },
    ]) {
      await refused((p) => {
        p.selection = selection;
      }, /plan is stale: it shows \S+ \(\w+\), which its own selection leaves out; run plan again\./);
    }
  });

  it("an id swapped with another change's, with its request paths", async () => {
    await refused(
      (p) => {
        const office = changeAt(p, 'ip_restrictions.office');
        const other = changeAt(p, 'ip_restrictions.api');
        [office.id, other.id] = [other.id, office.id];
        [office.requests[0]!.path, other.requests[0]!.path] = [
          other.requests[0]!.path,
          office.requests[0]!.path,
        ];
      },
      `plan is stale: ip_restrictions.api: its id is "${idOf('office')}" in the plan, "${idOf('api')}" now`,
    );
  });

  it('a protected SSH host certificate deleted: a change renamed to its key, and a delete dressed as a duplicate', async () => {
    const vault = idOf('vault');
    await refused((p) => {
      const old = changeAt(p, 'ssh_host_certificates.vault');
      const bastion = changeAt(p, 'ssh_host_certificates.bastion');
      bastion.address = 'ssh_host_certificates.vault';
      bastion.key = 'vault';
      bastion.after!['marker'] = `${OWNER}/vault`;
      Object.assign(old, {
        address: `ssh_host_certificates.vault#${vault}`,
        action: 'delete',
        reasons: [`duplicate of ${bastion.id}`],
        after: null,
        requests: [{ method: 'DELETE', path: `/ssh_host_certificates/${vault}` }],
      });
    }, 'plan is stale: ssh_host_certificates.vault: the plan would replace it, a plan made now leaves it as it is: its marker is "tamper/vault" in the account now, "tamper/bastion" in the plan; run plan again.');
  });

  it('a protected dashboard restriction deleted as a duplicate, its successor created', async () => {
    const office = idOf('office');
    await refused((p) => {
      const c = changeAt(p, 'ip_restrictions.office');
      const create = structuredClone(c);
      Object.assign(c, {
        address: `ip_restrictions.office#${office}`,
        action: 'delete',
        reasons: [`duplicate of ${idOf('api')}`],
        after: null,
        changed_fields: [],
        requests: [{ method: 'DELETE', path: `/ip_restrictions/${office}` }],
      });
      Object.assign(create, { id: null, action: 'create', before: null });
      create.requests = [{ method: 'POST', path: '/ip_restrictions', body: { type: 'dashboard' } }];
      p.changes.push(create);
    }, `plan is stale: the plan shows ip_restrictions.office#${office} (delete), which a plan made now does not`);
  });

  it('four deletes dressed as duplicates to pass the destroy threshold', async () => {
    const kept = HOSTS[4]!;
    const dress = (p: Plan, address: boolean) => {
      for (const h of GONE) {
        const c = changeAt(p, `ssh_host_certificates.${h}`);
        c.reasons = [`duplicate of ${idOf(kept)}`];
        if (address) Object.assign(c, { address: `ssh_host_certificates.${kept}#${c.id}`, key: kept });
      }
      p.safe = true;
      p.unsafe_reasons = [];
      p.safety.threshold_exceeded = false;
    };
    await refused((p) => dress(p, true), `the plan shows ssh_host_certificates.${kept}#`, { from: fewer });
    // Only the reasons and the verdict: the plan made now is the one saved, and over the threshold.
    await refused(
      (p) => dress(p, false),
      'tampered.json is refused by a safety rule: would delete or replace 5 of 12 managed resources (41.7%), more than --max-destroy-percent 30',
      { from: fewer, code: 'ACCORD_UNSAFE_PLAN', exit: 3 },
    );
  });

  it("the owner changed to another file's", async () => {
    await refused((p) => {
      p.owner = 'someone-else';
    }, 'plan is stale: its owner is "someone-else", but after.yaml sets "tamper"; run plan again.');
    // With a delete of that owner's certificate besides.
    await refused((p) => {
      p.owner = 'someone-else';
      const bastion = changeAt(p, 'ssh_host_certificates.bastion');
      p.changes.push({
        ...structuredClone(bastion),
        address: `ssh_host_certificates.bastion#${theirCert['id']}`,
        id: String(theirCert['id']),
        action: 'delete',
        after: null,
        requests: [{ method: 'DELETE', path: `/ssh_host_certificates/${theirCert['id']}` }],
      });
    }, 'its owner is "someone-else"');
  });

  it('an added adoption of an unmanaged restriction, and an added takeover', async () => {
    for (const [target, reason] of [
      [unmanaged, `adopts unmanaged ${unmanaged['id']} named by id:`],
      [otherOwners, `takes ${otherOwners['id']} over from owner "someone-else" (--allow-takeover)`],
    ] as const) {
      const id = String(target['id']);
      await refused((p) => {
        p.changes.push({
          address: 'ip_restrictions.agent',
          kind: 'ip_restriction',
          key: 'agent',
          id,
          action: 'adopt',
          reasons: [reason],
          reason_codes: [],
          before: { type: target['type'], enforced: false, ip_policies: [VPN], description: '' },
          after: { type: target['type'], enforced: false, ip_policies: [VPN], marker: `${OWNER}/agent` },
          changed_fields: ['marker'],
          drift: {},
          depends_on: [],
          requests: [
            {
              method: 'PATCH',
              path: `/ip_restrictions/${id}`,
              body: { enforced: false, metadata: JSON.stringify({ accord: { owner: OWNER, key: 'agent' } }) },
            },
          ],
        });
        p.summary.adopt++;
      }, 'the plan shows ip_restrictions.agent (adopt), which a plan made now does not');
    }
    // Nor does the apply's own --allow-takeover make the file's takeover one: the files hold no such entry.
    await refused(
      (p) => {
        p.changes.push({
          ...structuredClone(changeAt(p, 'ip_restrictions.api')),
          address: 'ip_restrictions.agent',
          key: 'agent',
          id: String(otherOwners['id']),
          action: 'adopt',
        });
      },
      'the plan shows ip_restrictions.agent (adopt)',
      { flags: ['--allow-takeover'] },
    );
  });

  it('the files named, or their contents, changed since the plan was made', async () => {
    // The plan cannot name other files than the command's, whatever its digest.
    await refused(
      (p) => {
        p.files = ['before.yaml'];
      },
      'tampered.json names before.yaml, and this apply reads after.yaml (from -f); nothing was changed.',
      { code: 'ACCORD_PLAN_FILE' },
    );
    await refused((p) => {
      p.config_digest = '0'.repeat(64);
    }, 'the files changed since the plan was made: plan again');
    writeFileSync(join(dir, 'after.yaml'), `${desired('after')}# reviewed? no\n`);
    try {
      await refused(() => {}, 'the files changed since the plan was made: plan again');
    } finally {
      file('after.yaml', desired('after'));
    }
    renameSync(join(dir, 'after.yaml'), join(dir, 'moved.yaml'));
    try {
      // The command names after.yaml, which is gone: the file's problem, before any request.
      const r = await run(['apply', planFile, '-f', 'after.yaml']);
      expect(r.code).toBe(1);
      expect(r.err).toContain('file not found');
      expect(await account()).toBe(before);
    } finally {
      renameSync(join(dir, 'moved.yaml'), join(dir, 'after.yaml'));
    }
  });

  it('the API URL, or a plan of an earlier format', async () => {
    await refused((p) => {
      p.api_url = 'https://api.example.com';
    }, `plan is stale: it was made for https://api.example.com, not ${server.url}; run plan again against this API.`);
    for (const version of [1, 2, 3]) {
      await refused(
        (p) => {
          (p as { format_version: number }).format_version = version;
        },
        `tampered.json was saved by an earlier accord (plan format ${version}), which does not name the desired-state files this version plans again from; plan again with accord plan --out FILE.`,
        { code: 'ACCORD_PLAN_FILE' },
      );
    }
    await refused(
      (p) => {
        Object.assign(changeAt(p, 'ip_restrictions.office'), { live_digest: null });
      },
      'tampered.json is not a plan this version of accord can apply at /changes/1: must NOT have additional properties',
      { code: 'ACCORD_PLAN_FILE' },
    );
  });

  it('and applies the plan with every harmless edit at once: the fresh plan, as the files say, at apply time', async () => {
    const plan = JSON.parse(saved) as Plan;
    // Requests pointed at what the file does not manage, bodies, order, reasons, verdict, times, counts.
    const office = changeAt(plan, 'ip_restrictions.office');
    office.requests[0]!.path = `/ip_restrictions/${unmanaged['id']}`;
    office.requests[0]!.body!['enforced'] = true;
    office.requests[0]!.body!['metadata'] = JSON.stringify({
      accord: { owner: 'someone-else', key: 'office' },
    });
    office.reasons = ['nothing to see'];
    office.depends_on = ['ip_restrictions.api'];
    delete changeAt(plan, 'ssh_host_certificates.bastion').replace_order;
    const ws = changeAt(plan, `https_edges.${HTTPS_EDGE}.routes.${WS_ROUTE}.websocket_tcp_converter`);
    ws.requests[0]!.path = `/edges/https/${HTTPS_EDGE}/routes/${API_ROUTE}/websocket_tcp_converter`;
    changeAt(plan, `tcp_edges.${TCP_EDGE}.ip_restriction`).requests[0]!.path =
      `/edges/tcp/${otherEdge}/ip_restriction`;
    changeAt(plan, 'ssh_host_certificates.fresh').requests[0]!.body!['valid_until'] = '2086-01-01T00:00:00Z';
    plan.created_at = '2086-01-01T00:00:00.000Z';
    plan.summary.unmanaged = 0;
    plan.warnings = [];
    plan.tool_version = '0.0.0';
    const edited = join(dir, 'edited.json');
    writeFileSync(edited, JSON.stringify(plan));

    const r = await run(['apply', edited, '-f', 'after.yaml', '--auto-approve'], APPLY_NOW);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(
      /^Apply complete: 1 created, 2 patched, 3 put, 1 replaced, 0 deleted, 0 adopted in (\d+ ms|\d+\.\d s)\.$/m,
    );
    const restrictions = await listAll(server.url, KEY, '/ip_restrictions', 'ip_restrictions');
    const mine = restrictions.filter((o) => markerOf(o)?.owner === OWNER);
    expect(mine.map((o) => [markerOf(o)!.key, o['enforced']]).sort()).toEqual([
      ['api', false],
      ['office', false],
    ]);
    // What is not ours is exactly as it was.
    const was = JSON.parse(before) as { lists: Record<string, Obj[]>; modules: Record<string, unknown> };
    expect(restrictions.find((o) => o['id'] === unmanaged['id'])).toEqual(unmanaged);
    expect(restrictions.find((o) => o['id'] === otherOwners['id'])).toEqual(otherOwners);
    const certs = await listAll(server.url, KEY, '/ssh_host_certificates', 'ssh_host_certificates');
    expect(certs.find((o) => o['id'] === theirCert['id'])).toEqual(theirCert);
    for (const path of [
      `/edges/tcp/${otherEdge}/ip_restriction`,
      `/edges/https/${HTTPS_EDGE}/routes/${API_ROUTE}/websocket_tcp_converter`,
    ]) {
      const got = await api('GET', path);
      expect(got.status === 200 ? got.body : got.status, path).toEqual(was.modules[path]);
    }
    // valid_for counts from the plan made at apply time, never from the file's created_at or body.
    const issued = certs.find((o) => markerOf(o)?.owner === OWNER && markerOf(o)?.key === 'fresh')!;
    expect(issued['valid_until']).toBe('2027-05-30T00:00:00Z');

    const again = await run(['plan', '-f', 'after.yaml', '--detailed-exitcode']);
    expect(again.code, again.out).toBe(0);
    // Applied, the plan as saved has nothing left to do: it says so and changes nothing.
    const now = await account();
    const twice = await run(['apply', planFile, '-f', 'after.yaml']);
    expect(twice.code, twice.err).toBe(0);
    expect(twice.out).toContain('No changes: the account already matches this plan (');
    expect(await account()).toBe(now);
  });
});
