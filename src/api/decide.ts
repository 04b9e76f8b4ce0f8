// What follows one attempt of a request: done, another attempt after N ms, or failure (docs/client.md
// "Retries"). Pure: the client's loop (src/api/client.ts) makes the attempts and sleeps, and
// src/api/failures.ts builds the errors; this decides, from the attempt's outcome and the count of the request's attempts so far.
import {
  backoffDelay,
  isIdempotent,
  isRetryableStatus,
  type Method,
  neverSent,
  type RetryPolicy,
  type TransportFailure,
  transportFailure,
  transportRetries,
} from './retry.js';

/** How one attempt ended: an answer (with its Retry-After, in ms), or no answer (the error's code). */
export type AttemptOutcome = { status: number; retryAfterMs?: number | undefined } | { failure: string };

/** What a request's attempts so far count toward the policy's limits. */
export interface RetryCount {
  /** Retries decided so far. */
  retries: number;
  /** Answers 500 so far: a 500 has its own, lower limit. */
  fiveHundreds: number;
  /** Failures before any answer, by kind: each kind has its own limit within maxRetries. */
  failures: Readonly<Partial<Record<TransportFailure, number>>>;
}

export const FIRST_ATTEMPT: RetryCount = { retries: 0, fiveHundreds: 0, failures: {} };

export interface AttemptContext {
  method: Method;
  /** A 404 is an answer like a 2xx (DELETE of what is gone, a GET of what may not exist). */
  notFoundOk: boolean;
  policy: RetryPolicy;
  count: RetryCount;
  /** Milliseconds until the deadline: no retry starts at or past it. */
  leftMs: number;
  /** The backoff's jitter; drawn once for each retry and never otherwise. */
  random: () => number;
}

/**
 * Why a request fails: `closed` (the client was closed under it), `outcome-unknown` (a POST may have
 * reached the service), `unreachable` (retries used up without an answer; later requests of the run
 * fail at once), `tls` (a failed handshake: the same, but only for this request), `status` (an error
 * answer), `retry-after-too-long` (the service asked for a longer wait than the policy allows),
 * `deadline` (the next attempt would start past the deadline).
 */
export type FailReason =
  | 'closed'
  | 'outcome-unknown'
  | 'unreachable'
  | 'tls'
  | 'status'
  | 'retry-after-too-long'
  | 'deadline';

export type Decision =
  /** `found` is false for a 404 taken as an answer. */
  | { next: 'done'; found: boolean }
  /** `of`: the most retries this kind of outcome allows, as the trace says it. */
  | { next: 'retry'; afterMs: number; of: number; count: RetryCount }
  | { next: 'fail'; reason: FailReason; count: RetryCount };

/** undici's codes for a request on a closed or destroyed dispatcher: never worth a retry. */
const CLOSED_CODES: ReadonlySet<string> = new Set(['UND_ERR_CLOSED', 'UND_ERR_DESTROYED']);

export function decideNext(outcome: AttemptOutcome, context: AttemptContext): Decision {
  return 'failure' in outcome ? afterFailure(outcome.failure, context) : afterAnswer(outcome, context);
}

function afterFailure(code: string, { method, policy, count, leftMs, random }: AttemptContext): Decision {
  if (CLOSED_CODES.has(code)) return { next: 'fail', reason: 'closed', count };
  const failure = transportFailure(code);
  const times = (count.failures[failure] ?? 0) + 1;
  const counted = { ...count, failures: { ...count.failures, [failure]: times } };
  const mayRetry = isIdempotent(method) || neverSent(code);
  const of = transportRetries(policy, failure);
  if (mayRetry && times <= of && count.retries < policy.maxRetries) {
    return retry(backoffDelay(policy, count.retries, random), of, counted, leftMs);
  }
  if (!mayRetry) return { next: 'fail', reason: 'outcome-unknown', count: counted };
  return { next: 'fail', reason: failure === 'tls' ? 'tls' : 'unreachable', count: counted };
}

function afterAnswer(
  { status, retryAfterMs }: { status: number; retryAfterMs?: number | undefined },
  { method, notFoundOk, policy, count, leftMs, random }: AttemptContext,
): Decision {
  if (status >= 200 && status < 300) return { next: 'done', found: true };
  if (status === 404 && notFoundOk) return { next: 'done', found: false };
  const counted = status === 500 ? { ...count, fiveHundreds: count.fiveHundreds + 1 } : count;
  const budgetLeft =
    count.retries < policy.maxRetries && (status !== 500 || counted.fiveHundreds <= policy.max500Retries);
  const tooLong = retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs;
  if (isRetryableStatus(method, status) && budgetLeft && !tooLong) {
    const delay = Math.max(retryAfterMs ?? 0, backoffDelay(policy, count.retries, random));
    const of = status === 500 ? Math.min(policy.maxRetries, policy.max500Retries) : policy.maxRetries;
    return retry(delay, of, counted, leftMs);
  }
  return { next: 'fail', reason: tooLong ? 'retry-after-too-long' : 'status', count: counted };
}

/** Another attempt after `afterMs`, unless that would start at or past the deadline. */
function retry(afterMs: number, of: number, count: RetryCount, leftMs: number): Decision {
  const next = { ...count, retries: count.retries + 1 };
  if (afterMs >= leftMs) return { next: 'fail', reason: 'deadline', count: next };
  return { next: 'retry', afterMs, of, count: next };
}
