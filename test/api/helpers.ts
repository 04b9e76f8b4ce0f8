import { MockAgent } from 'undici';
import { ApiClient, type ApiClientOptions } from '../../src/api/client.js';
import type { Clock } from '../../src/api/clock.js';

export const ORIGIN = 'https://api.test';
export const KEY = 'key_sEcReT123456789abcdefXYZ';

/**
 * Virtual time: sleepers wake in time order, and time moves only once nothing else is going on (a few
 * event-loop turns without activity), so a request in flight sees the time it was sent at.
 */
export class FakeClock implements Clock {
  t = 0;
  readonly sleeps: number[] = [];
  private timers: Array<{ at: number; seq: number; resolve: () => void }> = [];
  private seq = 0;
  private running = false;

  now = (): number => this.t;

  sleep = (ms: number): Promise<void> => {
    this.sleeps.push(ms);
    return new Promise((resolve) => {
      this.timers.push({ at: this.t + Math.max(0, ms), seq: this.seq++, resolve });
      void this.run();
    });
  };

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    while (this.timers.length > 0) {
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers.shift();
      if (!next) break;
      this.t = Math.max(this.t, next.at);
      next.resolve();
    }
    this.running = false;
  }
}

export interface Harness {
  agent: MockAgent;
  pool: ReturnType<MockAgent['get']>;
  clock: FakeClock;
  client: ApiClient;
  traces: string[];
}

export function harness(opts: Partial<ApiClientOptions> = {}): Harness {
  const agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  const clock = new FakeClock();
  const traces: string[] = [];
  const client = new ApiClient({
    baseUrl: ORIGIN,
    apiKey: KEY,
    dispatcher: agent,
    clock,
    random: () => 0.5,
    trace: (line) => traces.push(line),
    ...opts,
  });
  return { agent, pool: agent.get(ORIGIN), clock, client, traces };
}

/** The largest number of times that fall in any window of `windowMs` (a window is [t, t + windowMs)). */
export function maxInWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

export const json = { headers: { 'content-type': 'application/json' } };

export function apiErrorBody(status: number, code: string, msg: string, op = 'op_123'): object {
  return { error_code: code, status_code: status, msg, details: { operation_id: op } };
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
