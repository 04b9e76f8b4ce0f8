// What every request passes before its handler: API key, Service-Version (or Ngrok-Version), rate
// limit, content type, and the testing aids (latency, injected faults).
import { createHash, timingSafeEqual } from 'node:crypto';
import { ServiceError } from './errors.js';
import { RequestLog } from './window.js';

/** Checks `Authorization: Bearer <key>` in constant time against every configured key. */
export class KeyChecker {
  private readonly digests: Buffer[];
  constructor(keys: string[]) {
    this.digests = keys.map((k) => createHash('sha256').update(k).digest());
  }

  /** Returns the index of the matching key (the rate-limit bucket). */
  check(header: string | undefined): number {
    if (!header) {
      throw new ServiceError('ERR_AUTH_MISSING', 'missing "Authorization: Bearer <API key>" header');
    }
    const match = /^Bearer +(\S+)\s*$/i.exec(header);
    const digest = createHash('sha256')
      .update(match?.[1] ?? '')
      .digest();
    let found = -1;
    // Compare against every key, without an early exit, so timing says nothing about which matched.
    for (let i = 0; i < this.digests.length; i++) {
      if (timingSafeEqual(digest, this.digests[i]!) && found < 0) found = i;
    }
    if (!match || found < 0) throw new ServiceError('ERR_AUTH_INVALID', 'the API key is not valid');
    return found;
  }
}

/**
 * `Service-Version: 2`, or `Ngrok-Version: 2` as the production service's official clients send it.
 * Whichever is given must say 2.
 */
export function checkServiceVersion(
  serviceVersion: string | string[] | undefined,
  ngrokVersion: string | string[] | undefined,
): void {
  if (serviceVersion === undefined && ngrokVersion === undefined) {
    throw new ServiceError('ERR_SERVICE_VERSION_MISSING', 'missing "Service-Version: 2" header');
  }
  for (const [name, value] of [
    ['Service-Version', serviceVersion],
    ['Ngrok-Version', ngrokVersion],
  ] as const) {
    if (value !== undefined && value !== '2') {
      throw new ServiceError(
        'ERR_SERVICE_VERSION_UNSUPPORTED',
        `${name} "${String(value).slice(0, 20)}" is not supported; send "${name}: 2"`,
      );
    }
  }
}

export function checkJsonContentType(header: string | undefined): void {
  const type = header?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ServiceError(
      'ERR_UNSUPPORTED_MEDIA_TYPE',
      'a request with a body must send "Content-Type: application/json"',
    );
  }
}

/**
 * Per key, at most `requests` in any `perSeconds` seconds: a sliding window (src/server/window.ts).
 * Not @fastify/rate-limit, which gives the API's 429 body and Retry-After but counts in fixed windows
 * (up to twice the limit across a window's end, where `--rate-limit` is there to hold clients to the
 * limit) and keeps its own time, where tests drive the service's injected clock.
 */
export class RateLimiter {
  private readonly windows = new Map<number, RequestLog>();
  constructor(
    private readonly requests: number,
    private readonly perSeconds: number,
  ) {}

  /** Counts one request at `nowMs`; throws a 429 with Retry-After when the window is full. */
  take(bucket: number, nowMs: number): void {
    let window = this.windows.get(bucket);
    if (!window) {
      window = new RequestLog(this.requests, this.perSeconds * 1000);
      this.windows.set(bucket, window);
    }
    const wait = window.admit(nowMs);
    if (wait > 0) {
      const retryAfter = Math.max(1, Math.ceil(wait / 1000));
      throw new ServiceError(
        'ERR_RATE_LIMITED',
        `rate limit of ${this.requests} requests per ${this.perSeconds}s reached; retry after ${retryAfter}s`,
        { 'retry-after': String(retryAfter) },
      );
    }
  }
}

export type Fault = 'error500' | 'error503' | 'drop' | 'commit-then-500' | 'commit-then-drop';

/** Decides which requests fail, from a (seedable) random source. */
export function pickFault(rate: number, random: () => number, method: string): Fault | undefined {
  if (rate <= 0 || random() >= rate) return undefined;
  const kinds: Fault[] =
    method === 'POST'
      ? ['error500', 'error503', 'drop', 'commit-then-500', 'commit-then-drop']
      : ['error500', 'error503', 'drop'];
  return kinds[Math.floor(random() * kinds.length)]!;
}

/** mulberry32: a small deterministic generator for reproducible fault injection. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
