import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { Pacer } from '../../src/api/pacer.js';
import { Semaphore } from '../../src/api/semaphore.js';
import { FakeClock, type Harness, harness, json, KEY, ORIGIN } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.client.close();
  await h?.agent.close();
  h = undefined;
});

/** The largest number of times that fall in any window of `windowMs` (a window is [t, t + windowMs)). */
function maxInWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

describe('Pacer with a rate limit (sliding log)', () => {
  it('grants N sends per window, in arrival order', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock, rateLimit: { requests: 3, perSeconds: 1 } });
    const times = await Promise.all(Array.from({ length: 8 }, () => pacer.acquire()));
    expect(times).toEqual([0, 0, 0, 1000, 1000, 1000, 2000, 2000]);
  });

  it('slides: a slot frees exactly one window after the send that used it', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock, rateLimit: { requests: 2, perSeconds: 1 } });
    expect(await pacer.acquire()).toBe(0);
    clock.t = 600;
    expect(await pacer.acquire()).toBe(600);
    clock.t = 700;
    expect(await Promise.all([pacer.acquire(), pacer.acquire(), pacer.acquire()])).toEqual([
      1000, 1600, 2000,
    ]);
  });

  it('adds the safety margin to the window', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock, rateLimit: { requests: 1, perSeconds: 2 }, marginMs: 100 });
    expect(await Promise.all([pacer.acquire(), pacer.acquire(), pacer.acquire()])).toEqual([0, 2100, 4200]);
  });

  it('holds every sender for a Retry-After', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock, rateLimit: { requests: 10, perSeconds: 1 } });
    await pacer.acquire();
    pacer.onThrottled(0, 5000);
    expect(await pacer.acquire()).toBe(5000);
  });
});

describe('Pacer without a rate limit (AIMD)', () => {
  it('does not pace until a 429, then halves the rate it saw', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock });
    const first = await Promise.all(Array.from({ length: 40 }, () => pacer.acquire()));
    expect(new Set(first)).toEqual(new Set([0]));
    expect(pacer.currentRate).toBe(Number.POSITIVE_INFINITY);
    pacer.onThrottled(0);
    expect(pacer.currentRate).toBe(20);
    // Other requests of the same burst come back throttled too: one decrease per round.
    clock.t = 10;
    pacer.onThrottled(0);
    expect(pacer.currentRate).toBe(20);
    const next = await Promise.all([pacer.acquire(), pacer.acquire(), pacer.acquire()]);
    // The burst's last send was at 0; at 20/s the next goes at 50.
    expect(next).toEqual([50, 100, 150]);
    pacer.onThrottled(100);
    expect(pacer.currentRate).toBe(10);
  });

  it('grows by about one request per second for each second of successes', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock });
    await pacer.acquire();
    pacer.onThrottled(0); // 1 observed -> rate floor of 1/s halved
    expect(pacer.currentRate).toBe(0.5);
    for (let i = 0; i < 10; i++) pacer.onSuccess();
    const grown = pacer.currentRate;
    expect(grown).toBeGreaterThan(3);
    expect(grown).toBeLessThan(5);
    clock.t = 1;
    pacer.onThrottled(clock.now());
    expect(pacer.currentRate).toBeCloseTo(grown / 2);
  });

  it('never goes below the floor and honours Retry-After', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock });
    for (let i = 0; i < 20; i++) {
      clock.t += 1;
      pacer.onThrottled(clock.t);
    }
    expect(pacer.currentRate).toBe(0.2);
    pacer.onThrottled(clock.t, 30_000);
    expect(await pacer.acquire()).toBe(clock.t);
    expect(clock.t).toBeGreaterThanOrEqual(30_020);
  });
});

describe('pacing through the client', () => {
  it('never sends more than N requests in any S seconds', async () => {
    h = harness({ rateLimit: { requests: 5, perSeconds: 1 }, parallelism: 4 });
    const { clock } = h;
    const sent: number[] = [];
    h.pool
      .intercept({ path: /^\/r\//, method: 'GET' })
      .reply(() => {
        sent.push(clock.now());
        return { statusCode: 200, data: {}, responseOptions: json };
      })
      .persist();
    await Promise.all(Array.from({ length: 23 }, (_, i) => h!.client.get(`/r/${i}`)));
    expect(sent).toHaveLength(23);
    expect(maxInWindow(sent, 1000)).toBe(5);
    // 23 requests at 5 per (1 s + 100 ms margin): the last goes out in the fifth window.
    expect(Math.max(...sent)).toBe(4 * 1100);
  });

  it('a large run against a throttling service finishes, and slows down instead of failing', async () => {
    h = harness({ parallelism: 4, random: () => 0 });
    const { clock } = h;
    // A service allowing 10 requests in any second, answering 429 with Retry-After: 1 beyond that.
    const accepted: number[] = [];
    let throttled = 0;
    h.pool
      .intercept({ path: /^\/r\//, method: 'GET' })
      .reply(() => {
        const now = clock.now();
        const recent = accepted.filter((t) => t > now - 1000).length;
        if (recent >= 10) {
          throttled++;
          return { statusCode: 429, data: '', responseOptions: { headers: { 'retry-after': '1' } } };
        }
        accepted.push(now);
        return { statusCode: 200, data: {}, responseOptions: json };
      })
      .persist();
    await Promise.all(Array.from({ length: 200 }, (_, i) => h!.client.get(`/r/${i}`)));
    expect(accepted).toHaveLength(200);
    expect(h.client.stats.count('GET', 200)).toBe(200);
    expect(h.client.pacer.currentRate).toBeLessThan(20);
    // Without slowing down, every request of every burst would be turned away; with AIMD, few are.
    expect(throttled).toBeLessThan(20);
  });
});

describe('bounded concurrency', () => {
  it('Semaphore hands slots over in order and never exceeds its limit', async () => {
    const sem = new Semaphore(2);
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    const order: number[] = [];
    const r1 = await sem.acquire();
    const r2 = await sem.acquire();
    const waiting = [3, 4].map(async (n) => {
      const release = await sem.acquire();
      order.push(n);
      return release;
    });
    await settle();
    expect(order).toEqual([]);
    r1();
    r1(); // a second release of the same slot is ignored
    await settle();
    expect(order).toEqual([3]);
    const r3 = await waiting[0]!;
    r2();
    const r4 = await waiting[1]!;
    expect(order).toEqual([3, 4]);
    r3();
    r4();
    // Every slot is free again: two holders at once, a third waits for one of them.
    const [a] = [await sem.acquire(), await sem.acquire()];
    let third = false;
    void sem.acquire().then(() => {
      third = true;
    });
    await settle();
    expect(third).toBe(false);
    a!();
    await settle();
    expect(third).toBe(true);
  });

  it('the client keeps at most `parallelism` requests in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const pending: Array<() => void> = [];
    const dispatcher = {
      request: async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise<void>((resolve) => pending.push(resolve));
        inFlight--;
        return { statusCode: 200, headers: {}, body: Readable.from([Buffer.from('{}')]) };
      },
      close: async () => {},
    } as unknown as Dispatcher;
    const client = new ApiClient({
      baseUrl: ORIGIN,
      apiKey: KEY,
      parallelism: 3,
      dispatcher,
      clock: new FakeClock(),
    });
    const all = Promise.all(Array.from({ length: 10 }, (_, i) => client.get(`/r/${i}`)));
    let done = 0;
    while (done < 10) {
      await new Promise((r) => setImmediate(r));
      const next = pending.shift();
      if (next) {
        next();
        done++;
      }
    }
    await all;
    expect(peak).toBe(3);
    await client.close();
  });
});
