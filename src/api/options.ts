// The client's options, their defaults, and what is built from them before the first request.
import type { Dispatcher } from 'undici';
import { AccordError } from '../errors.js';
import { type Clock, systemClock } from './clock.js';
import { MAX_PAGES } from './listing.js';
import { Pacer, type RateLimit } from './pacer.js';
import { defaultRetryPolicy, type RetryPolicy } from './retry.js';
import { Agent } from './undici.js';

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

const DEFAULT_TIMEOUT_MS = 25_000;
const DEFAULT_DEADLINE_MS = 300_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 2 ** 20;
const DEFAULT_PARALLELISM = 4;
/** With the default parallelism, requests in flight while the service's rate limit is unknown. */
const DEFAULT_IN_FLIGHT_WHILE_UNKNOWN = 2;
/** Added to a rate limit's window, given or learned: requests travel at different speeds. */
const RATE_LIMIT_MARGIN_MS = 100;

/** The options with their defaults filled in. */
export interface ClientSettings {
  clock: Clock;
  random: () => number;
  policy: RetryPolicy;
  timeoutMs: number;
  deadlineMs: number;
  maxResponseBytes: number;
  maxPages: number;
  parallelism: number;
}

export function settingsOf(opts: ApiClientOptions): ClientSettings {
  const policy = { ...defaultRetryPolicy, ...opts.retryPolicy };
  if (opts.maxRetries !== undefined) policy.maxRetries = opts.maxRetries;
  return {
    clock: opts.clock ?? systemClock,
    random: opts.random ?? Math.random,
    policy,
    // setTimeout takes at most 2^31-1 ms; a longer bound is no bound in practice.
    timeoutMs: Math.min(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, 2 ** 31 - 1),
    deadlineMs: opts.deadlineMs ?? DEFAULT_DEADLINE_MS,
    maxResponseBytes: opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    maxPages: opts.maxPages ?? MAX_PAGES,
    parallelism: opts.parallelism ?? DEFAULT_PARALLELISM,
  };
}

/** The key as given, once it is known to fit in an HTTP header. */
export function checkedApiKey(apiKey: string): string {
  if (!/^[\x21-\x7e]+$/.test(apiKey)) {
    throw new ApiKeyError(
      'The API key is empty or holds spaces or characters that cannot be sent in an HTTP header; ' +
        'check ACCORD_API_KEY or the file given to --api-key-file.',
    );
  }
  return apiKey;
}

/** The run's pacer: a given rate limit, and with the default parallelism fewer requests until one is known. */
export function pacerFor(opts: ApiClientOptions, clock: Clock): Pacer {
  return new Pacer({
    clock,
    marginMs: RATE_LIMIT_MARGIN_MS,
    ...(opts.rateLimit ? { rateLimit: opts.rateLimit } : {}),
    ...(opts.parallelism === undefined ? { inFlightWhileUnknown: DEFAULT_IN_FLIGHT_WHILE_UNKNOWN } : {}),
  });
}

/** The connection pool of a client that was given no dispatcher: one connection per request in flight. */
export function agentFor({ parallelism, timeoutMs }: ClientSettings): Dispatcher {
  return new Agent({
    connections: parallelism,
    keepAliveTimeout: 30_000,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: { timeout: Math.min(timeoutMs, 10_000) },
  });
}
