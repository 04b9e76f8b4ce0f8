// How long the service has answered nothing while requests wait on it. --timeout bounds one attempt, but
// a run sends many requests, and each may be tried three times: a service that accepts connections and
// never answers would hold a run for many times --timeout. The silence is counted across all requests,
// so that such a service is given up on after one bound for the whole run, and the waiting is said on
// stderr as it goes.

/** Lines about the waiting come this often while the service is silent. */
export const WAITING_LINE_EVERY_MS = 10_000;

/** How many times --timeout the service may stay silent before the run gives up on it (messages say "twice"). */
export const SILENT_TIMEOUTS = 2;

export interface SilenceOptions {
  /** The silence after which the run gives up. */
  limitMs: number;
  now: () => number;
  /** Told every WAITING_LINE_EVERY_MS of silence what is waited for; undefined: nothing is said. */
  waiting?: (silentMs: number, requests: string[]) => void;
}

/**
 * Silence is the time, since the service last answered anything, during which at least one attempt
 * was in flight: the run's own waits (backoff, pacing, a prompt) do not count, and it starts anew once
 * no request is under way.
 */
export class SilenceWatch {
  readonly limitMs: number;
  readonly #now: () => number;
  readonly #waiting?: (silentMs: number, requests: string[]) => void;
  /** Attempts in flight, by a label such as `GET /ip_policies`, with how many of each. */
  readonly #inFlight = new Map<string, number>();
  #calls = 0;
  /** Silence of earlier stretches with an attempt in flight, since the last answer. */
  #earlierMs = 0;
  /** Start of the current stretch with an attempt in flight. */
  #since: number | undefined;
  /** Waiting lines said since the last answer. */
  #said = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(opts: SilenceOptions) {
    this.limitMs = opts.limitMs;
    this.#now = opts.now;
    if (opts.waiting) this.#waiting = opts.waiting;
  }

  /** The service's silence so far, in milliseconds. */
  silentMs(): number {
    return this.#earlierMs + (this.#since === undefined ? 0 : this.#now() - this.#since);
  }

  /** How much more silence the run waits for before it gives up (0 or less: none). */
  leftMs(): number {
    return this.limitMs - this.silentMs();
  }

  /** A request is under way, from its first attempt to its answer or failure. */
  callStarted(): () => void {
    this.#calls++;
    return () => {
      this.#calls--;
      if (this.#calls === 0) this.#reset();
    };
  }

  /** An attempt is sent; the returned function says that it ended. */
  attemptStarted(label: string): () => void {
    if (this.#inFlight.size === 0) this.#since = this.#now();
    this.#inFlight.set(label, (this.#inFlight.get(label) ?? 0) + 1);
    this.#schedule();
    return () => {
      const n = (this.#inFlight.get(label) ?? 1) - 1;
      if (n > 0) this.#inFlight.set(label, n);
      else this.#inFlight.delete(label);
      if (this.#inFlight.size === 0 && this.#since !== undefined) {
        this.#earlierMs += this.#now() - this.#since;
        this.#since = undefined;
        this.#stopTimer();
      }
    };
  }

  /** The service answered (any status): it is not silent. */
  answered(): void {
    this.#earlierMs = 0;
    this.#said = 0;
    this.#since = this.#inFlight.size > 0 ? this.#now() : undefined;
    this.#schedule();
  }

  #reset(): void {
    this.#earlierMs = 0;
    this.#said = 0;
    this.#since = undefined;
    this.#stopTimer();
  }

  #schedule(): void {
    this.#stopTimer();
    if (!this.#waiting || this.#since === undefined) return;
    const next = (this.#said + 1) * WAITING_LINE_EVERY_MS;
    // The line that would come with the give-up itself says nothing the error does not.
    if (next >= this.limitMs) return;
    this.#timer = setTimeout(() => this.#say(), Math.max(0, next - this.silentMs()));
    // A line about waiting is no reason for the process to stay up.
    this.#timer.unref?.();
  }

  #say(): void {
    this.#timer = undefined;
    if (this.#since === undefined) return;
    this.#said++;
    this.#waiting?.(this.silentMs(), [...this.#inFlight.keys()]);
    this.#schedule();
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
