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
   * Added to the window, so that requests that travel at different speeds still arrive within the
   * service's budget. A learned window adds the slowest answer it was learned from when that is
   * longer (at most a tenth of the window): how much later one request may arrive than another.
   */
  marginMs?: number;
  /**
   * While the limit is unknown, at most this many sends wait for their answer at once. Every send
   * under way when the service's window fills is turned away, so this bounds the 429s of that moment.
   */
  inFlightWhileUnknown?: number;
}

/** A send the pacer granted. Hand it back to `settle` exactly once, when its answer is known. */
export interface Send {
  readonly sentAt: number;
  /** Grants are numbered from 0 in the order they were made. */
  readonly seq: number;
}

interface Sent {
  readonly seq: number;
  readonly at: number;
  throttled: boolean;
  /** From the send to its answer, once answered. */
  roundTripMs?: number;
}

/** Lowest adaptive rate, in requests per second. */
const MIN_RATE = 0.2;
/** Above this adaptive rate the pacer stops pacing until the next 429. */
const MAX_RATE = 1000;
/** Sends remembered to learn a limit from: far more than one window of any service this is for. */
const MAX_LOG = 10_000;

/**
 * Decides when the next request may be sent.
 *
 * With a rate limit it keeps a sliding log of send times. Without one it sends freely until the first
 * 429, and learns the service's window from it: the window holds the sends that were let through
 * before it (N), and a slot frees when the first of them leaves it, so its length is at least the time
 * since that send plus Retry-After (W; Retry-After is rounded up, so W is never too short). From then
 * on it paces by N sends in any W plus a margin, as with a given limit. A later 429 for a send made
 * under the learned window learns again, never faster: one send fewer, in a window no shorter. A 429
 * without Retry-After says nothing about the window; it switches to AIMD instead: the rate halves on
 * each 429 and grows by about one request per second for every second of successes.
 *
 * Every send under way when the window fills is turned away; `inFlightWhileUnknown` bounds them until
 * the limit is known. A Retry-After holds every sender, not only the request that was throttled.
 */
export class Pacer {
  private readonly clock: Clock;
  private readonly given: boolean;
  private readonly marginMs: number;
  private readonly inFlightCap: number;
  /** The limit in force, given or learned; undefined while the limit is unknown. */
  private window: SlidingWindow | undefined;
  /** Sends under way when the window was learned, counted in its budget as let through. */
  private countedUnderWay = new Set<number>();
  /** The learned window's length, without the margin. */
  private learnedMs = 0;
  /** Until then the learned window has not yet gone a whole window without a 429. */
  private trialUntil = 0;
  /** Sends granted before this one were under way when the limit was last learned. */
  private edgeSeq = 0;
  /** The first send a learning may count: a 429 that finds none let through starts over after it. */
  private burstSeq = 0;
  /** The most recent sends and whether each was turned away (at most MAX_LOG). */
  private readonly log: Sent[] = [];
  private seq = 0;
  private inFlight = 0;
  private answered: (() => void) | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private pauseUntil = 0;
  /** AIMD, after a 429 without Retry-After while the limit was unknown. */
  private adaptive = false;
  /** Adaptive mode: requests per second, Infinity while unpaced. */
  private rate = Number.POSITIVE_INFINITY;
  private lastSentAt = Number.NEGATIVE_INFINITY;
  private lastDecreaseSeq = 0;

  constructor(opts: PacerOptions) {
    this.clock = opts.clock;
    this.marginMs = opts.marginMs ?? 0;
    this.inFlightCap = opts.inFlightWhileUnknown ?? Number.POSITIVE_INFINITY;
    if (!(this.inFlightCap >= 1)) {
      throw new RangeError(`invalid in-flight cap ${opts.inFlightWhileUnknown}`);
    }
    this.given = opts.rateLimit !== undefined;
    if (opts.rateLimit) {
      const { requests, perSeconds } = opts.rateLimit;
      if (!(Number.isInteger(requests) && requests >= 1 && perSeconds > 0)) {
        throw new RangeError(`invalid rate limit ${requests}/${perSeconds}`);
      }
      this.window = new SlidingWindow(requests, perSeconds * 1000 + this.marginMs);
    }
  }

  /**
   * Waits for a send slot (in arrival order) and returns the send it was granted. Once `signal`
   * aborts, the wait ends with the signal's reason and takes no slot.
   */
  acquire(signal?: AbortSignal): Promise<Send> {
    const turn = this.tail.then(() => this.waitForSlot(signal));
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /**
   * The answer to a send: its HTTP status, or undefined when none came (the connection failed), and
   * for a 429 its Retry-After in milliseconds.
   */
  settle(send: Send, status?: number, retryAfterMs?: number): void {
    this.inFlight--;
    if (status !== undefined) {
      const sent = this.sent(send);
      if (sent) sent.roundTripMs = this.clock.now() - send.sentAt;
    }
    if (status === 429) this.onThrottled(send, retryAfterMs);
    else if (status !== undefined && status >= 200 && status < 300) this.onSuccess();
    const wake = this.answered;
    this.answered = undefined;
    wake?.();
  }

  private onThrottled(send: Send, retryAfterMs: number | undefined): void {
    const now = this.clock.now();
    if (retryAfterMs !== undefined) this.pauseUntil = Math.max(this.pauseUntil, now + retryAfterMs);
    // The service did not count it.
    const sent = this.sent(send);
    if (sent) sent.throttled = true;
    this.window?.remove(send.sentAt);
    if (this.given) return;
    if (send.seq < this.edgeSeq) {
      // Under way at the edge, and counted in the budget as let through: it was not.
      if (this.window && this.countedUnderWay.delete(send.seq)) {
        this.window.size = Math.max(1, this.window.size - 1);
      }
      return;
    }
    if (this.window) this.learnAgain(send, now, retryAfterMs ?? 0);
    else if (retryAfterMs === undefined || this.adaptive) this.slowDown(send, now);
    else if (!this.learn(this.burstSeq, send, now + retryAfterMs)) {
      // Nothing was let through (an earlier run may have used the window): learn from what follows.
      this.burstSeq = this.seq;
    }
  }

  private onSuccess(): void {
    if (!this.adaptive || !Number.isFinite(this.rate)) return;
    this.rate += 1 / this.rate;
    if (this.rate > MAX_RATE) this.rate = Number.POSITIVE_INFINITY;
  }

  /**
   * Learns the window from the sends from `fromSeq` up to the throttled one that were let through,
   * given that a slot frees at `freeAt`. Returns false when there were none to learn from.
   */
  private learn(
    fromSeq: number,
    send: Send,
    freeAt: number,
    most = Number.POSITIVE_INFINITY,
    least = 0,
  ): boolean {
    const counted = this.log.filter((s) => s.seq >= fromSeq && !s.throttled);
    // Let through: those already answered, and those still under way that were sent before it (a
    // request may overtake another on the way, but most arrive in the order they were sent). When only
    // later sends are under way, one of them got through or nothing did: count them.
    let before = counted.filter((s) => s.seq < send.seq || s.roundTripMs !== undefined);
    if (before.length === 0) before = counted;
    const first = before[0];
    if (!first) return false;
    this.countedUnderWay = new Set(before.filter((s) => s.roundTripMs === undefined).map((s) => s.seq));
    const requests = Math.max(1, Math.min(most, before.length));
    const windowMs = Math.max(least, freeAt - first.at);
    const slowest = before.reduce((most, s) => Math.max(most, s.roundTripMs ?? 0), 0);
    const marginMs = Math.max(this.marginMs, Math.ceil(Math.min(slowest, windowMs / 10)));
    this.learnedMs = windowMs;
    this.window = new SlidingWindow(requests, windowMs + marginMs);
    // Sends still under way count until they come back turned away.
    for (const s of counted) this.window.record(s.at);
    this.edgeSeq = this.seq;
    this.trialUntil = freeAt + windowMs + marginMs;
    return true;
  }

  /**
   * A send made under the learned window was turned away, so the window was too loose: learn it again
   * from the sends it holds, with at least one send fewer and no shorter.
   */
  private learnAgain(send: Send, now: number, retryAfterMs: number): void {
    const { size, windowMs } = this.window!;
    const oldest = this.log.find((s) => s.at > now - windowMs && !s.throttled);
    this.learn(oldest?.seq ?? send.seq, send, now + retryAfterMs, size - 1, this.learnedMs);
  }

  /** AIMD's decrease: requests sent before the last decrease were already paid for by it. */
  private slowDown(send: Send, now: number): void {
    this.adaptive = true;
    if (send.seq < this.lastDecreaseSeq) return;
    const current = Number.isFinite(this.rate) ? this.rate : this.observedRate(now);
    this.rate = Math.max(MIN_RATE, current / 2);
    this.lastDecreaseSeq = this.seq;
  }

  private async waitForSlot(signal?: AbortSignal): Promise<Send> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.clock.now();
      if (now < this.pauseUntil) {
        await this.clock.sleep(this.pauseUntil - now, signal);
        continue;
      }
      if (this.inFlight >= this.inFlightCap && this.unsure(now)) {
        await this.nextAnswer(signal);
        continue;
      }
      const wait = this.window ? this.window.wait(now) : this.adaptiveWait(now);
      if (wait <= 0) return this.grant(now);
      await this.clock.sleep(wait, signal);
    }
  }

  /** The limit is unknown, or learned and not yet through a whole window without a 429. */
  private unsure(now: number): boolean {
    return !this.given && (this.window === undefined || now < this.trialUntil);
  }

  private nextAnswer(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.answered = done;
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private adaptiveWait(now: number): number {
    if (!Number.isFinite(this.rate)) return 0;
    return this.lastSentAt + 1000 / this.rate - now;
  }

  private grant(now: number): Send {
    const send = { sentAt: now, seq: this.seq++ };
    this.inFlight++;
    this.lastSentAt = now;
    this.window?.record(now);
    this.log.push({ seq: send.seq, at: now, throttled: false });
    if (this.log.length > MAX_LOG) this.log.shift();
    return send;
  }

  private sent(send: Send): Sent | undefined {
    // Answers come back roughly in order: look from the latest send back.
    for (let i = this.log.length - 1; i >= 0; i--) {
      const s = this.log[i]!;
      if (s.seq === send.seq) return s;
      if (s.seq < send.seq) return undefined;
    }
    return undefined;
  }

  /** Sends of the last second, the rate at a first 429 without Retry-After. */
  private observedRate(now: number): number {
    let count = 0;
    for (let i = this.log.length - 1; i >= 0 && this.log[i]!.at > now - 1000; i--) count++;
    return Math.max(1, count);
  }
}
