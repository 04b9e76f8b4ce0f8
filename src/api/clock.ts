/** Time as the client sees it. Injected so that tests can run retries and pacing without real waits. */
export interface Clock {
  /** Milliseconds, monotonic enough for pacing (Date.now() in production). */
  now(): number;
  /** Resolves after `ms`, or early once `signal` aborts (so that closing the client ends its waits). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
    }),
};
