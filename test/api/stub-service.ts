// A service as the client's dispatcher sees it, on virtual time (vi.useFakeTimers): it hangs, stalls
// after its headers, trickles its body or answers, per request. No socket, so nothing waits on real time.
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';

export type Behaviour =
  | { kind: 'hang' }
  | { kind: 'stall-after-headers' }
  | { kind: 'trickle'; everyMs: number }
  | { kind: 'answer'; status: number; body: string; afterMs?: number };

export interface StubService {
  dispatcher: Dispatcher;
  /** Each request's method and path, in the order sent. */
  requests: string[];
}

export function stubService(behave: (method: string, path: string) => Behaviour): StubService {
  const requests: string[] = [];
  const dispatcher = {
    request(opts: { method: string; path: string; signal?: AbortSignal }) {
      requests.push(`${opts.method} ${opts.path}`);
      const signal = opts.signal;
      const b = behave(opts.method, opts.path);
      return new Promise((resolve, reject) => {
        const abort = () => reject(signal?.reason);
        if (signal?.aborted) return abort();
        signal?.addEventListener('abort', abort, { once: true });
        if (b.kind === 'hang') return;
        if (b.kind === 'answer') {
          setTimeout(
            () => resolve({ statusCode: b.status, headers: {}, body: Readable.from([Buffer.from(b.body)]) }),
            b.afterMs ?? 0,
          );
          return;
        }
        // Headers at once, then a body that never ends: nothing more, or a space every `everyMs`.
        const body = new Readable({ read() {} });
        if (b.kind === 'trickle') {
          const timer = setInterval(() => body.push(' '), b.everyMs);
          body.on('close', () => clearInterval(timer));
        }
        signal?.addEventListener('abort', () => body.destroy(signal.reason), { once: true });
        resolve({ statusCode: 200, headers: {}, body });
      });
    },
    close: async () => {},
  };
  return { dispatcher: dispatcher as unknown as Dispatcher, requests };
}

/** Advances virtual time in steps until `settled` says the work is done; returns the time it took. */
export async function runUntil(
  vi: { advanceTimersByTimeAsync(ms: number): Promise<unknown> },
  settled: () => boolean,
  { stepMs = 100, maxMs = 3_600_000 } = {},
): Promise<number> {
  const start = Date.now();
  while (!settled()) {
    if (Date.now() - start > maxMs) throw new Error(`still running after ${maxMs} ms of virtual time`);
    await vi.advanceTimersByTimeAsync(stepMs);
  }
  return Date.now() - start;
}

/** Runs `work` to its end on virtual time: what it returned or threw, and when. */
export async function settle(
  vi: { advanceTimersByTimeAsync(ms: number): Promise<unknown> },
  work: Promise<unknown>,
  stepMs = 100,
): Promise<{ result: unknown; ms: number }> {
  let done = false;
  let result: unknown;
  void work.then(
    (r) => {
      result = r;
      done = true;
    },
    (e: unknown) => {
      result = e;
      done = true;
    },
  );
  const ms = await runUntil(vi, () => done, { stepMs });
  return { result, ms };
}
