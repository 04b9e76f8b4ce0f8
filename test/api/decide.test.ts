// What the client does after one attempt: done, retry after N ms, or fail; without HTTP or a clock.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AttemptContext,
  type AttemptOutcome,
  type Decision,
  decideNext,
  FIRST_ATTEMPT,
  type RetryCount,
} from '../../src/api/decide.js';
import {
  defaultRetryPolicy,
  type Method,
  neverSent,
  transportFailure,
  transportRetries,
} from '../../src/api/retry.js';

const policy = defaultRetryPolicy;
const decide = (outcome: AttemptOutcome, context: Partial<AttemptContext> = {}): Decision =>
  decideNext(outcome, {
    method: 'GET',
    notFoundOk: false,
    policy,
    count: FIRST_ATTEMPT,
    leftMs: 300_000,
    random: () => 0.5,
    ...context,
  });
const counted = (retries: number, more: Partial<RetryCount> = {}): RetryCount => ({
  ...FIRST_ATTEMPT,
  retries,
  ...more,
});

describe('after one attempt', () => {
  it.each<[string, AttemptOutcome, Partial<AttemptContext>, Partial<Decision>]>([
    ['a 2xx is done', { status: 200 }, {}, { next: 'done', found: true }],
    ['a 204 is done', { status: 204 }, { method: 'DELETE' }, { next: 'done', found: true }],
    [
      'a 404 is done where it is an answer',
      { status: 404 },
      { notFoundOk: true },
      { next: 'done', found: false },
    ],
    ['a 404 is an error elsewhere', { status: 404 }, {}, { next: 'fail', reason: 'status' }],
    ['a 400 is not retried', { status: 400 }, {}, { next: 'fail', reason: 'status' }],
    ['a 503 waits out the backoff', { status: 503 }, {}, { next: 'retry', afterMs: 125, of: 10 }],
    ['the backoff doubles', { status: 503 }, { count: counted(3) }, { next: 'retry', afterMs: 1000 }],
    [
      'a 429 waits its Retry-After',
      { status: 429, retryAfterMs: 2000 },
      {},
      { next: 'retry', afterMs: 2000 },
    ],
    [
      'a Retry-After shorter than the backoff waits the backoff',
      { status: 429, retryAfterMs: 10 },
      {},
      { next: 'retry', afterMs: 125 },
    ],
    [
      'a Retry-After past the policy fails',
      { status: 429, retryAfterMs: policy.maxRetryAfterMs + 1 },
      {},
      { next: 'fail', reason: 'retry-after-too-long' },
    ],
    ['a POST is retried on 429', { status: 429 }, { method: 'POST' }, { next: 'retry' }],
    ['a POST is not retried on 503', { status: 503 }, { method: 'POST' }, { next: 'fail', reason: 'status' }],
    [
      'a 500 has its own limit',
      { status: 500 },
      { count: counted(4, { fiveHundreds: 4 }) },
      { next: 'retry', of: 5 },
    ],
    [
      'past which it fails',
      { status: 500 },
      { count: counted(5, { fiveHundreds: 5 }) },
      { next: 'fail', reason: 'status', count: counted(5, { fiveHundreds: 6 }) },
    ],
    [
      'retries end at maxRetries',
      { status: 503 },
      { count: counted(10) },
      { next: 'fail', reason: 'status' },
    ],
    [
      'no retry starts at the deadline',
      { status: 503 },
      { leftMs: 125 },
      { next: 'fail', reason: 'deadline', count: counted(1) },
    ],
    ['a retry starts before it', { status: 503 }, { leftMs: 126 }, { next: 'retry', count: counted(1) }],
    ['a refused POST never left', { failure: 'ECONNREFUSED' }, { method: 'POST' }, { next: 'retry', of: 2 }],
    [
      'a POST whose connection broke may have arrived',
      { failure: 'ECONNRESET' },
      { method: 'POST' },
      { next: 'fail', reason: 'outcome-unknown' },
    ],
    [
      'a GET whose connection broke is retried',
      { failure: 'ECONNRESET' },
      {},
      { next: 'retry', of: 4, count: counted(1, { failures: { broken: 1 } }) },
    ],
    [
      'up to its kind of failure limit',
      { failure: 'ECONNRESET' },
      { count: counted(4, { failures: { broken: 4 } }) },
      { next: 'fail', reason: 'unreachable' },
    ],
    [
      'each kind of failure counts on its own',
      { failure: 'ACCORD_TIMEOUT' },
      { count: counted(4, { failures: { broken: 4 } }) },
      { next: 'retry', of: 2 },
    ],
    [
      'a name that does not resolve is not retried',
      { failure: 'ENOTFOUND' },
      {},
      { next: 'fail', reason: 'unreachable' },
    ],
    [
      'a failed handshake is not retried',
      { failure: 'ERR_TLS_CERT_ALTNAME_INVALID' },
      {},
      { next: 'fail', reason: 'tls' },
    ],
    [
      'a closed dispatcher is not retried',
      { failure: 'UND_ERR_CLOSED' },
      {},
      { next: 'fail', reason: 'closed' },
    ],
  ])('%s', (_what, outcome, context, expected) => {
    expect(decide(outcome, context)).toMatchObject(expected);
  });
});

describe('every request, as a property', () => {
  const METHODS: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
  const CODES = [
    'ECONNREFUSED',
    'ECONNRESET',
    'ENOTFOUND',
    'ACCORD_TIMEOUT',
    'UND_ERR_SOCKET',
    'ERR_TLS_X',
    'EPIPE',
  ];
  const outcome: fc.Arbitrary<AttemptOutcome> = fc.oneof(
    fc.record({
      status: fc.constantFrom(200, 204, 400, 404, 409, 429, 500, 502, 503, 504),
      retryAfterMs: fc.option(fc.integer({ min: 0, max: 400_000 }), { nil: undefined }),
    }),
    fc.record({ failure: fc.constantFrom(...CODES) }),
  );

  it('stays within every limit, retries a POST only when it surely did nothing, and never waits past the deadline', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...METHODS),
        fc.boolean(),
        fc.array(
          fc.tuple(
            outcome,
            fc.integer({ min: 0, max: 30_000 }),
            fc.double({ min: 0, max: 0.999, noNaN: true }),
          ),
          {
            minLength: 1,
            maxLength: 40,
          },
        ),
        (method, notFoundOk, attempts) => {
          let count = FIRST_ATTEMPT;
          const retriedBy = new Map<string, number>();
          for (const [o, leftMs, jitter] of attempts) {
            let draws = 0;
            const d = decideNext(o, {
              method,
              notFoundOk,
              policy,
              count,
              leftMs,
              random: () => {
                draws++;
                return jitter;
              },
            });
            const answered = 'status' in o;
            const done =
              answered && ((o.status >= 200 && o.status < 300) || (o.status === 404 && notFoundOk));
            expect(d.next === 'done').toBe(done);
            if (d.next === 'done') return;
            expect(draws).toBe(d.next === 'retry' || (d.next === 'fail' && d.reason === 'deadline') ? 1 : 0);
            if (d.next === 'fail') return;
            // A retry: within the deadline, after any Retry-After, within each limit.
            expect(d.afterMs).toBeLessThan(leftMs);
            if (answered) expect(d.afterMs).toBeGreaterThanOrEqual(o.retryAfterMs ?? 0);
            if (method === 'POST') expect(answered ? o.status === 429 : neverSent(o.failure)).toBe(true);
            const kind = answered ? (o.status === 500 ? '500' : 'status') : transportFailure(o.failure);
            retriedBy.set(kind, (retriedBy.get(kind) ?? 0) + 1);
            expect(d.count.retries).toBe(count.retries + 1);
            expect(d.count.retries).toBeLessThanOrEqual(policy.maxRetries);
            expect(retriedBy.get('500') ?? 0).toBeLessThanOrEqual(policy.max500Retries);
            if (!answered) {
              const failure = transportFailure(o.failure);
              expect(retriedBy.get(failure)).toBeLessThanOrEqual(transportRetries(policy, failure));
            }
            count = d.count;
          }
        },
      ),
    );
  });
});
