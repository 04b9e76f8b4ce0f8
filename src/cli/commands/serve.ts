import type { Argv } from 'yargs';
import { MIN_API_KEY_LENGTH } from '../../api/redact.js';
import { AccordError } from '../../errors.js';
import type { CommandFactory } from '../command.js';

export class ServeUsageError extends AccordError {
  override name = 'ServeUsageError';
  static override readonly code = 'ACCORD_USAGE';
}

/** Longest --latency: a minute. */
const MAX_LATENCY_MS = 60_000;
/** --rate-limit's bounds: N requests in S seconds. */
const MAX_RATE_REQUESTS = 1_000_000;
const MAX_RATE_SECONDS = 86_400;

function parseRateLimit(value: string): { requests: number; perSeconds: number } {
  const match = /^(\d{1,7})\/(\d{1,5})$/.exec(value);
  const requests = Number(match?.[1]);
  const perSeconds = Number(match?.[2]);
  if (
    !(requests >= 1 && requests <= MAX_RATE_REQUESTS && perSeconds >= 1 && perSeconds <= MAX_RATE_SECONDS)
  ) {
    throw new ServeUsageError(
      `--rate-limit "${value}" is not N/S (N requests per S seconds, N from 1 to ${MAX_RATE_REQUESTS}, S from 1 to ${MAX_RATE_SECONDS}), e.g. 120/60`,
    );
  }
  return { requests, perSeconds };
}

/** The names `--limits` takes, and the option of startServer each sets. */
const LIMIT_NAMES = { policies: 'policies', rules_per_policy: 'rulesPerPolicy' } as const;
const MAX_LIMIT = 1_000_000;

/** `policies=N,rules_per_policy=N` (either or both) as the service's limits. */
export function parseLimits(value: string): { policies?: number; rulesPerPolicy?: number } {
  const limits: { policies?: number; rulesPerPolicy?: number } = {};
  const usage = `(policies=N,rules_per_policy=N, either or both, N from 1 to ${MAX_LIMIT}), e.g. policies=20,rules_per_policy=50`;
  for (const part of value.split(',')) {
    const match = /^([a-z_]+)=(\d{1,7})$/.exec(part.trim());
    const name = match?.[1] as keyof typeof LIMIT_NAMES | undefined;
    const n = Number(match?.[2]);
    if (!name || !Object.hasOwn(LIMIT_NAMES, name) || !(n >= 1 && n <= MAX_LIMIT)) {
      throw new ServeUsageError(`--limits "${value}": "${part.slice(0, 40)}" is not a limit ${usage}`);
    }
    if (limits[LIMIT_NAMES[name]] !== undefined) {
      throw new ServeUsageError(`--limits "${value}" sets ${name} twice; give each limit once`);
    }
    limits[LIMIT_NAMES[name]] = n;
  }
  return limits;
}

/** Resolves when the process gets SIGINT or SIGTERM (tests may pass their own signal). */
export type StopSignal = () => Promise<string>;

const processStopSignal: StopSignal = () =>
  new Promise((resolve) => {
    const stop = (signal: string) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });

export const serveCommand =
  (stopSignal: StopSignal = processStopSignal): CommandFactory =>
  (io) =>
  (y: Argv) =>
    y.command(
      'serve',
      'Run the local Account Management API service',
      (c) => serveOptions(c),
      async (argv) => {
        checkServeFlags(argv);
        const limits = argv.limits === undefined ? undefined : parseLimits(argv.limits);
        const apiKeys = serveApiKeys(argv['api-key'], io.env.ACCORD_SERVE_API_KEYS);
        // Loaded on use: fastify and SQLite would otherwise slow every other command's start.
        const { startServer } = await import('../../server/index.js');
        const server = await startServer({
          host: argv.host,
          port: argv.port,
          apiKeys,
          dataFile: argv.data,
          seed: await seedFile(argv.seed, io.cwd),
          rateLimit: argv['rate-limit'] ? parseRateLimit(argv['rate-limit']) : undefined,
          limits,
          latencyMs: argv.latency,
          faultRate: argv['fault-rate'],
          faultSeed: argv['fault-seed'],
        });
        io.stdout(`accord serve listening on ${server.url}\n`);
        if (apiKeys.length === 0) {
          io.stdout(`API key (shown once): ${server.apiKeys[0]}\n`);
        }
        const signal = await stopSignal();
        io.stderr(`${signal}: shutting down\n`);
        await server.close();
      },
    );

/**
 * The seed file: `path` from the working directory; when it has none there and accord's package ships
 * that path (examples/seed.yaml), the package's, so that the demo seed needs no clone.
 */
export async function seedFile(path: string | undefined, cwd: string): Promise<string | undefined> {
  if (path === undefined) return undefined;
  const { existsSync } = await import('node:fs');
  const { isAbsolute, resolve } = await import('node:path');
  if (existsSync(resolve(cwd, path)) || isAbsolute(path) || path.split(/[\\/]/).includes('..')) return path;
  const { packageFile } = await import('../../package-files.js');
  const shipped = packageFile(path.replaceAll('\\', '/'));
  return existsSync(shipped) ? shipped : path;
}

/** The flags of `accord serve`. */
function serveOptions<T>(c: Argv<T>) {
  return c
    .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to listen on' })
    .option('port', { type: 'number', default: 4040, describe: 'Port to listen on (0: any free port)' })
    .option('api-key', {
      type: 'string',
      describe: `API key clients must send, at least ${MIN_API_KEY_LENGTH} characters (else ACCORD_SERVE_API_KEYS, comma-separated, else a random key)`,
    })
    .option('data', { type: 'string', describe: 'SQLite file to keep data in (default: memory only)' })
    .option('seed', {
      type: 'string',
      describe:
        "YAML file of IP policies, SSH CAs and edges to preload; examples/seed.yaml (the demo objects) is accord's own when the working directory has none",
    })
    .option('rate-limit', {
      type: 'string',
      describe: 'Per-key limit N/S, e.g. 120/60 (429 beyond it)',
    })
    .option('limits', {
      type: 'string',
      describe: "The account's limits, policies=N,rules_per_policy=N (default 10000 each; beyond them 400)",
    })
    .option('latency', { type: 'number', default: 0, describe: 'Delay every request by this many ms' })
    .option('fault-rate', {
      type: 'number',
      default: 0,
      describe: 'Share of requests (0..1) that fail: 500/503, dropped connections, failures after commit',
    })
    .option('fault-seed', { type: 'number', describe: 'Seed for reproducible fault injection' })
    .example('accord serve --seed examples/seed.yaml', 'the demo objects, on port 4040, with a random key')
    .example(
      'accord serve --port 0 --api-key local-dev-key-0001 --data local.db',
      'any free port, a fixed key, data kept across restarts',
    )
    .example(
      'accord serve --rate-limit 120/60 --fault-rate 0.1',
      "rehearse against the service's limits and failures",
    );
}

/**
 * The keys the service accepts: `--api-key`, else those of ACCORD_SERVE_API_KEYS, else none (a random
 * one). A short key is refused: production keys are much longer, and the local service is where
 * tooling is rehearsed for them. The key itself is never shown.
 */
export function serveApiKeys(flag: string | undefined, env: string | undefined): string[] {
  const where = flag ? '--api-key' : 'ACCORD_SERVE_API_KEYS';
  const keys = flag
    ? [flag]
    : (env ?? '')
        .split(',')
        .map((k) => k.trim())
        .filter(Boolean);
  keys.forEach((key, i) => {
    if (key.length >= MIN_API_KEY_LENGTH) return;
    const which = keys.length > 1 ? `key ${i + 1} of ${where}` : where;
    throw new ServeUsageError(
      `${which} is ${key.length} characters long; accord serve takes keys of at least ${MIN_API_KEY_LENGTH} ` +
        `characters (production keys are much longer). Give a longer key, or none for a random one.`,
    );
  });
  return keys;
}

/** The numbers the flags give, checked before anything starts. */
function checkServeFlags(argv: {
  'fault-rate': number;
  latency: number;
  'fault-seed'?: number | undefined;
  port: number;
}): void {
  if (!(argv['fault-rate'] >= 0 && argv['fault-rate'] <= 1)) {
    throw new ServeUsageError('--fault-rate must be between 0 and 1');
  }
  if (!(argv.latency >= 0 && argv.latency <= MAX_LATENCY_MS)) {
    throw new ServeUsageError(`--latency must be from 0 to ${MAX_LATENCY_MS} milliseconds`);
  }
  const seed = argv['fault-seed'];
  if (seed !== undefined && !(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff)) {
    throw new ServeUsageError(`--fault-seed must be a whole number from 0 to ${0xffffffff}`);
  }
  if (!Number.isInteger(argv.port) || argv.port < 0 || argv.port > 65535) {
    throw new ServeUsageError(
      `--port must be a whole number from 0 to 65535 (0: any free port), got ${argv.port}`,
    );
  }
}
