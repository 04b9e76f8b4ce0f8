/** Which failures are retried, and how long to wait before the next attempt. */

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RetryPolicy {
  /** Attempts after the first, for 429, 502, 503, 504 and connection errors. */
  maxRetries: number;
  /** Attempts after the first for a 500 on an idempotent request (a real 500 rarely heals). */
  max500Retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the request fails instead. */
  maxRetryAfterMs: number;
  /** Attempts after the first for a request that timed out: each may take the whole --timeout. */
  maxTimeoutRetries: number;
  /** Attempts after the first for a refused connection: a service that is starting may take a moment. */
  maxRefusedRetries: number;
  /** Attempts after the first for a connection that broke (reset, closed), at most maxRetries. */
  maxConnectionRetries: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxRetries: 10,
  max500Retries: 5,
  baseDelayMs: 250,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 300_000,
  maxTimeoutRetries: 2,
  maxRefusedRetries: 2,
  maxConnectionRetries: 4,
};

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

/** Connection failures after which the request certainly never reached the service. */
const NEVER_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EAI_FAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** A host name that does not resolve: asking again at once gives the same answer. */
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL']);

/** No complete answer in time: the connection, the headers or the whole request (with its body). */
export const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ACCORD_TIMEOUT',
]);

/** Certificate verification failures that Node reports without an ERR_TLS_ / ERR_SSL_ prefix. */
const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
]);

/**
 * A TLS handshake that failed: a wrong protocol (https to a plain HTTP port) or a certificate that is
 * not trusted. Retrying cannot help, and the request never left.
 */
export function isTlsFailure(code: string): boolean {
  return code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || CERTIFICATE_CODES.has(code);
}

/** How a request failed before any answer, which decides how often it is tried again. */
export type TransportFailure = 'dns' | 'refused' | 'timeout' | 'tls' | 'broken';

export function transportFailure(code: string): TransportFailure {
  if (DNS_CODES.has(code)) return 'dns';
  if (code === 'ECONNREFUSED') return 'refused';
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  if (isTlsFailure(code)) return 'tls';
  return 'broken';
}

/** Retries a request may have after a failure of this kind (DNS and TLS failures: none). */
export function transportRetries(policy: RetryPolicy, failure: TransportFailure): number {
  switch (failure) {
    case 'dns':
    case 'tls':
      return 0;
    case 'refused':
      return Math.min(policy.maxRetries, policy.maxRefusedRetries);
    case 'timeout':
      return Math.min(policy.maxRetries, policy.maxTimeoutRetries);
    case 'broken':
      return Math.min(policy.maxRetries, policy.maxConnectionRetries);
  }
}

export function isIdempotent(method: Method): boolean {
  return method !== 'POST';
}

/**
 * Whether a status is worth another attempt. POST is retried on 429 only: the rate limiter turns a
 * request away before it is handled, whereas a 5xx may come after the resource was created.
 */
export function isRetryableStatus(method: Method, status: number): boolean {
  if (method === 'POST') return status === 429;
  return RETRYABLE_STATUS.has(status) || status === 500;
}

export function neverSent(code: string): boolean {
  return NEVER_SENT_CODES.has(code) || isTlsFailure(code);
}

/** Exponential backoff with full jitter: uniform in [0, min(max, base * 2^attempt)). */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/** Parses Retry-After (delta-seconds or an HTTP date) into milliseconds from `nowMs`. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its weekday and month; a bare number that is not delta-seconds is no date.
  const at = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
