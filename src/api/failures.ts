// How a request's failed attempts become the error it ends with, and the run's memory of a service that
// could not be reached, so that later requests fail at once instead of each waiting out the same backoff.
import { apiError, errorCode, scrubbed } from './answers.js';
import type { SilentServiceError } from './bounds.js';
import type { Clock } from './clock.js';
import type { Decision, FailReason } from './decide.js';
import { ApiConnectionError, ClientClosedError, DeadlineError, OutcomeUnknownError } from './errors.js';
import type { Method } from './retry.js';

/** An attempt that was answered, with the answer's Retry-After in milliseconds. */
export interface AttemptAnswer {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
  retryAfter: number | undefined;
}

/** An attempt that was sent and ended: answered, or with the error that ended it. */
export type SentAttempt = AttemptAnswer | { error: unknown };

/** One request's attempts so far, as its errors and notices name it. */
export interface RequestSoFar {
  method: Method;
  display: string;
  firstSentAt: number;
  /** How the last attempt failed, for the deadline's message. */
  last: Failed | undefined;
}

/** An attempt that did not end its request, as describe tells it. */
export interface Failed {
  why: string;
  said: string;
  cause: Error;
  /** For an attempt without an answer: the error's code and its message, redacted. */
  code?: string;
  detail?: string;
}

export interface FailuresOptions {
  origin: string;
  timeoutMs: number;
  deadlineMs: number;
  /** The silence after which the run gives up on the service. */
  silentLimitMs: number;
  clock: Clock;
  redact: (text: string) => string;
}

export class Failures {
  readonly #opts: FailuresOptions;
  /**
   * Set once a request has used up its retries without reaching the service: later requests of the
   * run fail at once instead of each waiting out the same backoff (a dead service would otherwise hold
   * an apply of N changes for N times a minute).
   */
  #unreachable: { code: string; detail: string; cause: Error } | undefined;

  constructor(opts: FailuresOptions) {
    this.#opts = opts;
  }

  /** A service found unreachable earlier in the run: no attempt is made. */
  checkReachable(method: Method, display: string): void {
    if (this.#unreachable) {
      const { code, detail, cause } = this.#unreachable;
      throw new ApiConnectionError(method, display, this.#opts.origin, code, detail, cause, {
        timeoutMs: this.#opts.timeoutMs,
        earlier: true,
      });
    }
  }

  /**
   * The request ends at the deadline after `attempts` attempts; the error names the last one's failure,
   * and `askedMs`, the wait the service asked for when it is as long as the whole deadline or longer.
   */
  deadline(request: RequestSoFar, attempts: number, askedMs?: number): DeadlineError {
    const { last } = request;
    return new DeadlineError(request.method, request.display, {
      deadlineMs: this.#opts.deadlineMs,
      attempts,
      elapsedMs: this.#opts.clock.now() - request.firstSentAt,
      last: last?.said ?? '',
      ...(last?.why !== undefined && /^\d+$/.test(last.why) ? { status: Number(last.why) } : {}),
      ...(askedMs !== undefined ? { askedMs } : {}),
      ...(last?.cause !== undefined ? { cause: last.cause } : {}),
    });
  }

  /**
   * An attempt that did not end the request, described: `why` in a retry's trace (the code or the
   * status), what the deadline's message `said` of it, and its `cause`, the error it is.
   */
  describe(request: RequestSoFar, attempt: SentAttempt, reason?: FailReason): Failed {
    const { method, display } = request;
    const { redact } = this.#opts;
    if (!('error' in attempt)) {
      const { status, text, headers, retryAfter } = attempt;
      const retryAfterMs = reason === 'retry-after-too-long' ? retryAfter : undefined;
      const error = apiError({ method, display, status, text, headers, retryAfterMs }, redact);
      return { why: String(status), said: `was answered ${status}: ${error.msg}`, cause: error };
    }
    const code = errorCode(attempt.error);
    const detail = redact(attempt.error instanceof Error ? attempt.error.message : String(attempt.error));
    // The cause is kept for --verbose, scrubbed: a low-level message may quote what was sent.
    const cause = scrubbed(attempt.error, redact);
    return { why: code, said: `failed with ${code} (${detail.split('\n')[0]})`, cause, code, detail };
  }

  /** The error of a request that the retry decision failed: at the deadline, or for its own reason. */
  failed(
    request: RequestSoFar,
    failed: Failed,
    attempt: SentAttempt,
    decision: Extract<Decision, { next: 'fail' }>,
  ): Error {
    if (decision.reason !== 'deadline') return this.#failure(request, failed, decision);
    request.last = failed;
    // A wait asked for that no --deadline this short allows, as against retries that used it up.
    const wait = 'error' in attempt ? undefined : attempt.retryAfter;
    const asked = wait !== undefined && wait >= this.#opts.deadlineMs ? wait : undefined;
    return this.deadline(request, decision.count.retries, asked);
  }

  /** The error a request fails with, for any reason but the deadline. */
  #failure(request: RequestSoFar, failed: Failed, { reason, count }: Extract<Decision, { next: 'fail' }>) {
    const { method, display } = request;
    const { code, detail, cause } = failed;
    if (code === undefined || detail === undefined) return cause;
    if (reason === 'closed') return new ClientClosedError(method, display);
    if (reason === 'outcome-unknown') return new OutcomeUnknownError(method, display, code, detail, cause);
    if (reason === 'unreachable') this.#unreachable = { code, detail: detail.split('\n')[0] ?? '', cause };
    return new ApiConnectionError(method, display, this.#opts.origin, code, detail, cause, {
      attempts: count.retries + 1,
      timeoutMs: this.#opts.timeoutMs,
    });
  }

  /** The run gives up on a service that answers nothing; the first request to see it says so. */
  silenced(method: Method, display: string, error: SilentServiceError, tries: number): Error {
    const { origin, timeoutMs, silentLimitMs, redact } = this.#opts;
    const attempts = error.sent ? tries : tries - 1;
    const cause = scrubbed(error, redact);
    const earlier = this.#unreachable !== undefined;
    this.#unreachable ??= { code: 'ACCORD_TIMEOUT', detail: error.message, cause };
    return new ApiConnectionError(method, display, origin, 'ACCORD_TIMEOUT', error.message, cause, {
      timeoutMs,
      ...(earlier ? { earlier } : { attempts, silentMs: silentLimitMs }),
    });
  }
}
