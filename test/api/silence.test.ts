// A service that accepts requests and never answers is given up on after twice --timeout of silence,
// counted across the run's requests, and the waiting is said every 10 s. Virtual time throughout.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { ApiConnectionError, OutcomeUnknownError } from '../../src/api/errors.js';
import { SilenceWatch } from '../../src/api/silence.js';
import { KEY } from './helpers.js';
import { type Behaviour, settle as settleOnVirtualTime, stubService } from './stub-service.js';

const URL_ = 'https://api.test';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

function client(
  behave: (method: string, path: string) => Behaviour,
  opts: Partial<{ timeoutMs: number; parallelism: number; random: () => number }> = {},
) {
  const service = stubService(behave);
  const lines: { at: number; line: string }[] = [];
  const start = Date.now();
  const c = new ApiClient({
    baseUrl: URL_,
    apiKey: KEY,
    dispatcher: service.dispatcher,
    random: () => 0.5,
    waiting: (line) => lines.push({ at: Date.now() - start, line }),
    ...opts,
  });
  return { c, service, lines, start };
}

/** Runs `work` to its end on virtual time; what it returned or threw, and when. */
function settle(work: Promise<unknown>, stepMs = 100): Promise<{ result: unknown; ms: number }> {
  return settleOnVirtualTime(vi, work, stepMs);
}

const PLAN_READS = [
  '/ip_restrictions',
  '/ip_policies',
  '/ip_policy_rules',
  '/certificate_authorities',
  '/ssh_host_certificates',
];

describe('a hung service, with the default flags', () => {
  it('is given up on within 60 s (50 s of silence), a line every 10 s saying what is waited for', async () => {
    const { c, lines, service } = client(() => ({ kind: 'hang' }));
    const { result, ms } = await settle(Promise.all(PLAN_READS.map((p) => c.get(p))));
    expect(result).toBeInstanceOf(ApiConnectionError);
    expect(ms).toBeGreaterThanOrEqual(50_000);
    expect(ms).toBeLessThanOrEqual(60_000);
    expect((result as Error).message).toMatch(
      /^GET \/\w+ got no answer from https:\/\/api\.test, which answered no request for 50 s \(twice --timeout 25 s; ACCORD_TIMEOUT(, 2 attempts)?\), so accord gave up on it\. /,
    );
    expect(lines.map((l) => Math.round(l.at / 1000))).toEqual([10, 20, 30, 40]);
    expect(lines[0]?.line).toMatch(
      /^Waiting for https:\/\/api\.test to answer GET \/\w+ and 1 other request: no answer for 10 s; accord gives up after 50 s without one \(twice --timeout 25 s\)\.$/,
    );
    // Two in flight at once (the default while the rate limit is unknown), never all five times three.
    expect(service.requests.length).toBeLessThanOrEqual(4);
    const later = await settle(c.get('/edges/tcp'));
    expect((later.result as Error).message).toContain('an earlier request of this run gave up on it');
    expect(later.ms).toBeLessThan(1000);
    await c.close();
  });

  it.each([
    ['stalls after its headers', { kind: 'stall-after-headers' } as const],
    ['trickles its body, a byte a second', { kind: 'trickle', everyMs: 1000 } as const],
  ])('that %s is given up on the same way', async (_name, behaviour) => {
    const { c } = client(() => behaviour);
    const { result, ms } = await settle(c.get('/ip_policies'));
    expect((result as ApiConnectionError).transportCode).toBe('ACCORD_TIMEOUT');
    expect(ms).toBeGreaterThanOrEqual(50_000);
    expect(ms).toBeLessThanOrEqual(60_000);
    await c.close();
  });

  it('a POST under way when the run gives up is said to have an unknown outcome, not retried', async () => {
    const { c, service } = client(() => ({ kind: 'hang' }));
    const { result } = await settle(c.post('/ip_restrictions', { type: 'api' }));
    expect(result).toBeInstanceOf(OutcomeUnknownError);
    expect(service.requests).toEqual(['POST /ip_restrictions']);
    await c.close();
  });
});

describe('silence is the service’s, not one request’s', () => {
  it('a service that answers one request every 20 s is slow, not silent: every request gets its own --timeout', async () => {
    let n = 0;
    // Each GET answers after 20 s; two in flight: never 50 s without an answer.
    const { c, lines } = client(() => ({
      kind: 'answer',
      status: 200,
      body: `{"n":${n++}}`,
      afterMs: 20_000,
    }));
    const { result, ms } = await settle(Promise.all([1, 2, 3, 4, 5, 6].map((i) => c.get(`/r/${i}`))));
    expect(result).toHaveLength(6);
    expect(ms).toBe(60_000);
    // Each 20-s wait passes the 10-s mark once.
    expect(lines.length).toBe(3);
    await c.close();
  });

  it('a --timeout of 5 s gives up after 10 s, with no line (the first would come at 10 s, with the error)', async () => {
    const { c, lines } = client(() => ({ kind: 'hang' }), { timeoutMs: 5000 });
    const { result, ms } = await settle(c.get('/r'));
    expect(result).toBeInstanceOf(ApiConnectionError);
    expect(ms).toBeGreaterThanOrEqual(10_000);
    expect(ms).toBeLessThan(11_000);
    expect(lines).toEqual([]);
    await c.close();
  });

  it('property: a silent service is given up on after 2 x --timeout, plus at most 1 s of backoff between attempts', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 120 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 8 }),
        fc.infiniteStream(fc.double({ min: 0, max: 0.999, noNaN: true })),
        async (timeoutS, requests, parallelism, jitter) => {
          const { c, service } = client(() => ({ kind: 'hang' }), {
            timeoutMs: timeoutS * 1000,
            parallelism,
            random: () => jitter.next().value,
          });
          const work = Promise.all(Array.from({ length: requests }, (_, i) => c.get(`/r/${i}`)));
          const { result, ms } = await settle(work, 50);
          expect(result).toBeInstanceOf(ApiConnectionError);
          expect(ms).toBeGreaterThanOrEqual(2 * timeoutS * 1000);
          // What docs/client.md states: 2 x --timeout + 1 s (the last 50-ms step of virtual time included).
          expect(ms).toBeLessThanOrEqual(2 * timeoutS * 1000 + 1000);
          // At most two attempts of each request reach the service.
          expect(service.requests.length).toBeLessThanOrEqual(2 * requests);
          await c.close();
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('SilenceWatch', () => {
  it('counts only time with an attempt in flight since the last answer, and starts anew when no request is under way', () => {
    let now = 0;
    const w = new SilenceWatch({ limitMs: 50_000, now: () => now });
    const call = w.callStarted();
    const a = w.attemptStarted('GET /a');
    now = 20_000;
    a(); // backoff: 5 s that do not count
    now = 25_000;
    const b = w.attemptStarted('GET /a');
    now = 30_000;
    expect(w.silentMs()).toBe(25_000);
    expect(w.leftMs()).toBe(25_000);
    w.answered();
    expect(w.silentMs()).toBe(0);
    now = 40_000;
    expect(w.silentMs()).toBe(10_000);
    b();
    call();
    now = 100_000;
    expect(w.silentMs()).toBe(0);
    const next = w.callStarted();
    w.attemptStarted('GET /b');
    now = 101_000;
    expect(w.silentMs()).toBe(1000);
    next();
  });
});
