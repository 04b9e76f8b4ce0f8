import type { Clock } from './clock.js';

/** Outcome of one attempt: an HTTP status, or `error` when no response came back. */
export type AttemptOutcome = number | 'error';

export interface ApiStatsSnapshot {
  /** Attempts by method, then by status (or `error`); retries are attempts too. */
  requests: Record<string, Record<string, number>>;
  totalRequests: number;
  retries: number;
  bytesSent: number;
  bytesReceived: number;
  wallTimeMs: number;
}

/** Counters for `--stats`. Every attempt on the wire counts, including retries. */
export class ApiStats {
  private readonly byMethod = new Map<string, Map<string, number>>();
  retries = 0;
  bytesSent = 0;
  bytesReceived = 0;
  private readonly startedAt: number;
  private stoppedAt?: number;

  constructor(private readonly clock: Clock) {
    this.startedAt = clock.now();
  }

  recordAttempt(method: string, outcome: AttemptOutcome): void {
    let statuses = this.byMethod.get(method);
    if (!statuses) {
      statuses = new Map();
      this.byMethod.set(method, statuses);
    }
    const key = String(outcome);
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  }

  /** Attempts made, optionally only of one method and/or one status. */
  count(method?: string, outcome?: AttemptOutcome): number {
    let total = 0;
    for (const [m, statuses] of this.byMethod) {
      if (method !== undefined && m !== method) continue;
      for (const [s, n] of statuses) if (outcome === undefined || s === String(outcome)) total += n;
    }
    return total;
  }

  get wallTimeMs(): number {
    return (this.stoppedAt ?? this.clock.now()) - this.startedAt;
  }

  stop(): void {
    this.stoppedAt ??= this.clock.now();
  }

  snapshot(): ApiStatsSnapshot {
    const requests: Record<string, Record<string, number>> = {};
    for (const [m, statuses] of [...this.byMethod].sort(([a], [b]) => a.localeCompare(b))) {
      requests[m] = Object.fromEntries([...statuses].sort(([a], [b]) => a.localeCompare(b)));
    }
    return {
      requests,
      totalRequests: this.count(),
      retries: this.retries,
      bytesSent: this.bytesSent,
      bytesReceived: this.bytesReceived,
      wallTimeMs: this.wallTimeMs,
    };
  }
}
