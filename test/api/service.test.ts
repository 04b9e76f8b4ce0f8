// The client against the real local service (`accord serve` in-process, real HTTP on port 0).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiClientOptions } from '../../src/api/client.js';
import { isOutcomeUnknown } from '../../src/api/errors.js';
import { type RunningServer, type ServerOptions, startServer } from '../../src/server/index.js';

const KEY = 'svc_TestKey_0123456789abcdef';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const dir = mkdtempSync(join(tmpdir(), 'accord-client-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fixed IP policy ID: `ipp_` and 27 base62 characters. */
function policyId(n: number): string {
  let body = '';
  for (let v = n; body.length < 6; v = Math.floor(v / 62)) body = ALPHABET[v % 62] + body;
  return `ipp_seed${body.padStart(23, '0')}`;
}

/** A seed file with `n` IP policies; returns its path and the IDs. */
function seedFile(n: number): { file: string; ids: string[] } {
  const ids = Array.from({ length: n }, (_, i) => policyId(i));
  const file = join(dir, `seed-${n}.yaml`);
  writeFileSync(
    file,
    `ip_policies:\n${ids.map((id) => `  - id: ${id}\n`).join('')}${n === 0 ? '  []\n' : ''}`,
  );
  return { file, ids };
}

const servers: RunningServer[] = [];
const clients: ApiClient[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.close()));
});

async function serve(opts: ServerOptions): Promise<RunningServer> {
  const server = await startServer({ port: 0, apiKeys: [KEY], ...opts });
  servers.push(server);
  return server;
}

function connect(server: RunningServer, opts: Partial<ApiClientOptions> = {}): ApiClient {
  // Short backoff: the service's faults are random, not overload, so waiting long proves nothing.
  const client = new ApiClient({
    baseUrl: server.url,
    apiKey: KEY,
    retryPolicy: { baseDelayMs: 5, maxDelayMs: 50 },
    ...opts,
  });
  clients.push(client);
  return client;
}

async function listIds(client: ApiClient, path = '/ip_policies', key = 'ip_policies'): Promise<string[]> {
  const ids: string[] = [];
  for await (const item of client.listAll<{ id: string }>(path, key)) ids.push(item.id);
  return ids;
}

describe('listing', () => {
  for (const n of [0, 1, 100, 101, 250, 1000]) {
    it(`lists ${n} resources with exactly max(1, ceil(${n}/100)) requests`, async () => {
      const { file, ids } = seedFile(n);
      const server = await serve({ seed: file });
      const client = connect(server);
      const listed = await listIds(client);
      expect(listed.sort()).toEqual([...ids].sort());
      expect(client.stats.count('GET')).toBe(Math.max(1, Math.ceil(n / 100)));
      expect(client.stats.retries).toBe(0);
    });
  }
});

describe('against faults (30%) and a rate limit', () => {
  const limit = { requests: 50, perSeconds: 1 };
  let seeded: { file: string; ids: string[] };
  beforeAll(() => {
    seeded = seedFile(1000);
  });

  it('listing 1,000 resources returns each exactly once, every time', async () => {
    for (const faultSeed of [1, 2, 3]) {
      const server = await serve({ seed: seeded.file, faultRate: 0.3, faultSeed, rateLimit: limit });
      const client = connect(server, { rateLimit: limit });
      const listed = await listIds(client);
      expect(listed).toHaveLength(1000);
      expect(new Set(listed)).toEqual(new Set(seeded.ids));
      expect(client.stats.retries).toBeGreaterThan(0);
      expect(client.stats.count('GET', 429)).toBe(0);
    }
  });

  it('every idempotent call eventually succeeds and no 429 reaches the caller', async () => {
    // Resources to work on are made on the same data file before faults are switched on.
    const dataFile = join(dir, 'idempotent.db');
    const setup = await serve({
      dataFile,
      seed: new URL('../../examples/seed.yaml', import.meta.url).pathname,
    });
    const setupClient = connect(setup);
    const office = 'ipp_2demoOffice0000000000000000';
    const vpn = 'ipp_2demoVpn0000000000000000000';
    const restriction = await setupClient.post<{ id: string }>('/ip_restrictions', {
      type: 'api',
      enforced: false,
      ip_policy_ids: [office],
    });
    const doomed: string[] = [];
    for (let i = 0; i < 12; i++) doomed.push((await setupClient.post<{ id: string }>('/ip_policies', {})).id);
    await setupClient.close();
    await setup.close();
    servers.splice(servers.indexOf(setup), 1);

    const server = await serve({ dataFile, faultRate: 0.3, faultSeed: 7, rateLimit: limit });
    const client = connect(server, { rateLimit: limit, parallelism: 4 });
    // The send times the pacer grants, in order: what accord promises about --rate-limit.
    const sends: number[] = [];
    const acquire = client.pacer.acquire.bind(client.pacer);
    client.pacer.acquire = async () => {
      const send = await acquire();
      sends.push(send.sentAt);
      return send;
    };
    const tcp = '/edges/tcp/edgtcp_2demoDb00000000000000000000/ip_restriction';
    const ws =
      '/edges/https/edghts_2demoWeb0000000000000000000/routes/edghtsrt_2demoWebSocket0000000000000/websocket_tcp_converter';
    const calls: Array<() => Promise<unknown>> = [];
    // 60 calls and their retries: more than the 50 a second the service allows.
    for (let i = 0; i < 12; i++) {
      calls.push(() => client.put(tcp, { enabled: true, ip_policy_ids: [office, vpn] }));
      calls.push(() =>
        client.patch(`/ip_restrictions/${restriction.id}`, { description: 'patched', enforced: true }),
      );
      calls.push(() => client.get(`/ip_restrictions/${restriction.id}`));
      calls.push(() => client.put(ws, { enabled: false }));
      calls.push(() => client.delete(`/ip_policies/${doomed[i]}`));
    }
    const results = await Promise.allSettled(calls.map((call) => call()));
    const failures = results.filter((r) => r.status === 'rejected');
    expect(failures).toEqual([]);
    expect(client.stats.retries).toBeGreaterThan(10);
    // The caller never sees a 429 (no failures above). The service counts arrival times and may still
    // answer one when a request is held up in transit on a busy machine (the client retries it); what
    // the client itself guarantees is that it never sends more than the limit in any window.
    expect(sends.length).toBe(client.stats.count());
    for (let i = limit.requests; i < sends.length; i++) {
      expect(sends[i]! - sends[i - limit.requests]!).toBeGreaterThanOrEqual(limit.perSeconds * 1000);
    }

    expect(await client.get(tcp)).toMatchObject({ enabled: true });
    expect(await client.get(ws)).toEqual({ enabled: false });
    expect(await client.get(`/ip_restrictions/${restriction.id}`)).toMatchObject({
      description: 'patched',
      enforced: true,
    });
    for (const id of doomed) expect(await client.getOptional(`/ip_policies/${id}`)).toBeUndefined();
  });

  it('a POST is sent once: a failure either surely did nothing or is marked outcome-unknown', async () => {
    const server = await serve({ faultRate: 0.5, faultSeed: 11 });
    const client = connect(server);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        client.post<{ id: string }>('/ip_policies', { description: `p${i}` }),
      ),
    );
    expect(client.stats.count('POST')).toBe(30);
    const created = outcomes.filter((o) => o.status === 'fulfilled').length;
    for (const o of outcomes) if (o.status === 'rejected') expect(isOutcomeUnknown(o.reason)).toBe(true);
    expect(created).toBeLessThan(30);
    // What exists is what the applier would find by listing: no description twice.
    const listed: string[] = [];
    for await (const p of client.listAll<{ description?: string }>('/ip_policies', 'ip_policies')) {
      listed.push(p.description ?? '');
    }
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed.length).toBeGreaterThanOrEqual(created);
  });

  it('without --rate-limit, a run against a throttling service slows down and finishes', async () => {
    const server = await serve({ seed: seeded.file, rateLimit: { requests: 20, perSeconds: 1 } });
    const client = connect(server, { parallelism: 4 });
    const ids = seeded.ids.slice(0, 60);
    const got = await Promise.all(ids.map((id) => client.get<{ id: string }>(`/ip_policies/${id}`)));
    expect(got.map((p) => p.id)).toEqual(ids);
    const throttled = client.stats.count('GET', 429);
    expect(throttled).toBeGreaterThan(0);
    // The first 429 teaches the pacer the service's window, and its Retry-After holds every sender,
    // so few requests bounce.
    expect(throttled).toBeLessThan(20);
  });
});
