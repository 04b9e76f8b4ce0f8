// At most `size` events in any window of `windowMs` milliseconds, kept as a log of their times: the
// client's pacer under a known rate limit. `accord serve --rate-limit` counts with its own
// (src/server/window.ts).

export class SlidingWindow {
  private readonly times: number[] = [];

  constructor(
    /** Events the window holds; a learned limit may lower it. */
    public size: number,
    readonly windowMs: number,
  ) {}

  /** Milliseconds from `now` until one more event fits (0: it fits now). */
  wait(now: number): number {
    this.forget(now);
    return this.times.length < this.size ? 0 : this.times[0]! + this.windowMs - now;
  }

  /** How many events the window that ends at `now` holds. */
  count(now: number): number {
    this.forget(now);
    return this.times.length;
  }

  record(now: number): void {
    this.times.push(now);
  }

  /** Takes back one event recorded at `at` (the latest such), if the window still holds it. */
  remove(at: number): void {
    const i = this.times.lastIndexOf(at);
    if (i >= 0) this.times.splice(i, 1);
  }

  private forget(now: number): void {
    // The same sum as wait's, so that an event leaves exactly when wait says a slot is free (with
    // fractional times, `t <= now - windowMs` and `t + windowMs - now <= 0` can disagree).
    while (this.times.length > 0 && this.times[0]! + this.windowMs <= now) this.times.shift();
  }
}
