// The HTTP client of the Account Management API (shared/SPEC.md); behaviour in docs/client.md.
import type { Dispatcher } from 'undici';
import { AccordError } from '../errors.js';
import { count } from '../plural.js';
import { VERSION } from '../version.js';
import { type Clock, systemClock } from './clock.js';
import { decideNext, type FailReason, FIRST_ATTEMPT, type RetryCount } from './decide.js';
import {
  ApiConnectionError,
  ApiError,
  ClientClosedError,
  DeadlineError,
  OutcomeUnknownError,
  PaginationError,
  RefusedRequestError,
  ResponseTooLargeError,
  formatSeconds as seconds,
} from './errors.js';
import { Pacer, type RateLimit, type Send } from './pacer.js';
import { hasDotSegment } from './paths.js';
import { makeRedactor } from './redact.js';
import { defaultRetryPolicy, isIdempotent, type Method, parseRetryAfter, type RetryPolicy } from './retry.js';
import { Semaphore } from './semaphore.js';
import { SILENT_TIMEOUTS, SilenceWatch } from './silence.js';
import { ApiStats } from './stats.js';
import { Agent, request } from './undici.js';

export interface ApiClientOptions {
  baseUrl: string;
  apiKey: string;
  /**
   * Requests in flight at once, shared by the whole run. Default 4, of which at most 2 while the
   * service's rate limit is unknown (neither given nor yet learned from a 429): every request under way
   * when the limit is first met is turned away, so the default turns at most 2 away.
   */
  parallelism?: number;
  rateLimit?: RateLimit;
  /**
   * The bound of one attempt, from connecting to the last byte of the body; twice this without any
   * answer to any request and the run gives up on the service. Default 25 s.
   */
  timeoutMs?: number;
  /**
   * No retry starts, and no retry's attempt runs, past this long after the first request (or the
   * first after restartDeadline). Default 5 minutes.
   */
  deadlineMs?: number;
  /** The largest answer read. Default 64 MiB. */
  maxResponseBytes?: number;
  maxRetries?: number;
  /** Pages one listing may take before it is given up as endless (`--max-pages`). Default MAX_PAGES. */
  maxPages?: number;
  /** Receives one line per attempt (`--verbose`); the key never appears in it. */
  trace?: (line: string) => void;
  /**
   * Told once per run, at the first retry, so that a run waiting out backoff is not silent without
   * `--verbose`. The key never appears in it.
   */
  notice?: (line: string) => void;
  /**
   * Told every 10 s of the service's silence what the run waits for, so that waiting on a hung service
   * is never silent. The key never appears in it.
   */
  waiting?: (line: string) => void;
  /** Test seams: an undici dispatcher (MockAgent), a clock, the jitter's random source. */
  dispatcher?: Dispatcher;
  clock?: Clock;
  random?: () => number;
  retryPolicy?: Partial<RetryPolicy>;
}

/** The key would not fit in an HTTP header; its value is never shown. */
export class ApiKeyError extends AccordError {
  override name = 'ApiKeyError';
  static override readonly code = 'ACCORD_API_KEY';
}

export const PAGE_SIZE = 100;
/**
 * A million objects of one kind: far beyond any account this tool is for, and reached in seconds by a
 * service whose `next_page_uri` always names a new cursor, which would otherwise be followed forever.
 */
export const MAX_PAGES = 10_000;
const DEFAULT_TIMEOUT_MS = 25_000;
const DEFAULT_DEADLINE_MS = 300_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 2 ** 20;
const DEFAULT_PARALLELISM = 4;
/** With the default parallelism, requests in flight while the service's rate limit is unknown. */
const DEFAULT_IN_FLIGHT_WHILE_UNKNOWN = 2;
/** Added to a rate limit's window, given or learned: requests travel at different speeds. */
const RATE_LIMIT_MARGIN_MS = 100;

/**
 * An attempt ended because the service has answered nothing for SILENT_TIMEOUTS times --timeout,
 * counted across the run's requests: the run gives up on the service.
 */
class SilentServiceError extends Error {
  override name = 'SilentServiceError';
  readonly code = 'ACCORD_TIMEOUT';
  /** False when the attempt was not sent, the silence having run out before it. */
  readonly sent: boolean;
  constructor(silentMs: number, sent: boolean) {
    super(`no answer to any request for ${seconds(silentMs)}`);
    this.sent = sent;
  }
}

/** An attempt that did not end within --timeout (its code is the one a retry is counted by). */
class AttemptTimeoutError extends Error {
  override name = 'AttemptTimeoutError';
  readonly code = 'ACCORD_TIMEOUT';
  constructor(timeoutMs: number) {
    super(`no complete answer within ${seconds(timeoutMs)}`);
  }
}

interface Answer {
  status: number;
  data: unknown;
}

/** An attempt that was answered, with the answer's Retry-After in milliseconds. */
interface AttemptAnswer {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
  retryAfter: number | undefined;
}

/** One request's attempts so far, as its errors and notices name it. */
interface RequestSoFar {
  method: Method;
  display: string;
  firstSentAt: number;
  /** How the last attempt failed, for the deadline's message. */
  last: Failed | undefined;
}

/** An attempt that did not end its request, as #describe tells it. */
interface Failed {
  why: string;
  said: string;
  cause: Error;
  /** For an attempt without an answer: the error's code and its message, redacted. */
  code?: string;
  detail?: string;
}

export class ApiClient {
  readonly baseUrl: string;
  readonly stats: ApiStats;
  readonly pacer: Pacer;
  /** Requests in flight at once, at most. */
  readonly parallelism: number;
  readonly #apiKey: string;
  readonly #redact: (text: string) => string;
  readonly #origin: string;
  readonly #basePath: string;
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
  /**
   * Set once a request has used up its retries without reaching the service: later requests of the
   * run fail at once instead of each waiting out the same backoff (a dead service would otherwise hold
   * an apply of N changes for N times a minute).
   */
  #unreachable: { code: string; detail: string; cause: Error } | undefined;
  readonly #silence: SilenceWatch;
  /** Aborted by close(): ends retry waits at once, so that a failed run does not linger. */
  readonly #closing = new AbortController();

  constructor(opts: ApiClientOptions) {
    if (!/^[\x21-\x7e]+$/.test(opts.apiKey)) {
      throw new ApiKeyError(
        'The API key is empty or holds spaces or characters that cannot be sent in an HTTP header; ' +
          'check ACCORD_API_KEY or the file given to --api-key-file.',
      );
    }
    this.#apiKey = opts.apiKey;
    this.#redact = makeRedactor(opts.apiKey);
    const base = new URL(opts.baseUrl);
    this.#origin = base.origin;
    this.#basePath = base.pathname.replace(/\/+$/, '');
    this.baseUrl = this.#origin + this.#basePath;
    this.#clock = opts.clock ?? systemClock;
    this.#random = opts.random ?? Math.random;
    this.#policy = { ...defaultRetryPolicy, ...opts.retryPolicy };
    if (opts.maxRetries !== undefined) this.#policy.maxRetries = opts.maxRetries;
    // setTimeout takes at most 2^31-1 ms; a longer bound is no bound in practice.
    this.#timeoutMs = Math.min(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, 2 ** 31 - 1);
    this.#deadlineMs = opts.deadlineMs ?? DEFAULT_DEADLINE_MS;
    this.#silence = this.#silenceWatch(opts.waiting);
    this.#maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#maxPages = opts.maxPages ?? MAX_PAGES;
    if (opts.trace) this.#trace = opts.trace;
    if (opts.notice) this.#notice = opts.notice;
    const parallelism = opts.parallelism ?? DEFAULT_PARALLELISM;
    this.parallelism = parallelism;
    this.#semaphore = new Semaphore(parallelism);
    this.pacer = new Pacer({
      clock: this.#clock,
      marginMs: RATE_LIMIT_MARGIN_MS,
      ...(opts.rateLimit ? { rateLimit: opts.rateLimit } : {}),
      ...(opts.parallelism === undefined ? { inFlightWhileUnknown: DEFAULT_IN_FLIGHT_WHILE_UNKNOWN } : {}),
    });
    this.stats = new ApiStats(this.#clock);
    this.#ownsDispatcher = opts.dispatcher === undefined;
    this.#dispatcher =
      opts.dispatcher ??
      new Agent({
        connections: parallelism,
        keepAliveTimeout: 30_000,
        headersTimeout: this.#timeoutMs,
        bodyTimeout: this.#timeoutMs,
        connect: { timeout: Math.min(this.#timeoutMs, 10_000) },
      });
  }

  #silenceWatch(waiting: ((line: string) => void) | undefined): SilenceWatch {
    const limitMs = SILENT_TIMEOUTS * this.#timeoutMs;
    const say = (silentMs: number, requests: string[]) => {
      const [first, ...more] = requests;
      const others = more.length > 0 ? ` and ${count(more.length, 'other request')}` : '';
      waiting?.(
        `Waiting for ${this.#origin} to answer ${first}${others}: no answer for ${Math.round(silentMs / 1000)} s; ` +
          `accord gives up after ${seconds(limitMs)} without one (twice --timeout ${seconds(this.#timeoutMs)}).`,
      );
    };
    return new SilenceWatch({ limitMs, now: () => this.#clock.now(), ...(waiting ? { waiting: say } : {}) });
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
    const first = this.#resolve(path);
    if (!first.searchParams.has('limit')) first.searchParams.set('limit', String(PAGE_SIZE));
    const seen = new Set<string>();
    let pending = this.#listPage(first, listKey, seen);
    for (;;) {
      const { items, next } = await pending;
      if (opts.readAhead && next instanceof URL) {
        pending = this.#listPage(next, listKey, seen);
        // Awaited once its page's turn comes; a caller that stops early leaves it unread.
        pending.catch(() => {});
      }
      for (const item of items) yield item as T;
      if (next === undefined) return;
      if (next instanceof Error) throw next;
      if (!opts.readAhead) pending = this.#listPage(next, listKey, seen);
    }
  }

  /**
   * One page of a list and what comes after it: the next page's URL, undefined at the end, or the error
   * that ends the listing once this page's items are yielded.
   */
  async #listPage(
    url: URL,
    listKey: string,
    seen: Set<string>,
  ): Promise<{ items: unknown[]; next: URL | PaginationError | undefined }> {
    seen.add(url.href);
    const { data } = await this.#call('GET', url.href).catch((err: unknown) => {
      // A collection that does not exist at all means the base URL is not the API's.
      if (err instanceof ApiError && err.status === 404 && seen.size === 1) {
        throw new ApiError({
          status: err.status,
          method: err.method,
          path: err.path,
          msg: err.msg,
          ...(err.errorCode !== undefined ? { errorCode: err.errorCode } : {}),
          ...(err.operationId !== undefined ? { operationId: err.operationId } : {}),
          cause: err,
          hint: `Check that --api-url / ACCORD_API_URL (${this.baseUrl}) is the API's base URL, without an extra path.`,
        });
      }
      throw err;
    });
    const page = data as Record<string, unknown> | null;
    const items = typeof page === 'object' && page !== null ? page[listKey] : undefined;
    if (!Array.isArray(items)) {
      throw new PaginationError(
        `GET ${this.#display(url)} answered without a "${listKey}" list; check --api-url points at the API.`,
      );
    }
    const next = page?.next_page_uri;
    if (next === null || next === undefined || next === '') return { items, next: undefined };
    if (seen.size >= this.#maxPages) {
      const error = new PaginationError(
        `Listing ${listKey} stopped after ${this.#maxPages} pages (${this.#maxPages * PAGE_SIZE} objects at ` +
          `most) with the service still giving a next_page_uri. If the account really holds more, pass ` +
          '--max-pages N with a larger N; otherwise the service pages without end: report it with the ' +
          'listing path.',
      );
      return { items, next: error };
    }
    let nextUrl: URL;
    try {
      nextUrl = this.#nextPage(url, next);
    } catch (err) {
      if (err instanceof PaginationError) return { items, next: err };
      throw err;
    }
    if (seen.has(nextUrl.href)) {
      const error = new PaginationError(
        `Listing ${listKey} stopped: next_page_uri ${this.#display(nextUrl)} was already fetched, so the ` +
          'pages loop. This is a fault of the service; report it with the listing path.',
      );
      return { items, next: error };
    }
    return { items, next: nextUrl };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort();
    this.stats.stop();
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  #nextPage(current: URL, next: unknown): URL {
    let url: URL | undefined;
    if (typeof next === 'string') {
      try {
        url = new URL(next, current);
      } catch {
        url = undefined;
      }
    }
    if (!url) {
      throw new PaginationError(
        `GET ${this.#display(current)} answered with an unusable next_page_uri; it must be a URL or null.`,
      );
    }
    if (url.origin !== this.#origin) {
      throw new PaginationError(
        `GET ${this.#display(current)} answered with a next_page_uri on another origin (${this.#redact(url.origin)}); ` +
          `accord sends the API key only to ${this.#origin} and stopped listing. Check --api-url.`,
      );
    }
    return url;
  }

  #resolve(path: string): URL {
    if (!/^https?:\/\//i.test(path) && hasDotSegment(path)) {
      throw new RefusedRequestError(
        `Refusing the request path ${this.#redact(path)}: a "." or ".." segment (or a backslash) would send ` +
          'it to another endpoint than the one it names. If it came from a plan file, make the plan again.',
      );
    }
    const url = /^https?:\/\//i.test(path) ? new URL(path) : new URL(this.#basePath + path, this.#origin);
    if (url.origin !== this.#origin) {
      throw new RefusedRequestError(
        `Refusing to send the API key to ${this.#redact(url.origin)}: only ${this.#origin} (--api-url) receives it.`,
      );
    }
    return url;
  }

  #display(url: URL): string {
    return this.#redact(url.pathname + url.search);
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
    const url = this.#resolve(path);
    const display = this.#display(url);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      'service-version': '2',
      // The production service's name for the same header; it refuses a request without it.
      'ngrok-version': '2',
      'user-agent': `accord/${VERSION}`,
      accept: 'application/json',
    };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const firstSentAt = this.#clock.now();
    this.#deadlineAt ??= firstSentAt + this.#deadlineMs;
    const deadlineAt = this.#deadlineAt;
    const request: RequestSoFar = { method, display, firstSentAt, last: undefined };
    let count = FIRST_ATTEMPT;
    for (;;) {
      this.#checkUsable(method, display);
      // A retry never runs past the deadline: its attempt gets only the time that is left.
      const attempt = await this.#attempt(
        method,
        url,
        headers,
        payload,
        count.retries > 0 ? deadlineAt : undefined,
      );
      if ('late' in attempt) throw this.#deadline(request, count.retries);
      if ('error' in attempt && this.#closed) throw new ClientClosedError(method, display);
      if ('error' in attempt && attempt.error instanceof ResponseTooLargeError) throw attempt.error;
      // The service answered no request for twice --timeout: the run gives up on it (a POST under way
      // has an unknown outcome, which the decision below says).
      if ('error' in attempt && attempt.error instanceof SilentServiceError && isIdempotent(method)) {
        throw this.#silenced(method, display, attempt.error, count.retries + 1);
      }
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
      const failed = this.#describe(request, attempt, decision.next === 'fail' ? decision.reason : undefined);
      if (decision.next === 'fail' && decision.reason !== 'deadline')
        throw this.#failure(request, failed, decision);
      request.last = failed;
      if (decision.next === 'fail') {
        // A wait asked for that no --deadline this short allows, as against retries that used it up.
        const wait = 'error' in attempt ? undefined : attempt.retryAfter;
        const asked = wait !== undefined && wait >= this.#deadlineMs ? wait : undefined;
        throw this.#deadline(request, decision.count.retries, asked);
      }
      count = decision.count;
      await this.#backOff(request, decision.afterMs, count.retries, decision.of, failed.why);
    }
  }

  /** A closed client, or a service found unreachable earlier in the run: no attempt is made. */
  #checkUsable(method: Method, display: string): void {
    if (this.#closed) throw new ClientClosedError(method, display);
    if (this.#unreachable) {
      const { code, detail, cause } = this.#unreachable;
      throw new ApiConnectionError(method, display, this.#origin, code, detail, cause, {
        timeoutMs: this.#timeoutMs,
        earlier: true,
      });
    }
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
   * The request ends at the deadline after `attempts` attempts; the error names the last one's failure,
   * and `askedMs`, the wait the service asked for when it is as long as the whole deadline or longer.
   */
  #deadline(request: RequestSoFar, attempts: number, askedMs?: number): DeadlineError {
    const { last } = request;
    return new DeadlineError(request.method, request.display, {
      deadlineMs: this.#deadlineMs,
      attempts,
      elapsedMs: this.#clock.now() - request.firstSentAt,
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
  #describe(request: RequestSoFar, attempt: AttemptAnswer | { error: unknown }, reason?: FailReason): Failed {
    const { method, display } = request;
    if (!('error' in attempt)) {
      const { status, text, headers, retryAfter } = attempt;
      const asked = reason === 'retry-after-too-long' ? retryAfter : undefined;
      const error = this.#apiError(method, display, status, text, headers, asked);
      return { why: String(status), said: `was answered ${status}: ${error.msg}`, cause: error };
    }
    const code = errorCode(attempt.error);
    const detail = this.#redact(
      attempt.error instanceof Error ? attempt.error.message : String(attempt.error),
    );
    // The cause is kept for --verbose, scrubbed: a low-level message may quote what was sent.
    const cause = scrubbed(attempt.error, this.#redact);
    return { why: code, said: `failed with ${code} (${detail.split('\n')[0]})`, cause, code, detail };
  }

  /** The error a request fails with, for any reason but the deadline. */
  #failure(
    request: RequestSoFar,
    failed: Failed,
    { reason, count }: { reason: FailReason; count: RetryCount },
  ) {
    const { method, display } = request;
    const { code, detail, cause } = failed;
    if (code === undefined || detail === undefined) return cause;
    if (reason === 'closed') return new ClientClosedError(method, display);
    if (reason === 'outcome-unknown') return new OutcomeUnknownError(method, display, code, detail, cause);
    if (reason === 'unreachable') this.#unreachable = { code, detail: detail.split('\n')[0] ?? '', cause };
    return new ApiConnectionError(method, display, this.#origin, code, detail, cause, {
      attempts: count.retries + 1,
      timeoutMs: this.#timeoutMs,
    });
  }

  /** The run gives up on a service that answers nothing; the first request to see it says so. */
  #silenced(method: Method, display: string, error: SilentServiceError, tries: number): Error {
    const attempts = error.sent ? tries : tries - 1;
    const cause = scrubbed(error, this.#redact);
    const earlier = this.#unreachable !== undefined;
    this.#unreachable ??= { code: 'ACCORD_TIMEOUT', detail: error.message, cause };
    return new ApiConnectionError(method, display, this.#origin, 'ACCORD_TIMEOUT', error.message, cause, {
      timeoutMs: this.#timeoutMs,
      ...(earlier ? { earlier } : { attempts, silentMs: this.#silence.limitMs }),
    });
  }

  /**
   * One try of a request. A retry passes the deadline: it is not sent once the deadline has passed
   * (`late`), and its bound is the time left when that is shorter than --timeout.
   */
  async #attempt(
    method: Method,
    url: URL,
    headers: Record<string, string>,
    payload: string | undefined,
    deadlineAt: number | undefined,
  ): Promise<AttemptAnswer | { error: unknown } | { late: true }> {
    const release = await this.#semaphore.acquire();
    // One bound for the whole attempt, body included: undici's own timeouts are per phase and per
    // chunk, so a body that trickles in (or headers followed by silence) would pass them all.
    const bound = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let unwatch: (() => void) | undefined;
    let silent: (() => void) | undefined;
    let send: Send | undefined;
    /** What the pacer is told once the attempt is over: the status, and a 429's Retry-After. */
    let status: number | undefined;
    let retryAfter: number | undefined;
    try {
      try {
        send = await this.pacer.acquire(this.#closing.signal);
      } catch (error) {
        return { error };
      }
      const { sentAt } = send;
      const left = deadlineAt === undefined ? this.#timeoutMs : deadlineAt - this.#clock.now();
      if (left <= 0) return { late: true };
      if (this.#silence.leftMs() <= 0)
        return { error: new SilentServiceError(this.#silence.silentMs(), false) };
      const timeoutMs = Math.min(this.#timeoutMs, left);
      if (payload !== undefined) this.stats.bytesSent += Buffer.byteLength(payload);
      timer = setTimeout(() => bound.abort(new AttemptTimeoutError(timeoutMs)), timeoutMs);
      silent = this.#silence.attemptStarted(`${method} ${this.#display(url)}`);
      unwatch = this.#watchSilence(bound);
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
          this.#tooLarge(method, url, res.statusCode),
        );
        this.stats.bytesReceived += Buffer.byteLength(text);
        this.#silence.answered();
        this.stats.recordAttempt(method, res.statusCode);
        this.#trace?.(
          `${method} ${this.#display(url)} -> ${res.statusCode} in ${this.#clock.now() - sentAt} ms`,
        );
        status = res.statusCode;
        retryAfter = parseRetryAfter(res.headers['retry-after'], this.#clock.now());
        return { status, text, headers: res.headers, retryAfter };
      } catch (caught) {
        // Whatever undici made of the abort, a request stopped by the bound timed out.
        const timedOut = bound.signal.aborted && !(caught instanceof ResponseTooLargeError);
        const error = timedOut ? bound.signal.reason : caught;
        this.stats.recordAttempt(method, 'error');
        this.#trace?.(`${method} ${this.#display(url)} -> ${errorCode(error)}`);
        return { error };
      }
    } finally {
      // Before the slot is released, so that the next request is paced by what this answer taught.
      if (send) this.pacer.settle(send, status, status === 429 ? retryAfter : undefined);
      clearTimeout(timer);
      unwatch?.();
      silent?.();
      release();
    }
  }

  /**
   * Aborts `bound` once the run has been silent too long. The silence is the run's, not this attempt's:
   * an answer to another request pushes its end away. Returns what stops the watch.
   */
  #watchSilence(bound: AbortController): () => void {
    let timer: NodeJS.Timeout | undefined;
    const watch = () => {
      const left = this.#silence.leftMs();
      if (left <= 0) bound.abort(new SilentServiceError(this.#silence.silentMs(), true));
      else timer = setTimeout(watch, left);
    };
    watch();
    return () => clearTimeout(timer);
  }

  #tooLarge(method: Method, url: URL, status: number): ResponseTooLargeError {
    return new ResponseTooLargeError(
      `${method} ${this.#display(url)} answered ${status} with more than ${this.#maxResponseBytes.toLocaleString('en-US')} bytes; ` +
        'accord stopped reading (a page of 100 objects is far smaller). Check that --api-url points at the API.',
    );
  }

  #apiError(
    method: Method,
    display: string,
    status: number,
    text: string,
    headers: Record<string, string | string[] | undefined>,
    retryAfterMs?: number,
  ): ApiError {
    let errorCode: string | undefined;
    let msg: string | undefined;
    let operationId: string | undefined;
    try {
      const body = JSON.parse(text) as {
        error_code?: unknown;
        msg?: unknown;
        details?: { operation_id?: unknown };
      };
      if (typeof body.error_code === 'string') errorCode = this.#redact(body.error_code);
      if (typeof body.msg === 'string') msg = this.#redact(body.msg);
      if (typeof body.details?.operation_id === 'string')
        operationId = this.#redact(body.details.operation_id);
    } catch {
      if (text.trim() !== '') msg = this.#redact(plainText(text));
    }
    const outcomeUnknown = method === 'POST' && status >= 500;
    const location = first(headers['location']);
    return new ApiError({
      status,
      method,
      path: display,
      msg: msg ?? 'no message',
      ...(errorCode !== undefined ? { errorCode } : {}),
      ...(operationId !== undefined ? { operationId } : {}),
      outcomeUnknown,
      hint:
        status >= 300 && status < 400
          ? redirectHint(location === undefined ? undefined : this.#redact(location))
          : hintFor(status, outcomeUnknown, retryAfterMs, errorCode),
    });
  }
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** accord does not follow redirects: the key would go wherever they lead. */
function redirectHint(location: string | undefined): string {
  const to = location === undefined ? '' : ` to ${location.slice(0, 200)}`;
  return `The service redirects${to}; accord does not follow redirects (the key would go along). Put the API's own URL in --api-url / ACCORD_API_URL.`;
}

/** An error body that is not JSON, in one short line: an HTML page by its title, anything else cut. */
function plainText(text: string): string {
  const trimmed = text.trim();
  if (/^<(!doctype html|html|head|body)\b/i.test(trimmed)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(trimmed)?.[1]?.replace(/\s+/g, ' ').trim();
    return `an HTML page${title ? ` ("${title.slice(0, 100)}")` : ''} instead of a JSON error`;
  }
  return trimmed.replace(/\s+/g, ' ').slice(0, 200);
}

/** Reads a body as text, stopping (and throwing) past `limit` bytes. */
async function readBody(
  body: AsyncIterable<Buffer> & { destroy?: (err?: Error) => void },
  limit: number,
  tooLarge: () => Error,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      const error = tooLarge();
      body.destroy?.(error);
      throw error;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * What the production service's documented codes mean to the user, where the code says more than its
 * status (shared/SPEC-ip-policies.md "What the production service refuses").
 */
const CODE_HINTS: Record<string, string> = {
  ERR_NGROK_226:
    'The service allows 120 requests per rolling 60 s per account and kept refusing; ' +
    'run again with --rate-limit 120/60 (or lower) so that accord paces itself, or lower --parallelism.',
  ERR_NGROK_1419:
    'The service keeps at least one rule in a policy that the dashboard IP restriction uses: create the ' +
    'new rule first, or take the policy out of the dashboard restriction, then run again.',
  ERR_NGROK_1420:
    'The service does not delete an IP policy that an IP restriction names: take the policy out of the ' +
    'restrictions the message lists (their ip_policies), then run again.',
};

function hintFor(status: number, outcomeUnknown: boolean, retryAfterMs?: number, errorCode?: string): string {
  const wait =
    retryAfterMs === undefined
      ? undefined
      : `The service asked to wait ${Math.ceil(retryAfterMs / 1000)} s; run again later.`;
  const known = errorCode === undefined ? undefined : CODE_HINTS[errorCode];
  if (known) return wait ? `${wait} ${known}` : known;
  if (wait) return wait;
  if (outcomeUnknown) return 'The resource may have been created anyway; run plan again before retrying.';
  if (status === 401) return 'Check the API key (ACCORD_API_KEY or --api-key-file).';
  if (status === 403) return 'The API key is not allowed to do this.';
  if (status === 429) return 'The service kept throttling; lower --parallelism or set --rate-limit.';
  if (status >= 500) return 'The service failed; run again later.';
  return '';
}

function parseBody(
  text: string,
  method: string,
  display: string,
  status: number,
  redact: (text: string) => string,
): unknown {
  if (status === 204 || text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ApiError({
      status,
      method,
      path: display,
      msg: 'the response body is not JSON',
      // JSON.parse quotes the text it could not read, which may echo the key.
      cause: scrubbed(err, redact),
      hint: 'Check that --api-url / ACCORD_API_URL points at the Account Management API, not a web page.',
    });
  }
}

/** A copy of a low-level error that keeps its name, code and stack but not the key. */
function scrubbed(err: unknown, redact: (text: string) => string): Error {
  const original = err instanceof Error ? err : new Error(String(err));
  const copy = new Error(redact(original.message));
  copy.name = original.name;
  copy.stack = redact(original.stack ?? `${original.name}: ${original.message}`);
  const code = errorCode(err);
  return code === original.name ? copy : Object.assign(copy, { code });
}

function errorCode(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const { code, name } = err as { code?: unknown; name?: unknown };
    if (typeof code === 'string') return code;
    if (typeof name === 'string') return name;
  }
  return 'UNKNOWN';
}
