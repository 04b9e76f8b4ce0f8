// The yargs options of the commands that talk to the API. Kept apart from connection.ts, which loads
// the HTTP client, so that registering commands stays cheap for every run of the CLI.
import type { Argv } from 'yargs';

/** Options shared by every command that talks to the API (plan, apply, export). */
export interface ConnectionArgs {
  'api-url'?: string;
  'api-key-file'?: string;
  /** Unset: the client's default (4, and 2 while the service's rate limit is unknown). */
  parallelism?: number;
  'rate-limit'?: string;
  timeout: number;
  deadline: number;
  'max-pages'?: number;
  stats: boolean;
  verbose?: boolean;
}

export function connectionOptions<T>(y: Argv<T>): Argv<T & ConnectionArgs> {
  return y
    .option('api-url', {
      type: 'string',
      describe: 'Base URL of the API (default: $ACCORD_API_URL)',
    })
    .option('api-key-file', {
      type: 'string',
      describe: 'File holding the API key, mode 600 (default: the key in $ACCORD_API_KEY)',
    })
    .option('parallelism', {
      type: 'number',
      describe: "Requests in flight at once (default 4; 2 until the service's rate limit is known)",
    })
    .option('rate-limit', {
      type: 'string',
      describe: 'Send at most N requests in any S seconds, as N/S (e.g. 120/60)',
    })
    .option('timeout', {
      type: 'number',
      default: 25,
      describe:
        'Seconds one request may take, from connecting to the end of its answer; twice this without any answer and accord gives up',
    })
    .option('deadline', {
      type: 'number',
      default: 300,
      describe: 'Seconds after which no failed request is tried again',
    })
    .option('max-pages', {
      type: 'number',
      describe: 'Pages of 100 one listing may take before it is stopped as endless (default 10000)',
    })
    .option('stats', {
      type: 'boolean',
      default: false,
      describe: 'Print request counts and timing to stderr',
    })
    .group(
      ['api-url', 'api-key-file', 'parallelism', 'rate-limit', 'timeout', 'deadline', 'max-pages', 'stats'],
      'Connection:',
    ) as Argv<T & ConnectionArgs>;
}
