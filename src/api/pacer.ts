import type { Clock } from './clock.js';
import { SlidingWindow } from './window.js';

export interface RateLimit {
  requests: number;
  perSeconds: number;
}

export interface PacerOptions {
  /** A fixed budget: never more than `requests` sends in any `perSeconds` window. */
  rateLimit?: RateLimit;
  clock: Clock;
  /**
   * Added to the fixed window, so that requests that travel at different speeds still arrive within
   * the service's budget.
   */
  marginMs?: number;
}

/** Lowest adaptive rate, in requests per second. */
const MIN_RATE = 0.2;
/** Above this adaptive rate the pacer stops pacing until the next 429. */
const MAX_RATE = 1000;

/**
 * Decides when the next request may be sent. With a rate limit it keeps a sliding log of send times;
 * without one it sends freely until the first 429, then paces adaptively (AIMD): the rate halves on
 * each 429 and grows by about one request per second for every second of successes. A Retry-After
 * holds every sender, not only the request that was throttled.
 */
export class Pacer {
  private readonly clock: Clock;
  private readonly limit?: RateLimit;
  /** With a rate limit, the sends of the last window; without, of the last second (the rate at a 429). */
  private readonly window: SlidingWindow;
  private tail: Promise<unknown> = Promise.resolve();
  private pauseUntil = 0;
  /** Adaptive mode: requests per second, Infinity while unpaced. */
  private rate = Number.POSITIVE_INFINITY;
  private lastSentAt = Number.NEGATIVE_INFINITY;
  private lastDecreaseAt = Number.NEGATIVE_INFINITY;

  constructor(opts: PacerOptions) {
    this.clock = opts.clock;
    if (opts.rateLimit) {
      const { requests, perSeconds } = opts.rateLimit;
      if (!(Number.isInteger(requests) && requests >= 1 && perSeconds > 0)) {
        throw new RangeError(`invalid rate limit ${requests}/${perSeconds}`);
      }
      this.limit = opts.rateLimit;
    }
    this.window = opts.rateLimit
      ? new SlidingWindow(opts.rateLimit.requests, opts.rateLimit.perSeconds * 1000 + (opts.marginMs ?? 0))
      : new SlidingWindow(Number.POSITIVE_INFINITY, 1000);
  }

  /**
   * Waits for a send slot (in arrival order) and returns the send time it was granted. Once `signal`
   * aborts, the wait ends with the signal's reason and takes no slot.
   */
  acquire(signal?: AbortSignal): Promise<number> {
    const turn = this.tail.then(() => this.waitForSlot(signal));
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** A 429 came back for a request sent at `sentAt`. */
  onThrottled(sentAt: number, retryAfterMs?: number): void {
    const now = this.clock.now();
    if (retryAfterMs !== undefined) this.pauseUntil = Math.max(this.pauseUntil, now + retryAfterMs);
    if (this.limit) return;
    // Requests sent before the last decrease were already paid for by it (one decrease per round).
    if (sentAt <= this.lastDecreaseAt) return;
    const current = Number.isFinite(this.rate) ? this.rate : this.observedRate(now);
    this.rate = Math.max(MIN_RATE, current / 2);
    this.lastDecreaseAt = now;
  }

  onSuccess(): void {
    if (this.limit || !Number.isFinite(this.rate)) return;
    this.rate += 1 / this.rate;
    if (this.rate > MAX_RATE) this.rate = Number.POSITIVE_INFINITY;
  }

  /** The adaptive rate in requests per second (Infinity while unpaced); for tests and --stats. */
  get currentRate(): number {
    return this.limit ? this.limit.requests / this.limit.perSeconds : this.rate;
  }

  private async waitForSlot(signal?: AbortSignal): Promise<number> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.clock.now();
      if (now < this.pauseUntil) {
        await this.clock.sleep(this.pauseUntil - now, signal);
        continue;
      }
      const wait = this.limit ? this.window.wait(now) : this.adaptiveWait(now);
      if (wait <= 0) {
        this.record(now);
        return now;
      }
      await this.clock.sleep(wait, signal);
    }
  }

  private adaptiveWait(now: number): number {
    if (!Number.isFinite(this.rate)) return 0;
    return this.lastSentAt + 1000 / this.rate - now;
  }

  private record(now: number): void {
    this.lastSentAt = now;
    this.window.record(now);
  }

  private observedRate(now: number): number {
    return Math.max(1, this.window.count(now));
  }
}
