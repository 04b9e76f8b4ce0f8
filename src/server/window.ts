// `accord serve --rate-limit`: the requests one API key made in the last window. The service keeps its
// own count rather than the client's pacing window (src/api/window.ts): it is the oracle the client's
// pacing is tested against, and a window the two shared would hide a bug they shared (STYLE.md).

/** The times of the requests one key was let through, kept while they are inside the window. */
export class RequestLog {
  private readonly times: number[] = [];

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /**
   * Lets one request at `nowMs` through and records it (0), or, when `limit` requests are already in
   * the window that ends at `nowMs`, records nothing and gives the milliseconds until the oldest leaves.
   */
  admit(nowMs: number): number {
    // A request made at t counts until t + windowMs, exclusive.
    let oldest = this.times[0];
    while (oldest !== undefined && oldest + this.windowMs <= nowMs) {
      this.times.shift();
      oldest = this.times[0];
    }
    if (oldest !== undefined && this.times.length >= this.limit) return oldest + this.windowMs - nowMs;
    this.times.push(nowMs);
    return 0;
  }
}
