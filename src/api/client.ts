// The HTTP client of the Account Management API (shared/SPEC.md); behaviour in docs/client.md. This file
// is the request loop: attempts and retries. Beside it: the options (options.ts), where requests go
// (target.ts), the listing (listing.ts), what bounds an attempt (bounds.ts), the reading of answers
// (answers.ts) and the errors a request ends with (failures.ts).
import type { Dispatcher } from 'undici';
import { VERSION } from '../version.js';
import { errorCode, parseBody, readBody, tooLarge } from './answers.js';
import { AttemptTimeoutError, abortOnSilence, SilentServiceError, silenceWatchFor } from './bounds.js';
import type { Clock } from './clock.js';
import { decideNext, FIRST_ATTEMPT } from './decide.js';
import { ClientClosedError, ResponseTooLargeError, formatSeconds as seconds } from './errors.js';
import { Failures, type RequestSoFar, type SentAttempt } from './failures.js';
import { listItems } from './listing.js';
import { type ApiClientOptions, agentFor, checkedApiKey, pacerFor, settingsOf } from './options.js';
import type { Pacer, Send } from './pacer.js';
import { makeRedactor } from './redact.js';
import { isIdempotent, type Method, parseRetryAfter, type RetryPolicy } from './retry.js';
import { Semaphore } from './semaphore.js';
import type { SilenceWatch } from './silence.js';
import { ApiStats } from './stats.js';
import { ApiTarget } from './target.js';
import { request } from './undici.js';

export { MAX_PAGES, PAGE_SIZE } from './listing.js';
export { type ApiClientOptions, ApiKeyError } from './options.js';

interface Answer {
  status: number;
  data: unknown;
}

/** An attempt that was sent and ended, or (`late`) was not sent, the deadline having passed. */
type AttemptResult = SentAttempt | { late: true };

export class ApiClient {
  readonly baseUrl: string;
  readonly stats: ApiStats;
  readonly pacer: Pacer;
  /** Requests in flight at once, at most. */
  readonly parallelism: number;
  readonly #apiKey: string;
  readonly #redact: (text: string) => string;
  readonly #target: ApiTarget;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #semaphore: Semaphore;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #policy: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #deadlineMs: number;
  /** Set by the first request after the client was made or restartDeadline was called. */
  #deadlineAt: number | undefined;
  readonly #maxResponseBytes: number;
  readonly #maxPages: number;
  readonly #trace?: (line: string) => void;
  #notice?: (line: string) => void;
  #closed = false;
  readonly #failures: Failures;
  readonly #silence: SilenceWatch;
  /** Aborted by close(): ends retry waits at once, so that a failed run does not linger. */
  readonly #closing = new AbortController();

  constructor(opts: ApiClientOptions) {
    this.#apiKey = checkedApiKey(opts.apiKey);
    this.#redact = makeRedactor(opts.apiKey);
    this.#target = new ApiTarget(opts.baseUrl, this.#redact);
    this.baseUrl = this.#target.baseUrl;
    const settings = settingsOf(opts);
    this.#clock = settings.clock;
    this.#random = settings.random;
    this.#policy = settings.policy;
    this.#timeoutMs = settings.timeoutMs;
    this.#deadlineMs = settings.deadlineMs;
    this.#silence = silenceWatchFor(this.#target.origin, this.#timeoutMs, this.#clock, opts.waiting);
    this.#failures = new Failures({
      origin: this.#target.origin,
      timeoutMs: this.#timeoutMs,
      deadlineMs: this.#deadlineMs,
      silentLimitMs: this.#silence.limitMs,
      clock: this.#clock,
      redact: this.#redact,
    });
    this.#maxResponseBytes = settings.maxResponseBytes;
    this.#maxPages = settings.maxPages;
    if (opts.trace) this.#trace = opts.trace;
    if (opts.notice) this.#notice = opts.notice;
    this.parallelism = settings.parallelism;
    this.#semaphore = new Semaphore(settings.parallelism);
    this.pacer = pacerFor(opts, this.#clock);
    this.stats = new ApiStats(this.#clock);
    this.#ownsDispatcher = opts.dispatcher === undefined;
    this.#dispatcher = opts.dispatcher ?? agentFor(settings);
  }

  /** Starts the deadline anew: after time the run spent on something else, such as asking the user. */
  restartDeadline(): void {
    this.#deadlineAt = undefined;
  }

  async get<T = unknown>(path: string): Promise<T> {
    return (await this.#call('GET', path)).data as T;
  }

  /** Like get, but a 404 is `undefined` instead of an error. */
  async getOptional<T = unknown>(path: string): Promise<T | undefined> {
    const answer = await this.#call('GET', path, undefined, true);
    return answer.status === 404 ? undefined : (answer.data as T);
  }

  /** Never repeated once it may have reached the service: see OutcomeUnknownError. */
  async post<T = unknown>(path: string, body: unknown): Promise<T> {
    return (await this.#call('POST', path, body)).data as T;
  }

  async patch<T = unknown>(path: string, body: unknown): Promise<T> {
    return (await this.#call('PATCH', path, body)).data as T;
  }

  async put<T = unknown>(path: string, body: unknown): Promise<T> {
    return (await this.#call('PUT', path, body)).data as T;
  }

  /** A 404 counts as done: the resource is gone either way. */
  async delete(path: string): Promise<void> {
    await this.#call('DELETE', path, undefined, true);
  }

  /**
   * Yields every item of a list, page by page: `?limit=100`, then each `next_page_uri` exactly as
   * given, as long as it stays on the API's origin, never repeats, and the listing stays within
   * `maxPages` pages. With `readAhead`, for a caller that reads the list to its end, each next page is
   * asked for before the items of the one before it are yielded: the service prepares it while they are
   * worked on.
   */
  async *listAll<T = unknown>(
    path: string,
    listKey: string,
    opts: { readAhead?: boolean } = {},
  ): AsyncIterable<T> {
    const lister = {
      target: this.#target,
      maxPages: this.#maxPages,
      get: async (href: string) => (await this.#call('GET', href)).data,
    };
    yield* listItems<T>(lister, path, listKey, opts.readAhead ?? false);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort();
    this.stats.stop();
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  async #call(method: Method, path: string, body?: unknown, notFoundOk = false): Promise<Answer> {
    const ended = this.#silence.callStarted();
    try {
      return await this.#tries(method, path, body, notFoundOk);
    } finally {
      ended();
    }
  }

  async #tries(method: Method, path: string, body: unknown, notFoundOk: boolean): Promise<Answer> {
    const url = this.#target.resolve(path);
    const display = this.#target.display(url);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = this.#headers(payload !== undefined);
    const firstSentAt = this.#clock.now();
    this.#deadlineAt ??= firstSentAt + this.#deadlineMs;
    const deadlineAt = this.#deadlineAt;
    const request: RequestSoFar = { method, display, firstSentAt, last: undefined };
    let count = FIRST_ATTEMPT;
    for (;;) {
      this.#checkUsable(method, display);
      // A retry never runs past the deadline: its attempt gets only the time that is left.
      const retryDeadline = count.retries > 0 ? deadlineAt : undefined;
      const attempt = this.#unlessFinal(
        request,
        await this.#attempt(method, url, headers, payload, retryDeadline),
        count.retries,
      );
      const decision = decideNext(
        'error' in attempt
          ? { failure: errorCode(attempt.error) }
          : { status: attempt.status, retryAfterMs: attempt.retryAfter },
        {
          method,
          notFoundOk,
          policy: this.#policy,
          count,
          leftMs: deadlineAt - this.#clock.now(),
          random: this.#random,
        },
      );
      if (decision.next === 'done') {
        if (!decision.found || 'error' in attempt) return { status: 404, data: undefined };
        const { status, text } = attempt;
        return { status, data: parseBody(text, method, display, status, this.#redact) };
      }
      const failed = this.#failures.describe(
        request,
        attempt,
        decision.next === 'fail' ? decision.reason : undefined,
      );
      if (decision.next === 'fail') throw this.#failures.failed(request, failed, attempt, decision);
      request.last = failed;
      count = decision.count;
      await this.#backOff(request, decision.afterMs, count.retries, decision.of, failed.why);
    }
  }

  #headers(withBody: boolean): Record<string, string> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      'service-version': '2',
      // The production service's name for the same header; it refuses a request without it.
      'ngrok-version': '2',
      'user-agent': `accord/${VERSION}`,
      accept: 'application/json',
    };
    if (withBody) headers['content-type'] = 'application/json';
    return headers;
  }

  /**
   * The attempt, unless it ends its request whatever the retry policy says: not sent for the deadline,
   * the client closed, an answer too large, or (for a request that may be repeated) the service silent.
   */
  #unlessFinal(request: RequestSoFar, attempt: AttemptResult, retries: number): SentAttempt {
    const { method, display } = request;
    if ('late' in attempt) throw this.#failures.deadline(request, retries);
    if (!('error' in attempt)) return attempt;
    if (this.#closed) throw new ClientClosedError(method, display);
    if (attempt.error instanceof ResponseTooLargeError) throw attempt.error;
    // The service answered no request for twice --timeout: the run gives up on it (a POST under way
    // has an unknown outcome, which the retry decision says).
    if (attempt.error instanceof SilentServiceError && isIdempotent(method)) {
      throw this.#failures.silenced(method, display, attempt.error, retries + 1);
    }
    return attempt;
  }

  /** A closed client, or a service found unreachable earlier in the run: no attempt is made. */
  #checkUsable(method: Method, display: string): void {
    if (this.#closed) throw new ClientClosedError(method, display);
    this.#failures.checkReachable(method, display);
  }

  /** Waits out a retry's delay, telling --verbose of each retry and the user of the run's first. */
  async #backOff(
    request: RequestSoFar,
    delay: number,
    retries: number,
    of: number,
    why: string,
  ): Promise<void> {
    const { method, display } = request;
    this.stats.retries++;
    this.#trace?.(`retry ${retries}/${of} of ${method} ${display} in ${delay} ms (${why})`);
    this.#notice?.(
      `${method} ${display} failed (${why}); retrying with backoff (--verbose shows each attempt; --deadline ${seconds(this.#deadlineMs)} ends all retries).`,
    );
    this.#notice = undefined;
    await this.#clock.sleep(delay, this.#closing.signal);
  }

  /**
   * One try of a request, in its turn (the semaphore) and at its pace (the pacer). A retry passes the
   * deadline: it is not sent once the deadline has passed (`late`), and its bound is the time left when
   * that is shorter than --timeout.
   */
  async #attempt(
    method: Method,
    url: URL,
    headers: Record<string, string>,
    payload: string | undefined,
    deadlineAt: number | undefined,
  ): Promise<AttemptResult> {
    const release = await this.#semaphore.acquire();
    let send: Send | undefined;
    let answer: AttemptResult | undefined;
    try {
      try {
        send = await this.pacer.acquire(this.#closing.signal);
      } catch (error) {
        return { error };
      }
      const left = deadlineAt === undefined ? this.#timeoutMs : deadlineAt - this.#clock.now();
      if (left <= 0) return { late: true };
      if (this.#silence.leftMs() <= 0)
        return { error: new SilentServiceError(this.#silence.silentMs(), false) };
      const timeoutMs = Math.min(this.#timeoutMs, left);
      answer = await this.#send(method, url, headers, payload, timeoutMs, send.sentAt);
      return answer;
    } finally {
      // Before the slot is released, so that the next request is paced by what this answer taught.
      if (send) {
        const status = answer !== undefined && 'status' in answer ? answer.status : undefined;
        const retryAfter = answer !== undefined && 'status' in answer ? answer.retryAfter : undefined;
        this.pacer.settle(send, status, status === 429 ? retryAfter : undefined);
      }
      release();
    }
  }

  /**
   * Sends an attempt and reads its answer within one bound for the whole attempt, body included:
   * undici's own timeouts are per phase and per chunk, so a body that trickles in (or headers followed
   * by silence) would pass them all.
   */
  async #send(
    method: Method,
    url: URL,
    headers: Record<string, string>,
    payload: string | undefined,
    timeoutMs: number,
    sentAt: number,
  ): Promise<SentAttempt> {
    const shown = `${method} ${this.#target.display(url)}`;
    const bound = new AbortController();
    if (payload !== undefined) this.stats.bytesSent += Buffer.byteLength(payload);
    const timer = setTimeout(() => bound.abort(new AttemptTimeoutError(timeoutMs)), timeoutMs);
    const silent = this.#silence.attemptStarted(shown);
    const unwatch = abortOnSilence(this.#silence, bound);
    try {
      const res = await request(this.#dispatcher, {
        origin: url.origin,
        path: url.pathname + url.search,
        method,
        headers,
        ...(payload !== undefined ? { body: payload } : {}),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        // Closing the client ends the attempts under way too, so that a failed run exits at once.
        signal: AbortSignal.any([bound.signal, this.#closing.signal]),
      });
      const text = await readBody(res.body, this.#maxResponseBytes, () =>
        tooLarge(shown, res.statusCode, this.#maxResponseBytes),
      );
      this.stats.bytesReceived += Buffer.byteLength(text);
      this.#silence.answered();
      this.stats.recordAttempt(method, res.statusCode);
      this.#trace?.(`${shown} -> ${res.statusCode} in ${this.#clock.now() - sentAt} ms`);
      const retryAfter = parseRetryAfter(res.headers['retry-after'], this.#clock.now());
      return { status: res.statusCode, text, headers: res.headers, retryAfter };
    } catch (caught) {
      // Whatever undici made of the abort, a request stopped by the bound timed out.
      const timedOut = bound.signal.aborted && !(caught instanceof ResponseTooLargeError);
      const error = timedOut ? bound.signal.reason : caught;
      this.stats.recordAttempt(method, 'error');
      this.#trace?.(`${shown} -> ${errorCode(error)}`);
      return { error };
    } finally {
      clearTimeout(timer);
      unwatch();
      silent();
    }
  }
}
