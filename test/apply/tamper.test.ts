// A saved plan does only what it shows (DESIGN §4): a real plan made by the CLI against the local
// service, edited by hand in every way a build artifact could be, is refused with exit 1 before any
// request, the account byte for byte as it was; the plan as saved still applies afterwards.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { liveDigest } from '../../src/plan/digest.js';
import { changeRequests } from '../../src/plan/requests.js';
import type { Plan, PlanChange } from '../../src/plan/types.js';
import { HTTPS_EDGE, TCP_EDGE, useSeededService, WS_ROUTE } from '../support/server.js';
import { accord, HOST_CA, HOST_KEY, listAll, markerOf, type Obj, OFFICE, VPN } from './helpers.js';

const KEY = 'test-key-apply-tamper-0123456789';
const OWNER = 'tamper';
const API_ROUTE = 'edghtsrt_2demoApi0000000000000000000';

function desired(step: 'before' | 'after'): string {
  const after = step === 'after';
  return [
    'version: 1',
    `owner: ${OWNER}`,
    'ip_restrictions:',
    '  office:',
    '    type: dashboard',
    `    enforced: ${!after}`,
    `    ip_policies: [${OFFICE}]`,
    '  api:',
    '    type: api',
    `    enforced: ${!after}`,
    `    ip_policies: [${OFFICE}]`,
    'ssh_host_certificates:',
    '  bastion:',
    `    ssh_certificate_authority_id: ${HOST_CA}`,
    `    public_key: ${HOST_KEY}`,
    `    principals: [${after ? 'bastion2' : 'bastion'}.example.com]`,
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

describe('accord apply FILE refuses a plan edited by hand', () => {
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-tamper-'));
  const planFile = join(dir, 'plan.json');
  const run = (args: string[]) => accord(server.url, KEY, args);
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
  /** A TCP edge the file does not name, made by hand. */
  let otherEdge: string;
  let saved: string;
  let before: string;

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
    const edge = await api('POST', '/edges/tcp', { hostports: ['1.tcp.ngrok.io:20001'] });
    expect(edge.status).toBe(201);
    otherEdge = String(edge.body!['id']);
    const module = await api('PUT', `/edges/tcp/${otherEdge}/ip_restriction`, {
      enabled: false,
      ip_policy_ids: [OFFICE],
    });
    expect(module.status).toBe(200);
    const planned = await run(['plan', '-f', file('after.yaml', desired('after')), '--out', planFile]);
    expect(planned.code, planned.err).toBe(0);
    saved = readFileSync(planFile, 'utf8');
    before = await account();
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

  /**
   * Applies the saved plan after `edit`; expects exit 1, ACCORD_PLAN_MISMATCH with `message`, nothing
   * applied and an untouched account.
   */
  const refused = async (edit: (plan: Plan) => void, message: string | RegExp) => {
    const plan = JSON.parse(saved) as Plan;
    edit(plan);
    const tampered = join(dir, 'tampered.json');
    writeFileSync(tampered, JSON.stringify(plan, null, 2));
    // With --json: the code says what kind of refusal it is, the paragraph on stderr which check refused.
    const r = await run(['apply', tampered, '--json']);
    expect(r.code, r.out + r.err).toBe(1);
    expect(JSON.parse(r.out)).toEqual({
      error: { code: 'ACCORD_PLAN_MISMATCH', message: expect.any(String) },
    });
    if (typeof message === 'string') expect(r.err).toContain(message);
    else expect(r.err).toMatch(message);
    expect(r.err).toContain('make the plan again with accord plan --out');
    expect(await account()).toBe(before);
  };

  it('shows the changes the tampering below starts from', () => {
    const plan = JSON.parse(saved) as Plan;
    expect(plan.changes.filter((c) => c.action !== 'no-op').map((c) => [c.address, c.action])).toEqual([
      ['ip_restrictions.api', 'patch'],
      ['ip_restrictions.office', 'patch'],
      ['ssh_host_certificates.bastion', 'replace'],
      [`tcp_edges.${TCP_EDGE}.ip_restriction`, 'put'],
      [`https_edges.${HTTPS_EDGE}.routes.${WS_ROUTE}.websocket_tcp_converter`, 'put'],
    ]);
  });

  it('a request path to an unmanaged object', async () => {
    const office = () => changeAt(JSON.parse(saved) as Plan, 'ip_restrictions.office');
    await refused((p) => {
      changeAt(p, 'ip_restrictions.office').requests[0]!.path = `/ip_restrictions/${unmanaged['id']}`;
    }, `tampered.json does not match what it shows at ip_restrictions.office (request path /ip_restrictions/${unmanaged['id']}, expected /ip_restrictions/${office().id})`);
    // The path, id and live_digest all made to agree on the unmanaged object: its marker refuses it.
    await refused((p) => {
      const c = changeAt(p, 'ip_restrictions.office');
      c.id = String(unmanaged['id']);
      c.live_digest = liveDigest(unmanaged);
      c.requests[0]!.path = `/ip_restrictions/${unmanaged['id']}`;
    }, `at ip_restrictions.office (${unmanaged['id']} is not managed by accord (it has no marker), and the change does not show "adopts unmanaged ${unmanaged['id']} named by id:")`);
  });

  it("a request path to another owner's object", async () => {
    await refused((p) => {
      const c = changeAt(p, 'ip_restrictions.office');
      c.id = String(otherOwners['id']);
      c.live_digest = liveDigest(otherOwners);
      c.requests[0]!.path = `/ip_restrictions/${otherOwners['id']}`;
    }, `at ip_restrictions.office (${otherOwners['id']} belongs to owner "someone-else"`);
    // An added change that deletes it.
    await refused((p) => {
      const id = String(otherOwners['id']);
      p.changes.push({
        address: 'ip_restrictions.office-old',
        kind: 'ip_restriction',
        key: 'office-old',
        id,
        action: 'delete',
        reasons: ['not in the file'],
        before: { type: 'endpoints', enforced: false, ip_policies: [VPN], description: '' },
        after: null,
        changed_fields: [],
        drift: {},
        live_digest: liveDigest(otherOwners),
        depends_on: [],
        requests: [{ method: 'DELETE', path: `/ip_restrictions/${id}` }],
      });
      p.summary.delete++;
    }, `at ip_restrictions.office-old (${otherOwners['id']} belongs to owner "someone-else")`);
  });

  it('a module path of another route', async () => {
    const address = `https_edges.${HTTPS_EDGE}.routes.${WS_ROUTE}.websocket_tcp_converter`;
    const other = `/edges/https/${HTTPS_EDGE}/routes/${API_ROUTE}/websocket_tcp_converter`;
    await refused((p) => {
      changeAt(p, address).requests[0]!.path = other;
    }, `at ${address} (request path ${other}, expected /edges/https/${HTTPS_EDGE}/routes/${WS_ROUTE}/websocket_tcp_converter)`);
  });

  it('a module path of another edge', async () => {
    const address = `tcp_edges.${TCP_EDGE}.ip_restriction`;
    const other = `/edges/tcp/${otherEdge}/ip_restriction`;
    await refused((p) => {
      changeAt(p, address).requests[0]!.path = other;
    }, `at ${address} (request path ${other}, expected /edges/tcp/${TCP_EDGE}/ip_restriction)`);
    // The id made to agree with the path: the address still names the first edge.
    await refused((p) => {
      const c = changeAt(p, address);
      c.id = otherEdge;
      c.requests[0]!.path = other;
    }, `at ${address} (id ${otherEdge}, expected ${TCP_EDGE})`);
  });

  it('a changed body', async () => {
    await refused((p) => {
      changeAt(p, 'ip_restrictions.office').requests[0]!.body!['enforced'] = true;
    }, /at ip_restrictions\.office \(PATCH \/ip_restrictions\/ipx_\w+ body enforced is true, expected false\)/);
    await refused((p) => {
      changeAt(p, `tcp_edges.${TCP_EDGE}.ip_restriction`).requests[0]!.body!['enabled'] = false;
    }, `body enabled is false, expected true`);
    // A body that agrees with an edited `after` still has to agree with the shown fields' marker.
    await refused((p) => {
      const c = changeAt(p, 'ip_restrictions.office');
      c.requests[0]!.body!['metadata'] = JSON.stringify({ accord: { owner: 'someone-else', key: 'office' } });
    }, /at ip_restrictions\.office \(PATCH \/ip_restrictions\/ipx_\w+ body metadata is /);
  });

  it('an added change', async () => {
    // A patch of the unmanaged object, made consistent in every field a file can hold.
    await refused((p) => {
      const office = changeAt(p, 'ip_restrictions.office');
      const id = String(unmanaged['id']);
      const added: PlanChange = {
        ...structuredClone(office),
        address: 'ip_restrictions.agent',
        key: 'agent',
        id,
        after: { ...office.after, type: 'agent', marker: `${OWNER}/agent` },
        live_digest: liveDigest(unmanaged),
      };
      added.requests = changeRequests(added, { owner: OWNER, createdAt: new Date(p.created_at) });
      p.changes.push(added);
      p.summary.patch++;
    }, `at ip_restrictions.agent (${unmanaged['id']} is not managed by accord (it has no marker)`);
    // A copy under another key still names the old key in its after values.
    await refused((p) => {
      const office = changeAt(p, 'ip_restrictions.office');
      p.changes.push({ ...structuredClone(office), address: 'ip_restrictions.office2', key: 'office2' });
      p.summary.patch++;
    }, 'at ip_restrictions.office2 (after.marker is "tamper/office", expected "tamper/office2")');
    // A create consistent in itself, that the summary reviewers read does not count.
    await refused((p) => {
      const office = changeAt(p, 'ip_restrictions.office');
      const extra: PlanChange = {
        ...structuredClone(office),
        address: 'ip_restrictions.extra',
        key: 'extra',
        id: null,
        action: 'create',
        before: null,
        after: { ...office.after, type: 'agent', marker: `${OWNER}/extra` },
        live_digest: null,
      };
      extra.requests = changeRequests(extra, { owner: p.owner, createdAt: new Date(p.created_at) });
      p.changes.push(extra);
    }, 'its summary counts 0 create but it holds 1');
  });

  it('an added or removed depends_on', async () => {
    await refused((p) => {
      changeAt(p, 'ip_restrictions.office').depends_on = ['ip_restrictions.api'];
    }, 'at ip_restrictions.office (depends_on [ip_restrictions.api], expected [])');
  });

  it('a changed replace_order', async () => {
    await refused((p) => {
      delete changeAt(p, 'ssh_host_certificates.bastion').replace_order;
    }, 'at ssh_host_certificates.bastion (replace_order (none), expected create_before_delete)');
  });

  it("an id swapped with another change's", async () => {
    const plan = JSON.parse(saved) as Plan;
    const [officeId, apiId] = [
      changeAt(plan, 'ip_restrictions.office').id,
      changeAt(plan, 'ip_restrictions.api').id,
    ];
    await refused((p) => {
      changeAt(p, 'ip_restrictions.office').id = apiId;
      changeAt(p, 'ip_restrictions.api').id = officeId;
    }, `at ip_restrictions.api (request path /ip_restrictions/${apiId}, expected /ip_restrictions/${officeId})`);
    // Swapped with their paths and digests too: each object's marker names the other key.
    await refused((p) => {
      const office = changeAt(p, 'ip_restrictions.office');
      const apiChange = changeAt(p, 'ip_restrictions.api');
      [office.id, apiChange.id] = [apiChange.id, office.id];
      [office.live_digest, apiChange.live_digest] = [apiChange.live_digest, office.live_digest];
      [office.requests[0]!.path, apiChange.requests[0]!.path] = [
        apiChange.requests[0]!.path,
        office.requests[0]!.path,
      ];
    }, `at ip_restrictions.api (${officeId} is this owner's office, not api, and the change does not show "renamed from office")`);
  });

  it('a plan saved by an earlier version', async () => {
    const old = JSON.parse(saved) as Omit<Plan, 'format_version'> & { format_version: number };
    for (const version of [1, 2]) {
      old.format_version = version;
      writeFileSync(join(dir, 'old.json'), JSON.stringify(old));
      const r = await run(['apply', join(dir, 'old.json'), '--json']);
      expect(r.code).toBe(1);
      expect(JSON.parse(r.out).error.code).toBe('ACCORD_PLAN_FILE');
      expect(r.err).toContain(
        `old.json was saved by an earlier accord (plan format ${version}), which could delete an IP restriction before creating its successor and whose requests this version does not apply unchecked; make the plan again with accord plan --out FILE.`,
      );
    }
    expect(await account()).toBe(before);
  });

  it('and applies the plan as saved, changing exactly what it shows', async () => {
    const r = await run(['apply', planFile]);
    expect(r.code, r.out + r.err).toBe(0);
    const restrictions = await listAll(server.url, KEY, '/ip_restrictions', 'ip_restrictions');
    const ours = restrictions.filter((o) => markerOf(o)?.owner === OWNER);
    expect(ours.map((o) => [markerOf(o)!.key, o['enforced']]).sort()).toEqual([
      ['api', false],
      ['office', false],
    ]);
    // What is not ours is exactly as it was.
    expect(restrictions.find((o) => o['id'] === unmanaged['id'])).toEqual(unmanaged);
    expect(restrictions.find((o) => o['id'] === otherOwners['id'])).toEqual(otherOwners);
    const again = await run(['plan', '-f', join(dir, 'after.yaml'), '--detailed-exitcode']);
    expect(again.code, again.out).toBe(0);
  });
});
