/** Time as the client sees it. Injected so that tests can run retries and pacing without real waits. */
export interface Clock {
  /** Milliseconds, monotonic enough for pacing (Date.now() in production). */
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
};
