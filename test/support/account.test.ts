// The in-memory account answers as accord serve does: the same requests get the same status and
// error_code from both (so the fake cannot drift from the service's schemas), and the live reader,
// the planner and the applier converge against it.
import { describe, expect, it } from 'vitest';
import { readLiveState } from '../../src/account/read.js';
import { ApiClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/errors.js';
import { applyPlan } from '../../src/apply/executor.js';
import { plan } from '../../src/cli/worded-plan.js';
import type { PlanChange } from '../../src/plan/types.js';
import { HOST_KEY } from '../apply/helpers.js';
import { cert, desiredState, ipr, NOW, OPTIONS, tcpModule, wsModule } from '../plan/fixtures.js';
import { FakeAccount } from './account.js';
import { HOST_CA, HTTPS_EDGE, OFFICE, TCP_EDGE, useSeededService, VPN, WS_ROUTE } from './server.js';

const KEY = 'test-key-fake-account-0123456789';

type Call = [method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: Record<string, unknown>];

/** What a call came to: `ok`, or the status and the service's error_code of its ApiError. */
async function outcome(client: Pick<ApiClient, 'post' | 'patch' | 'put' | 'delete'>, [m, path, body]: Call) {
  try {
    if (m === 'POST') await client.post(path, body);
    else if (m === 'PATCH') await client.patch(path, body);
    else if (m === 'PUT') await client.put(path, body);
    else await client.delete(path);
    return 'ok';
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return `${err.status} ${err.errorCode}`;
  }
}

describe('the in-memory account', () => {
  const server = useSeededService(KEY);

  it('answers every request as accord serve does', async () => {
    const iprBody = { type: 'agent', enforced: true, ip_policy_ids: [OFFICE] };
    const calls: Call[] = [
      ['POST', '/ip_restrictions', iprBody],
      ['POST', '/ip_restrictions', { ...iprBody, ip_policy_ids: [VPN] }], // one per type
      ['POST', '/ip_restrictions', { ...iprBody, type: 'api', priority: 1 }], // unknown field
      ['POST', '/ip_restrictions', { type: 'api' }], // ip_policy_ids missing
      ['POST', '/ip_restrictions', { ...iprBody, type: 'api', ip_policy_ids: ['ipp_short'] }],
      ['POST', '/ip_restrictions', { ...iprBody, type: 'api', ip_policy_ids: [OFFICE, OFFICE] }],
      ['POST', '/ip_restrictions', { ...iprBody, type: 'api', metadata: 'x'.repeat(4097) }],
      ['POST', '/ip_restrictions', { ...iprBody, type: 'nope' }],
      ['POST', '/ssh_host_certificates', { ssh_certificate_authority_id: HOST_CA, public_key: HOST_KEY }],
      ['POST', '/ssh_host_certificates', { public_key: HOST_KEY }],
      [
        'POST',
        '/ssh_host_certificates',
        { ssh_certificate_authority_id: HOST_CA, public_key: HOST_KEY, valid_until: 'soon' },
      ],
      ['POST', '/certificate_authorities', { description: 'no PEM' }],
      ['PATCH', '/ip_restrictions/ipx_00000000000000000000000000000', { enforced: false }],
      ['DELETE', '/ssh_host_certificates/shcrt_000000000000000000000000000'],
      ['PUT', `/edges/tcp/${TCP_EDGE}/ip_restriction`, { enabled: true, ip_policy_ids: [OFFICE] }],
      ['PUT', `/edges/tcp/${TCP_EDGE}/ip_restriction`, { enabled: true }],
      ['PUT', `/edges/https/${HTTPS_EDGE}/routes/${WS_ROUTE}/websocket_tcp_converter`, { enabled: false }],
      ['PUT', `/edges/https/${HTTPS_EDGE}/routes/${WS_ROUTE}/websocket_tcp_converter`, { on: true }],
      ['DELETE', `/edges/tcp/${TCP_EDGE}/ip_restriction`],
    ];
    const real = new ApiClient({ baseUrl: server.url, apiKey: KEY });
    const fake = new FakeAccount(
      NOW,
      {},
      {
        ipPolicies: [OFFICE, VPN],
        sshCertificateAuthorities: [HOST_CA],
        tcpEdges: [TCP_EDGE],
        httpsRoutes: [[HTTPS_EDGE, WS_ROUTE]],
      },
    ).client();
    try {
      for (const call of calls) {
        expect(await outcome(fake, call), `${call[0]} ${call[1]} ${JSON.stringify(call[2])}`).toBe(
          await outcome(real, call),
        );
      }
    } finally {
      await real.close();
    }
    // Not all of them succeeded: the refusals above are what the comparison is about.
    expect(await outcome(fake, calls[1]!)).toBe('409 ERR_NGROK_1802');
  });

  it('runs the live reader, the planner and the applier to a plan without changes', async () => {
    const account = new FakeAccount(NOW);
    const client = account.client();
    const desired = desiredState({
      ip_restrictions: [ipr('office', { type: 'dashboard' })],
      ssh_host_certificates: [cert('web', { principals: ['web.example.com'] })],
      tcp_edge_ip_restrictions: [tcpModule('edgtcp_1')],
      websocket_tcp_converters: [wsModule('edghts_1', 'edghtsrt_1', { enabled: false })],
    });
    const first = plan(desired, await readLiveState(client, desired), NOW, OPTIONS);
    expect(first.changes.filter((c) => c.action !== 'no-op')).toHaveLength(4);
    const result = await applyPlan(first, client, { parallelism: 2 });
    expect(result.changes.map((c) => c.status)).toEqual(['done', 'done', 'done', 'done']);
    const again = plan(desired, await readLiveState(client, desired), NOW, OPTIONS);
    expect(again.changes.map((c) => c.action)).toEqual(['no-op', 'no-op', 'no-op', 'no-op']);
  });

  it('runs a change only once every change it depends on is done, and refuses a plan that waits in a cycle', () => {
    const desired = desiredState({
      ip_restrictions: [ipr('office', { type: 'dashboard' }), ipr('vpn', { type: 'api' })],
    });
    const account = new FakeAccount(NOW);
    const full = plan(desired, account.live(desired), NOW, OPTIONS);
    const [office, vpn] = full.changes as [PlanChange, PlanChange];
    const last = (n: number) => n - 1;
    // Without dependencies, always picking the last runnable change sends vpn's request first...
    expect(new FakeAccount(NOW).execute(full, last).map((r) => r.body?.['type'])).toEqual([
      'api',
      'dashboard',
    ]);
    // ...and office's first when vpn waits for it.
    const ordered = { ...full, changes: [office, { ...vpn, depends_on: [office.address] }] };
    expect(new FakeAccount(NOW).execute(ordered, last).map((r) => r.body?.['type'])).toEqual([
      'dashboard',
      'api',
    ]);
    const cycle = {
      ...full,
      changes: [
        { ...office, depends_on: [vpn.address] },
        { ...vpn, depends_on: [office.address] },
      ],
    };
    expect(() => new FakeAccount(NOW).execute(cycle)).toThrow(
      'plan deadlocks: ip_restrictions.office, ip_restrictions.vpn',
    );
  });
});
