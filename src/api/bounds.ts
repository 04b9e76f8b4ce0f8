// What ends an attempt that the service does not answer: its own --timeout, and the run's silence
// (twice --timeout without an answer to any request), which also says on stderr what the run waits for.

import { count } from '../plural.js';
import type { Clock } from './clock.js';
import { formatSeconds as seconds } from './errors.js';
import { SILENT_TIMEOUTS, SilenceWatch } from './silence.js';

/**
 * An attempt ended because the service has answered nothing for SILENT_TIMEOUTS times --timeout,
 * counted across the run's requests: the run gives up on the service.
 */
export class SilentServiceError extends Error {
  override name = 'SilentServiceError';
  readonly code = 'ACCORD_TIMEOUT';
  /** False when the attempt was not sent, the silence having run out before it. */
  readonly sent: boolean;
  constructor(silentMs: number, sent: boolean) {
    super(`no answer to any request for ${seconds(silentMs)}`);
    this.sent = sent;
  }
}

/** An attempt that did not end within --timeout (its code is the one a retry is counted by). */
export class AttemptTimeoutError extends Error {
  override name = 'AttemptTimeoutError';
  readonly code = 'ACCORD_TIMEOUT';
  constructor(timeoutMs: number) {
    super(`no complete answer within ${seconds(timeoutMs)}`);
  }
}

/** The run's silence watch, telling `waiting` (when given) every so often what the run waits for. */
export function silenceWatchFor(
  origin: string,
  timeoutMs: number,
  clock: Clock,
  waiting: ((line: string) => void) | undefined,
): SilenceWatch {
  const limitMs = SILENT_TIMEOUTS * timeoutMs;
  const say = (silentMs: number, requests: string[]) => {
    const [first, ...more] = requests;
    const others = more.length > 0 ? ` and ${count(more.length, 'other request')}` : '';
    waiting?.(
      `Waiting for ${origin} to answer ${first}${others}: no answer for ${Math.round(silentMs / 1000)} s; ` +
        `accord gives up after ${seconds(limitMs)} without one (twice --timeout ${seconds(timeoutMs)}).`,
    );
  };
  return new SilenceWatch({ limitMs, now: () => clock.now(), ...(waiting ? { waiting: say } : {}) });
}

/**
 * Aborts `bound` once the run has been silent too long. The silence is the run's, not this attempt's:
 * an answer to another request pushes its end away. Returns what stops the watch.
 */
export function abortOnSilence(silence: SilenceWatch, bound: AbortController): () => void {
  let timer: NodeJS.Timeout | undefined;
  const watch = () => {
    const left = silence.leftMs();
    if (left <= 0) bound.abort(new SilentServiceError(silence.silentMs(), true));
    else timer = setTimeout(watch, left);
  };
  watch();
  return () => clearTimeout(timer);
}
