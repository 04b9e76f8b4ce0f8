import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ApiClient, type ApiClientOptions } from '../api/client.js';
import type { RateLimit } from '../api/pacer.js';
import { MIN_API_KEY_LENGTH } from '../api/redact.js';
import type { ApiStats } from '../api/stats.js';
import { AccordError } from '../errors.js';
import { count } from '../plural.js';
import type { ConnectionArgs } from './connection-options.js';
import type { Io } from './io.js';

export { type ConnectionArgs, connectionOptions } from './connection-options.js';

/** A connection option or the key is missing or unusable. The key's value is never shown. */
export class ConnectionConfigError extends AccordError {
  override name = 'ConnectionConfigError';
  static override readonly code = 'ACCORD_CONNECTION_CONFIG';
}

/** Longest --timeout, and longest --rate-limit window: a day, well inside what a timer can wait. */
const MAX_TIMEOUT_SECONDS = 86_400;
/** Most requests one --rate-limit window may allow. */
const MAX_RATE_REQUESTS = 1_000_000;

/**
 * Builds the one ApiClient of a run from the parsed options and the environment. `seams` lets tests
 * inject a clock or dispatcher.
 */
export function createClient(argv: ConnectionArgs, io: Io, seams: Partial<ApiClientOptions> = {}): ApiClient {
  const baseUrl = apiUrl(argv, io);
  const apiKey = readApiKey(argv, io);
  io.secrets?.add(apiKey);
  warnIfShort(apiKey, argv, io);
  const { parallelism } = argv;
  if (
    parallelism !== undefined &&
    !(Number.isInteger(parallelism) && parallelism >= 1 && parallelism <= 64)
  ) {
    throw new ConnectionConfigError(
      `--parallelism must be a whole number from 1 to 64, got ${argv.parallelism}.`,
    );
  }
  if (!(argv.timeout > 0 && argv.timeout <= MAX_TIMEOUT_SECONDS)) {
    throw new ConnectionConfigError(
      `--timeout must be a positive number of seconds, at most ${MAX_TIMEOUT_SECONDS} (a day), got ${argv.timeout}.`,
    );
  }
  if (!(argv.deadline > 0)) {
    throw new ConnectionConfigError(`--deadline must be a positive number of seconds, got ${argv.deadline}.`);
  }
  const maxPages = argv['max-pages'];
  if (maxPages !== undefined && (!Number.isInteger(maxPages) || maxPages < 1)) {
    throw new ConnectionConfigError(`--max-pages must be a whole number of at least 1, got ${maxPages}.`);
  }
  const rateLimit = argv['rate-limit'] === undefined ? undefined : parseRateLimit(argv['rate-limit']);
  return new ApiClient({
    baseUrl,
    apiKey,
    ...(parallelism !== undefined ? { parallelism } : {}),
    timeoutMs: argv.timeout * 1000,
    deadlineMs: argv.deadline * 1000,
    ...(maxPages !== undefined ? { maxPages } : {}),
    ...(rateLimit ? { rateLimit } : {}),
    waiting: (line: string) => io.stderr(`${line}\n`),
    ...(argv.verbose
      ? { trace: (line: string) => io.stderr(`[api] ${line}\n`) }
      : { notice: (line: string) => io.stderr(`Note: ${line}\n`) }),
    ...seams,
  });
}

/**
 * Runs `fn` with a client, then prints `--stats` (also when `fn` fails) and closes the client.
 */
export async function withClient<R>(
  argv: ConnectionArgs,
  io: Io,
  fn: (client: ApiClient) => Promise<R>,
): Promise<R> {
  const client = createClient(argv, io);
  try {
    return await fn(client);
  } finally {
    await client.close();
    if (argv.stats) printStats(client.stats, io);
  }
}

/** `--stats`: requests by method and status, retries, bytes and wall time, on stderr. */
export function printStats(stats: ApiStats, io: Io): void {
  const s = stats.snapshot();
  const methods = Object.entries(s.requests).map(([method, statuses]) => {
    const total = Object.values(statuses).reduce((a, b) => a + b, 0);
    const detail = Object.entries(statuses)
      .map(([status, n]) => `${status}: ${n}`)
      .join(', ');
    return `  ${method.padEnd(6)} ${String(total).padStart(6)}  (${detail})`;
  });
  io.stderr(
    [
      `API requests: ${s.totalRequests} (${s.retries} retries) in ${(s.wallTimeMs / 1000).toFixed(2)} s`,
      ...methods,
      `  sent ${s.bytesSent} bytes, received ${s.bytesReceived} bytes`,
      '',
    ].join('\n'),
  );
}

export function parseRateLimit(text: string): RateLimit {
  const m = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
  const requests = m ? Number(m[1]) : Number.NaN;
  const perSeconds = m ? Number(m[2]) : Number.NaN;
  if (
    !(requests >= 1 && requests <= MAX_RATE_REQUESTS && perSeconds > 0 && perSeconds <= MAX_TIMEOUT_SECONDS)
  ) {
    throw new ConnectionConfigError(
      `--rate-limit "${text}" is not N/S with N from 1 to ${MAX_RATE_REQUESTS} and S positive and at most ` +
        `${MAX_TIMEOUT_SECONDS} (a day), e.g. 120/60 for 120 requests a minute.`,
    );
  }
  return { requests, perSeconds };
}

function apiUrl(argv: ConnectionArgs, io: Io): string {
  const raw = argv['api-url'] ?? io.env.ACCORD_API_URL;
  const where = argv['api-url'] !== undefined ? '--api-url' : 'ACCORD_API_URL';
  if (raw === undefined || raw.trim() === '') {
    throw new ConnectionConfigError(
      'No API URL: pass --api-url or set ACCORD_API_URL (for a local service started with accord serve, ' +
        'the URL it prints).',
    );
  }
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConnectionConfigError(`${where} "${raw}" is not a URL; give one like https://api.example.com.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConnectionConfigError(`${where} must be an http or https URL, got ${url.protocol}.`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new ConnectionConfigError(
      `${where} must not hold credentials; give the key through ACCORD_API_KEY or --api-key-file.`,
    );
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ConnectionConfigError(`${where} must not have a query or fragment.`);
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    io.stderr(`Warning: ${where} uses plain http to ${url.host}; the API key travels unencrypted.\n`);
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * A key shorter than any real one is most likely cut short (a partial paste, a variable that held
 * something else), or a local test key: said once, on stderr, without the key.
 */
function warnIfShort(apiKey: string, argv: ConnectionArgs, io: Io): void {
  if (apiKey.length >= MIN_API_KEY_LENGTH) return;
  const where =
    argv['api-key-file'] === undefined ? 'ACCORD_API_KEY' : `--api-key-file ${argv['api-key-file']}`;
  io.stderr(
    `Warning: the API key in ${where} is ${count(apiKey.length, 'character')} long, shorter than any real key ` +
      `(at least ${MIN_API_KEY_LENGTH}); if the service refuses it, check that ${where} holds the whole key.\n`,
  );
}

function readApiKey(argv: ConnectionArgs, io: Io): string {
  const file = argv['api-key-file'];
  if (file === undefined) {
    const key = io.env.ACCORD_API_KEY?.trim();
    if (!key) {
      throw new ConnectionConfigError('No API key: set ACCORD_API_KEY or pass --api-key-file FILE.');
    }
    return key;
  }
  const path = resolve(io.cwd, file);
  let text: string;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw Object.assign(new Error('not a file'), { code: 'ENOTFILE' });
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
      const mode = (st.mode & 0o777).toString(8).padStart(3, '0');
      throw new ConnectionConfigError(
        `--api-key-file ${file} can be read by other users (mode ${mode}); run chmod 600 ${file} and try again.`,
      );
    }
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof ConnectionConfigError) throw err;
    const code = (err as { code?: string }).code ?? 'error';
    const why =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'is not readable by this user'
          : code === 'ENOTFILE' || code === 'EISDIR'
            ? 'is not a regular file'
            : `cannot be read (${code})`;
    throw new ConnectionConfigError(
      `--api-key-file ${file} ${why}; give a file that holds only the API key.`,
      { cause: err },
    );
  }
  const key = text.trim();
  if (key === '') {
    throw new ConnectionConfigError(`--api-key-file ${file} is empty; put the API key in it.`);
  }
  if (/\s/.test(key)) {
    throw new ConnectionConfigError(
      `--api-key-file ${file} holds more than one word or line; it must hold only the API key.`,
    );
  }
  return key;
}
