// What a command saves to a file goes through the run's secrets like what it prints (src/cli/main.ts
// redacts stdout and stderr): a service that returns the API key in resource data must not get it
// written into a plan, an export or a job summary.
import type { Io } from './io.js';

/** `text` without the run's secrets, for a file. */
export function redacted(io: Io, text: string): string {
  return io.secrets ? io.secrets.redact(text) : text;
}
