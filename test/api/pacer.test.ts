import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { Pacer, type Send } from '../../src/api/pacer.js';
import { Semaphore } from '../../src/api/semaphore.js';
import { RateLimiter } from '../../src/server/guards.js';
import { FakeClock, type Harness, harness, json, KEY, maxInWindow, ORIGIN } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.client.close();
  await h?.agent.close();
  h = undefined;
});

describe('Pacer with a rate limit (sliding log)', () => {
  const times = (sends: Send[]) => sends.map((s) => s.sentAt);

  it('grants N sends per window, in arrival order', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock, rateLimit: { requests: 3, perSeconds: 1 } });
    const sends = await Promise.all(Array.from({ length: 8 }, () => pacer.acquire()));
    expect(times(sends)).toEqual([0, 0, 0, 1000, 1000, 1000, 2000, 2000]);
    expect(sends.map((s) => s.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('slides: a slot frees exactly one window after the send that used it', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock, rateLimit: { requests: 2, perSeconds: 1 } });
    expect((await pacer.acquire()).sentAt).toBe(0);
    clock.t = 600;
    expect((await pacer.acquire()).sentAt).toBe(600);
    clock.t = 700;
    expect(times(await Promise.all([pacer.acquire(), pacer.acquire(), pacer.acquire()]))).toEqual([
      1000, 1600, 2000,
    ]);
  });

  it('adds the safety margin to the window', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock, rateLimit: { requests: 1, perSeconds: 2 }, marginMs: 100 });
    expect(times(await Promise.all([pacer.acquire(), pacer.acquire(), pacer.acquire()]))).toEqual([
      0, 2100, 4200,
    ]);
  });

  it('does not cap sends in flight: the limit is known', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock, rateLimit: { requests: 5, perSeconds: 1 }, inFlightWhileUnknown: 1 });
    expect(times(await Promise.all(Array.from({ length: 5 }, () => pacer.acquire())))).toEqual([
      0, 0, 0, 0, 0,
    ]);
  });
});

describe('Pacer after a 429 without Retry-After (AIMD)', () => {
  it('grows by about one request per second for each second of successes', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock });
    const first = await pacer.acquire();
    pacer.settle(first, 429); // 1 send seen in the last second, halved: one every 2 s
    const slow = await pacer.acquire();
    expect(slow.sentAt).toBe(2000);
    pacer.settle(slow, 200);
    for (let i = 0; i < 8; i++) pacer.settle(await pacer.acquire(), 200);
    // From 0.5/s, nine successes add 1/rate each: between 3 and 5 a second now.
    const a = await pacer.acquire();
    const b = await pacer.acquire();
    expect(b.sentAt - a.sentAt).toBeGreaterThan(1000 / 5);
    expect(b.sentAt - a.sentAt).toBeLessThan(1000 / 3);
  });

  it('never goes below the floor, and a Retry-After still holds every sender', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock });
    for (let i = 0; i < 12; i++) pacer.settle(await pacer.acquire(), 429);
    // At the floor of 0.2 a second: one send every 5 s.
    const a = await pacer.acquire();
    const b = await pacer.acquire();
    expect(b.sentAt - a.sentAt).toBe(5000);
    pacer.settle(b, 429, 30_000);
    expect((await pacer.acquire()).sentAt).toBe(b.sentAt + 30_000);
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

  /** A service allowing 10 requests in any second, answering 429 with Retry-After in whole seconds. */
  function throttlingService(harnessed: Harness): { accepted: number[]; throttled: () => number } {
    const { clock } = harnessed;
    const limiter = new RateLimiter(10, 1);
    const accepted: number[] = [];
    let throttled = 0;
    harnessed.pool
      .intercept({ path: /^\/r\//, method: 'GET' })
      .reply(() => {
        try {
          limiter.take(0, clock.now());
        } catch (err) {
          throttled++;
          const headers = (err as { headers: Record<string, string> }).headers;
          return { statusCode: 429, data: '', responseOptions: { headers } };
        }
        accepted.push(clock.now());
        return { statusCode: 200, data: {}, responseOptions: json };
      })
      .persist();
    return { accepted, throttled: () => throttled };
  }

  for (const parallelism of [undefined, 4, 8]) {
    const turnedAway = parallelism ?? 2;
    it(`learns an unknown limit from one 429 and meets it once (--parallelism ${parallelism ?? 'by default'}: at most ${turnedAway} turned away)`, async () => {
      h = harness({ random: () => 0, ...(parallelism ? { parallelism } : {}) });
      const service = throttlingService(h);
      await Promise.all(Array.from({ length: 200 }, (_, i) => h!.client.get(`/r/${i}`)));
      expect(service.accepted).toHaveLength(200);
      expect(h.client.stats.count('GET', 200)).toBe(200);
      // Without learning, every window would end in turned-away requests; with it, only the first.
      expect(service.throttled()).toBeGreaterThan(0);
      expect(service.throttled()).toBeLessThanOrEqual(turnedAway);
      expect(h.client.stats.count('GET', 429)).toBe(service.throttled());
      // 200 requests at 10 a second: the last goes out in the 20th second, not much later.
      expect(Math.max(...service.accepted)).toBeGreaterThanOrEqual(19_000);
      expect(Math.max(...service.accepted)).toBeLessThan(19 * 1300);
    });
  }
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
