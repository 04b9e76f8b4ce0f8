import { describe, expect, it } from 'vitest';
import { startApi } from './helpers.js';

describe('--rate-limit', () => {
  it('answers 429 with Retry-After past N requests in a rolling window, per key', async () => {
    let ms = Date.parse('2026-06-01T00:00:00Z');
    const api = await startApi({
      apiKeys: ['test-key', 'other'],
      rateLimit: { requests: 3, perSeconds: 60 },
      now: () => new Date(ms),
    });
    try {
      for (let i = 0; i < 3; i++) {
        expect((await api.call('GET', '/ip_policies')).status).toBe(200);
        ms += 10_000;
      }
      const limited = await api.call('GET', '/ip_policies');
      expect(limited.status).toBe(429);
      expect(limited.body.error_code).toBe('ERR_RATE_LIMITED');
      // The oldest request (at 0s) leaves the window at 60s; it is now 30s.
      expect(limited.headers.get('retry-after')).toBe('30');
      expect(
        (await api.call('GET', '/ip_policies', undefined, { authorization: 'Bearer other' })).status,
      ).toBe(200);
      ms += 30_000;
      expect((await api.call('GET', '/ip_policies')).status).toBe(200);
      expect((await api.call('GET', '/ip_policies')).status).toBe(429);
    } finally {
      await api.server.close();
    }
  });
});

describe('--latency', () => {
  it('delays every request: no answer before the wait of --latency ms is over', async () => {
    const waits: { ms: number; over: () => void }[] = [];
    const sleep = (ms: number) => new Promise<void>((over) => waits.push({ ms, over }));
    const api = await startApi({ latencyMs: 60, sleep });
    try {
      let answered = false;
      const call = api.call('GET', '/ip_policies').then((res) => {
        answered = true;
        return res;
      });
      // Bounded polling for the request to reach the wait; no real time is waited for.
      for (let i = 0; i < 1000 && waits.length === 0; i++) await new Promise((r) => setTimeout(r, 1));
      expect(waits.map((w) => w.ms)).toEqual([60]);
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      expect(answered).toBe(false);
      waits[0]?.over();
      expect((await call).status).toBe(200);
    } finally {
      await api.server.close();
    }
  });
});

describe('--fault-rate', () => {
  it('injects 500, 503, dropped connections and failures after a committed create, reproducibly', async () => {
    const outcomes = async () => {
      const api = await startApi({ faultRate: 0.5, faultSeed: 42, seed: undefined });
      const seen: string[] = [];
      try {
        for (let i = 0; i < 60; i++) {
          try {
            const res = await api.call('POST', '/ip_policies', { description: `p${i}` });
            seen.push(String(res.status));
          } catch {
            seen.push('dropped');
          }
        }
        const faultless = await countIpPolicies(api.server.url);
        return { seen, stored: faultless };
      } finally {
        await api.server.close();
      }
    };
    const first = await outcomes();
    const second = await outcomes();
    expect(second.seen).toEqual(first.seen);
    for (const outcome of ['201', '500', '503', 'dropped']) expect(first.seen).toContain(outcome);
    const created = first.seen.filter((s) => s === '201').length;
    // Some failed POSTs did commit: more objects exist than creates that answered 201.
    expect(first.stored).toBeGreaterThan(created);
  });
});

/** Counts IP policies, retrying the GETs that the fault injector fails. */
async function countIpPolicies(url: string): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      const res = await fetch(`${url}/ip_policies`, {
        headers: { authorization: 'Bearer test-key', 'service-version': '2' },
      });
      if (res.status === 200) return ((await res.json()) as { ip_policies: unknown[] }).ip_policies.length;
    } catch {
      // dropped connection: try again
    }
  }
  throw new Error('no successful list in 200 attempts');
}
