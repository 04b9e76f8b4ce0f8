// The pacer learning a service's unknown rate limit from its first 429, on virtual time against the
// service's own limiter (a sliding window that answers 429 with Retry-After in whole seconds).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Pacer, type PacerOptions, type Send } from '../../src/api/pacer.js';
import { ServiceError } from '../../src/server/errors.js';
import { RateLimiter, seededRandom } from '../../src/server/guards.js';
import { FakeClock, maxInWindow } from './helpers.js';

interface Service {
  requests: number;
  perSeconds: number;
}

interface Run {
  /** Server arrival times of the requests it let through. */
  accepted: number[];
  /** For each 429: how many sends had been granted before it, and before the first 429 came back. */
  throttled: Array<{ index: number; edge: number }>;
  /** Virtual time when the last answer came back. */
  endedAt: number;
}

/**
 * `total` requests through `workers` loops (the client's --parallelism) against a service allowing
 * `service.requests` in any `service.perSeconds`; each way takes `latencyMs`. A throttled request is
 * tried again, as the client does.
 */
async function simulate(
  service: Service,
  total: number,
  workers: number,
  latencyMs: number | (() => number),
  options: Omit<PacerOptions, 'clock'> = {},
  earlier: number[] = [],
): Promise<Run> {
  const clock = new FakeClock();
  // Requests of an earlier run that the service still counts, at times before 0.
  clock.t = Math.min(0, ...earlier);
  const limiter = new RateLimiter(service.requests, service.perSeconds);
  for (const t of [...earlier].sort((a, b) => a - b)) limiter.take(0, t);
  clock.t = 0;
  const pacer = new Pacer({ clock, marginMs: 100, ...options });
  const accepted: number[] = [];
  const throttled: Run['throttled'] = [];
  let granted = 0;
  let edge: number | undefined;
  let next = 0;
  const attempt = async (): Promise<boolean> => {
    const send: Send = await pacer.acquire();
    const index = granted++;
    await clock.sleep(typeof latencyMs === 'number' ? latencyMs : latencyMs());
    let retryAfter: number | undefined;
    try {
      limiter.take(0, clock.now());
      accepted.push(clock.now());
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      retryAfter = Number(err.headers['retry-after']) * 1000;
    }
    await clock.sleep(typeof latencyMs === 'number' ? latencyMs : latencyMs());
    if (retryAfter === undefined) {
      pacer.settle(send, 200);
      return true;
    }
    edge ??= granted;
    throttled.push({ index, edge });
    pacer.settle(send, 429, retryAfter);
    return false;
  };
  const worker = async () => {
    while (next < total) {
      next++;
      while (!(await attempt())) {}
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return { accepted, throttled, endedAt: clock.now() };
}

async function grantsAt(pacer: Pacer, clock: FakeClock, at: number[]): Promise<Send[]> {
  const sends: Send[] = [];
  for (const t of at) {
    clock.t = t;
    sends.push(await pacer.acquire());
  }
  return sends;
}

describe('learning an unknown limit from the first 429', () => {
  it('learns the budget and the window from the burst before it', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock, marginMs: 100 });
    const sends = await grantsAt(pacer, clock, [0, 10, 20, 30, 40, 50]);
    for (const s of sends.slice(0, 5)) pacer.settle(s, 200);
    clock.t = 60;
    // The window holds the 5 sends let through; the first of them leaves it 1 s from now at the latest.
    pacer.settle(sends[5]!, 429, 1000);
    const next = await Promise.all(Array.from({ length: 6 }, () => pacer.acquire()));
    // Window 60 + 1000 ms after the first send, plus the margin: each slot of the burst frees in turn.
    expect(next.map((s) => s.sentAt)).toEqual([1160, 1170, 1180, 1190, 1200, 2320]);
  });

  it('counts a send under way at the 429 until it comes back, and its 429 is the same edge', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock, marginMs: 0 });
    const sends = await grantsAt(pacer, clock, [0, 0, 0, 100, 100]);
    // Answered 100 ms after they were sent: the learned window's margin.
    for (const s of sends.slice(0, 3)) pacer.settle(s, 200);
    clock.t = 150;
    pacer.settle(sends[3]!, 429, 2000);
    // The other send of that moment comes back turned away too: it frees its slot, learns nothing new.
    clock.t = 160;
    pacer.settle(sends[4]!, 429, 2000);
    const next = await Promise.all(Array.from({ length: 4 }, () => pacer.acquire()));
    // Learned: 3 sends in 150 + 2000 ms, plus 100 ms; the second 429 holds everyone until 2160.
    expect(next.map((s) => s.sentAt)).toEqual([2250, 2250, 2250, 4500]);
  });

  it('learns again, never faster, after a 429 under the learned window', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock, marginMs: 0 });
    const sends = await grantsAt(pacer, clock, [0, 0, 0, 0, 10]);
    for (const s of sends.slice(0, 4)) pacer.settle(s, 200);
    clock.t = 20;
    // Learned: 4 sends in 1020 ms, plus the slowest answer (10 ms).
    pacer.settle(sends[4]!, 429, 1000);
    const second = await Promise.all(Array.from({ length: 4 }, () => pacer.acquire()));
    expect(second.map((s) => s.sentAt)).toEqual([1030, 1030, 1030, 1030]);
    for (const s of second.slice(0, 3)) pacer.settle(s, 200);
    // The service (holding something else too) turns the fourth away: 3 sends it holds, and a slot
    // frees 1 s from now.
    clock.t = 1040;
    pacer.settle(second[3]!, 429, 1000);
    const third = await Promise.all(Array.from({ length: 4 }, () => pacer.acquire()));
    // Now 3 sends in at least the old 1020 ms: they left at 1030, so the window ends 1030 + 1020.
    expect(third.map((s) => s.sentAt)).toEqual([2050, 2050, 2050, 3070]);
  });

  it('falls back to AIMD for a 429 without Retry-After', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock });
    const burst = await Promise.all(Array.from({ length: 40 }, () => pacer.acquire()));
    expect(new Set(burst.map((s) => s.sentAt))).toEqual(new Set([0]));
    for (const s of burst.slice(0, 38)) pacer.settle(s, 200);
    // 40 sends in the last second, halved: 20 a second. The other 429 of that round does not halve again.
    pacer.settle(burst[38]!, 429);
    clock.t = 10;
    pacer.settle(burst[39]!, 429);
    const next = await Promise.all([pacer.acquire(), pacer.acquire(), pacer.acquire()]);
    expect(next.map((s) => s.sentAt)).toEqual([50, 100, 150]);
    // A 429 of this round halves it again: 10 a second.
    clock.t = 150;
    pacer.settle(next[0]!, 429);
    const slower = await Promise.all([pacer.acquire(), pacer.acquire()]);
    expect(slower.map((s) => s.sentAt)).toEqual([250, 350]);
  });

  it('starts over after a 429 that finds nothing let through (an earlier run used the window)', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock, marginMs: 0 });
    const [first] = await grantsAt(pacer, clock, [0]);
    clock.t = 5;
    pacer.settle(first!, 429, 3000);
    // Nothing learned: after the pause, sends go freely again.
    const free = await Promise.all([pacer.acquire(), pacer.acquire(), pacer.acquire()]);
    expect(free.map((s) => s.sentAt)).toEqual([3005, 3005, 3005]);
    pacer.settle(free[0]!, 200);
    pacer.settle(free[1]!, 200);
    clock.t = 3010;
    pacer.settle(free[2]!, 429, 1000); // learned from the sends after the pause: 2 in 1005 ms
    const next = await Promise.all([pacer.acquire(), pacer.acquire(), pacer.acquire()]);
    expect(next.map((s) => s.sentAt)).toEqual([4010, 4010, 5015]);
  });

  it('keeps at most `inFlightWhileUnknown` sends waiting for an answer until the limit is learned', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock, marginMs: 0, inFlightWhileUnknown: 2 });
    const a = await pacer.acquire();
    await pacer.acquire();
    let third: Send | undefined;
    void pacer.acquire().then((s) => {
      third = s;
    });
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(third).toBeUndefined();
    clock.t = 7;
    pacer.settle(a, 200);
    for (let i = 0; i < 5 && !third; i++) await new Promise((r) => setImmediate(r));
    expect(third?.sentAt).toBe(7);
  });

  it('holds every sender for a Retry-After, also under a given limit', async () => {
    const clock = new FakeClock();
    const pacer = new Pacer({ clock, rateLimit: { requests: 10, perSeconds: 1 } });
    const send = await pacer.acquire();
    pacer.settle(send, 429, 5000);
    expect((await pacer.acquire()).sentAt).toBe(5000);
  });
});

describe('against a sliding-window service whose limit the client is not told', () => {
  const cases = [
    { service: { requests: 5, perSeconds: 1 }, total: 23, workers: 4, latencyMs: 10, cap: undefined },
    { service: { requests: 5, perSeconds: 1 }, total: 23, workers: 4, latencyMs: 10, cap: 2 },
    { service: { requests: 120, perSeconds: 60 }, total: 506, workers: 4, latencyMs: 3, cap: 2 },
    { service: { requests: 120, perSeconds: 60 }, total: 506, workers: 1, latencyMs: 3, cap: undefined },
  ];
  for (const { service, total, workers, latencyMs, cap } of cases) {
    const name = `${service.requests}/${service.perSeconds}, ${total} requests, ${workers} workers${cap ? `, ${cap} in flight while unknown` : ''}`;
    it(`${name}: one edge of at most ${cap ?? workers} 429s, then none, near the bound`, async () => {
      const run = await simulate(
        service,
        total,
        workers,
        latencyMs,
        cap ? { inFlightWhileUnknown: cap } : {},
      );
      expect(run.accepted).toHaveLength(total);
      expect(run.throttled.length).toBeGreaterThan(0);
      expect(run.throttled.length).toBeLessThanOrEqual(cap ?? workers);
      // Every 429 was a send already granted when the first 429 came back.
      for (const t of run.throttled) expect(t.index).toBeLessThan(t.edge);
      const windowMs = service.perSeconds * 1000;
      expect(maxInWindow(run.accepted, windowMs)).toBe(service.requests);
      // The last window that any request needs starts this long after the first: each learned window
      // is at most the rounding of Retry-After (1 s), the margin and the way there and back longer.
      const bound = Math.floor((total - 1) / service.requests) * windowMs;
      const slack = Math.floor((total - 1) / service.requests) * (1000 + 100 + 2 * latencyMs);
      expect(run.endedAt).toBeGreaterThanOrEqual(bound);
      expect(run.endedAt).toBeLessThanOrEqual(bound + slack + service.requests * 2 * latencyMs);
    });
  }

  it('a run that starts while the service still counts an earlier run learns again at most once', async () => {
    // 5 requests 50 s before: the first learning finds a window 10 s too short. 100 requests 10 s
    // before: it finds a budget of 20 where the service has 120 (and keeps it: slower, never faster).
    for (const earlier of [Array<number>(5).fill(-50_000), Array<number>(100).fill(-10_000)]) {
      const run = await simulate(
        { requests: 120, perSeconds: 60 },
        300,
        4,
        3,
        { inFlightWhileUnknown: 2 },
        earlier,
      );
      expect(run.accepted).toHaveLength(300);
      expect(run.throttled.length).toBeLessThanOrEqual(4);
      expect(maxInWindow([...earlier, ...run.accepted], 60_000)).toBeLessThanOrEqual(120);
    }
  });

  it('property: for any limit, parallelism and uneven travel times, no 429 after the first edge', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 50 }),
        // Each way takes the latency plus up to this much more, so requests overtake each other.
        fc.integer({ min: 0, max: 200 }),
        fc.integer(),
        fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
        fc.integer({ min: 1, max: 3 }),
        async (requests, perSeconds, workers, latencyMs, jitterMs, seed, cap, windows) => {
          const total = requests * windows + 1;
          const random = seededRandom(seed);
          const run = await simulate(
            { requests, perSeconds },
            total,
            workers,
            () => latencyMs + random() * jitterMs,
            cap === undefined ? {} : { inFlightWhileUnknown: cap },
          );
          expect(run.accepted).toHaveLength(total);
          for (const t of run.throttled) expect(t.index).toBeLessThan(t.edge);
          expect(run.throttled.length).toBeLessThanOrEqual(Math.min(workers, cap ?? workers));
        },
      ),
      { numRuns: 100 },
    );
  });
});
