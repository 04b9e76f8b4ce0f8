import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  defaultRetryPolicy,
  isRetryableStatus,
  neverSent,
  parseRetryAfter,
} from '../../src/api/retry.js';

describe('retry rules', () => {
  it('parses Retry-After as seconds or an HTTP date, and ignores anything else', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('30', now)).toBe(30_000);
    expect(parseRetryAfter(['2', '9'], now)).toBe(2000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('retries statuses by method', () => {
    for (const status of [429, 500, 502, 503, 504]) expect(isRetryableStatus('GET', status)).toBe(true);
    for (const status of [400, 401, 403, 404, 409, 413, 415])
      expect(isRetryableStatus('PUT', status)).toBe(false);
    expect(isRetryableStatus('POST', 429)).toBe(true);
    for (const status of [500, 502, 503, 504]) expect(isRetryableStatus('POST', status)).toBe(false);
  });

  it('knows which connection failures mean the request never left', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']) {
      expect(neverSent(code)).toBe(true);
    }
    for (const code of ['ECONNRESET', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT', 'EPIPE']) {
      expect(neverSent(code)).toBe(false);
    }
  });

  it('full jitter stays below the exponential ceiling and the cap', () => {
    const p = defaultRetryPolicy;
    expect(backoffDelay(p, 0, () => 0.999)).toBe(249);
    expect(backoffDelay(p, 3, () => 0.5)).toBe(1000);
    expect(backoffDelay(p, 30, () => 0.999)).toBe(19_980);
    expect(backoffDelay(p, 5, () => 0)).toBe(0);
  });
});
