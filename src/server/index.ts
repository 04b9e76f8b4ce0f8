// `accord serve`: a local implementation of the whole Account Management API (shared/SPEC.md, DESIGN §7).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { AccordError } from '../errors.js';
import { PACKAGE_ROOT, packageFile } from '../package-files.js';
import { PACKAGE_NAME } from '../version.js';
import { DEFAULT_LIMITS, type ServiceContext, type ServiceLimits } from './collections.js';
import {
  BODY_LIMIT,
  ERROR_CODES,
  type ErrorCode,
  errorBody,
  type FrameworkError,
  frameworkError,
  MAX_ID_LENGTH,
  rawErrorResponse,
  ServiceError,
} from './errors.js';
import {
  checkJsonContentType,
  checkServiceVersion,
  type Fault,
  KeyChecker,
  pickFault,
  RateLimiter,
  seededRandom,
} from './guards.js';
import { IdGenerator } from './ids.js';
import { COLLECTIONS, MODULES } from './kinds/index.js';
import { methodNotAllowed, registerCollection, registerModule } from './routes.js';
import { loadSeed } from './seed.js';
import { Store } from './store.js';
import { compileBodyValidators } from './validation.js';

export { SeedError } from './seed.js';

/** The address cannot be used (taken, not local, not allowed). */
export class ListenError extends AccordError {
  override name = 'ListenError';
  static override readonly code = 'ACCORD_SERVE_LISTEN';
}

export interface ServerOptions {
  host?: string;
  port?: number;
  apiKeys?: string[];
  dataFile?: string;
  seed?: string /* YAML file path */;
  rateLimit?: { requests: number; perSeconds: number };
  latencyMs?: number;
  faultRate?: number;
  /** The account's limits (default DEFAULT_LIMITS). */
  limits?: Partial<ServiceLimits>;
  /** Seed of the fault injector's random source, for reproducible runs (default: random). */
  faultSeed?: number;
  now?: () => Date;
  /** How --latency waits (test seam: a test resolves it itself instead of waiting on real time). */
  sleep?: (ms: number) => Promise<unknown>;
  logger?: boolean;
}

export interface RunningServer {
  url: string /* http://127.0.0.1:PORT, no trailing slash */;
  apiKeys: string[];
  close(): Promise<void>;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export async function startServer(opts: ServerOptions = {}): Promise<RunningServer> {
  const apiKeys =
    opts.apiKeys && opts.apiKeys.length > 0 ? opts.apiKeys : [randomBytes(24).toString('base64url')];
  const store = openStore(opts.dataFile);
  const now = opts.now ?? (() => new Date());
  let selfUrl = '';
  const ctx: ServiceContext = {
    store,
    limits: { ...DEFAULT_LIMITS, ...opts.limits },
    ids: new IdGenerator(now),
    now,
    bodies: compileBodyValidators(),
    selfUrl: () => selfUrl,
  };
  try {
    if (opts.seed) await loadSeed(ctx, opts.seed);
    const app = buildApp(ctx, apiKeys, opts);
    try {
      await app.listen({ host: opts.host ?? '127.0.0.1', port: opts.port ?? 4040 });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (!['EADDRINUSE', 'EADDRNOTAVAIL', 'EACCES', 'ENOTFOUND'].includes(code)) throw err;
      throw new ListenError(
        `cannot listen on ${opts.host ?? '127.0.0.1'}:${opts.port ?? 4040} (${code}); choose another --port or --host`,
        { cause: err },
      );
    }
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : (opts.port ?? 4040);
    const host = opts.host ?? '127.0.0.1';
    selfUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    return {
      url: selfUrl,
      apiKeys,
      close: async () => {
        await app.close();
        store.close();
      },
    };
  } catch (err) {
    store.close();
    throw err;
  }
}

/** The data file cannot be opened as a SQLite database. */
export class DataFileError extends AccordError {
  override name = 'DataFileError';
  static override readonly code = 'ACCORD_SERVE_DATA_FILE';
}

/** better-sqlite3's compiled part does not load in this Node.js: nothing to do with --data. */
export class NativeModuleError extends AccordError {
  override name = 'NativeModuleError';
  static override readonly code = 'ACCORD_SERVE_NATIVE_MODULE';
}

/**
 * The error opening the store throws when better-sqlite3's native module cannot be loaded (built for
 * another Node.js, or not built at all), said as what it is, with what to run; undefined otherwise.
 */
export function nativeModuleError(err: unknown): NativeModuleError | undefined {
  const e = err as NodeJS.ErrnoException;
  const message = typeof e?.message === 'string' ? e.message : '';
  if (e?.code === 'MODULE_NOT_FOUND' && message.includes("'better-sqlite3'")) return notInstalled(err);
  const dlopen = e?.code === 'ERR_DLOPEN_FAILED';
  const missing = message.startsWith('Could not locate the bindings file');
  if (!dlopen && !missing) return undefined;
  const versions = /NODE_MODULE_VERSION (\d+)[\s\S]*requires\s+NODE_MODULE_VERSION (\d+)/.exec(message);
  const why = versions
    ? `it was built for another Node.js (NODE_MODULE_VERSION ${versions[1]}; this one needs ${versions[2]})`
    : missing
      ? 'it was never built (the install skipped or failed its build step)'
      : `it does not load (${message.split('\n')[0]})`;
  return new NativeModuleError(
    `accord serve stores its data with better-sqlite3, whose native module does not load in this Node.js ` +
      `${process.version}: ${why}. Run \`npm rebuild better-sqlite3\` in ${nativeModuleHome()} with this Node.js, then start ` +
      'accord serve again.',
    { cause: err },
  );
}

/**
 * Where `npm rebuild better-sqlite3` rebuilds the module accord loads: the directory whose
 * node_modules holds it. That is accord's own directory for a global install, and the project's for a
 * local one, where npm hoists it beside accord; accord's directory when it cannot be found.
 */
export function nativeModuleHome(
  resolve: (id: string) => string = createRequire(import.meta.url).resolve,
): string {
  try {
    return dirname(dirname(dirname(resolve('better-sqlite3/package.json'))));
  } catch {
    return PACKAGE_ROOT;
  }
}

/** better-sqlite3, an optional dependency, was left out of the install (`--omit=optional`, or a failed build). */
function notInstalled(err: unknown): NativeModuleError {
  const version = sqliteVersion();
  return new NativeModuleError(
    'accord serve stores its data with better-sqlite3, an optional dependency that is not installed here ' +
      '(an install with --omit=optional, or one where its build failed); validate, plan, apply and the other ' +
      `commands do not need it. To run accord serve, install accord again without --omit=optional ` +
      `(\`npm install -g ${PACKAGE_NAME}\`), or run \`npm install --no-save --omit=dev better-sqlite3@${version}\` ` +
      `in ${PACKAGE_ROOT}.`,
    { cause: err },
  );
}

/** The better-sqlite3 version package.json names, the one accord is tested with. */
function sqliteVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as {
      optionalDependencies?: Record<string, string>;
    };
    return pkg.optionalDependencies?.['better-sqlite3'] ?? 'latest';
  } catch {
    return 'latest';
  }
}

function openStore(file: string | undefined): Store {
  try {
    return new Store(file);
  } catch (err) {
    const native = nativeModuleError(err);
    if (native) throw native;
    const reason = (err as Error).message ?? String(err);
    throw new DataFileError(
      `--data ${file}: ${reason.charAt(0).toLowerCase()}${reason.slice(1)}; give the path of a SQLite file ` +
        'to create or reuse, in a directory that exists and is writable',
      { cause: err },
    );
  }
}

function buildApp(ctx: ServiceContext, apiKeys: string[], opts: ServerOptions): FastifyInstance {
  const sendError = (reply: FastifyReply, code: ErrorCode, msg: string) =>
    reply
      .code(ERROR_CODES[code])
      .header('content-type', 'application/json; charset=utf-8')
      .send(errorBody(code, msg, ctx.ids.next('operation')));
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: BODY_LIMIT,
    return503OnClosing: false,
    routerOptions: { maxParamLength: MAX_ID_LENGTH },
    // What the router refuses before any route (bad percent-encoding, a too-long ID) answers like the rest.
    frameworkErrors: (err, _request, reply) => {
      const known = frameworkError(err) ?? { code: 'ERR_INTERNAL' as const, msg: 'internal error' };
      sendError(reply, known.code, known.msg);
    },
    clientErrorHandler: (err, socket) => {
      if ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || socket.destroyed) return;
      const known = frameworkError(err as FrameworkError) ?? {
        code: 'ERR_INVALID_REQUEST' as const,
        msg: 'the request is not valid HTTP/1.1',
      };
      socket.end(rawErrorResponse(known.code, known.msg, ctx.ids.next('operation')));
    },
  });
  parseJsonBodies(app);
  addGuards(app, ctx, apiKeys, opts);
  addTestingAids(app, ctx, opts);

  app.setErrorHandler((err: FastifyError | ServiceError, request, reply) => {
    if (err instanceof ServiceError) {
      reply.headers(err.headers);
      return sendError(reply, err.code, err.message);
    }
    const known = frameworkError(err);
    if (known) return sendError(reply, known.code, known.msg);
    request.log.error(err);
    return sendError(reply, 'ERR_INTERNAL', 'internal error');
  });

  app.setNotFoundHandler(() => {
    throw new ServiceError('ERR_NOT_FOUND', 'no such path; see docs/service.md for the endpoints');
  });

  for (const c of COLLECTIONS) registerCollection(app, ctx, c);
  for (const m of MODULES) registerModule(app, ctx, m);
  return app;
}

/** An empty body is "no body" (a DELETE sent with a JSON content type); handlers that need one say so. */
function parseJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text as string));
    } catch (err) {
      done(
        new ServiceError(
          'ERR_INVALID_JSON',
          `the request body is not valid JSON (${(err as Error).message.slice(0, 120)})`,
        ),
        undefined,
      );
    }
  });
}

/** What every request passes before its handler: API key, version header, rate limit, method, content type. */
function addGuards(app: FastifyInstance, ctx: ServiceContext, apiKeys: string[], opts: ServerOptions): void {
  const keys = new KeyChecker(apiKeys);
  const limiter = opts.rateLimit
    ? new RateLimiter(opts.rateLimit.requests, opts.rateLimit.perSeconds)
    : undefined;
  // Callback-style hooks: cheaper than async ones on the hot path.
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      const bucket = keys.check(request.headers.authorization);
      checkServiceVersion(request.headers['service-version'], request.headers['ngrok-version']);
      limiter?.take(bucket, ctx.now().getTime());
      const allowed = (request.routeOptions.config as { allowed?: string[] }).allowed;
      // HEAD is a GET without the body (fastify adds it to every GET route).
      const method = request.method === 'HEAD' ? 'GET' : request.method;
      if (allowed && !allowed.includes(method)) throw methodNotAllowed(allowed);
      // Only a body that is sent needs its type: a PUT without one (the Python client's, for a module
      // with its defaults) is an empty object.
      if (BODY_METHODS.has(request.method) && hasBody(request.headers)) {
        checkJsonContentType(request.headers['content-type']);
      }
    } catch (err) {
      return done(err as Error);
    }
    done();
  });
}

/** Whether the request carries a body (HTTP/1.1: a length above 0, or chunks). */
function hasBody(headers: FastifyRequest['headers']): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Testing aids, registered only when asked for so that the normal path does not pay for them. */
function addTestingAids(app: FastifyInstance, ctx: ServiceContext, opts: ServerOptions): void {
  const random = opts.faultSeed === undefined ? Math.random : seededRandom(opts.faultSeed);
  const faultRate = opts.faultRate ?? 0;
  const latencyMs = opts.latencyMs ?? 0;
  const sleep = opts.sleep ?? delay;
  const afterCommit = new WeakMap<FastifyRequest, Fault>();
  if (latencyMs > 0 || faultRate > 0) {
    app.addHook('onRequest', async (request, reply) => {
      if (latencyMs > 0) await sleep(latencyMs);
      const fault = pickFault(faultRate, random, request.method);
      if (fault === 'drop') {
        reply.hijack();
        request.raw.socket.destroy();
      } else if (fault === 'error500' || fault === 'error503') {
        throw new ServiceError(
          fault === 'error500' ? 'ERR_INTERNAL' : 'ERR_UNAVAILABLE',
          'injected fault (--fault-rate); nothing was changed',
        );
      } else if (fault) {
        afterCommit.set(request, fault);
      }
    });
  }
  if (faultRate > 0) {
    app.addHook('onSend', async (request, reply, payload) => {
      const fault = afterCommit.get(request);
      if (!fault || reply.statusCode >= 300) return payload;
      if (fault === 'commit-then-drop') {
        request.raw.socket.destroy();
        return payload;
      }
      reply.code(500).header('content-type', 'application/json; charset=utf-8');
      return errorBody(
        'ERR_INTERNAL',
        'injected fault (--fault-rate) after the change was saved',
        ctx.ids.next('operation'),
      );
    });
  }
}
