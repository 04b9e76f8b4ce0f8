import { AccordError, type ErrorReport } from '../errors.js';
import { count } from '../plural.js';
import { transportFailure } from './retry.js';

/** The parts of an API error body (`{error_code, status_code, msg, details: {operation_id}}`). */
export interface ApiErrorInit {
  status: number;
  method: string;
  path: string;
  errorCode?: string;
  msg: string;
  operationId?: string;
  /** True for a POST answered with a 5xx: the service may have created the resource anyway. */
  outcomeUnknown?: boolean;
  hint?: string;
  /** The error this one says more about (kept for --verbose and programs; already free of the key). */
  cause?: unknown;
}

/**
 * The API answered with an error status. `msg` and every other field have been scrubbed of the API
 * key before they get here (a service may echo the request's headers in its error body).
 */
export class ApiError extends AccordError {
  override name = 'ApiError';
  static override readonly code = 'ACCORD_API';
  readonly status: number;
  readonly errorCode?: string;
  readonly msg: string;
  readonly operationId?: string;
  readonly method: string;
  readonly path: string;
  readonly outcomeUnknown: boolean;

  constructor(init: ApiErrorInit) {
    const code = init.errorCode ? ` ${init.errorCode}` : '';
    const op = init.operationId ? ` (operation ${init.operationId})` : '';
    const hint = init.hint ? ` ${init.hint}` : '';
    super(
      `${init.method} ${init.path} failed with ${init.status}${code}: ${init.msg}${op}.${hint}`,
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.status = init.status;
    if (init.errorCode !== undefined) this.errorCode = init.errorCode;
    this.msg = init.msg;
    if (init.operationId !== undefined) this.operationId = init.operationId;
    this.method = init.method;
    this.path = init.path;
    this.outcomeUnknown = init.outcomeUnknown ?? false;
  }

  override report(): ErrorReport {
    return {
      ...super.report(),
      http_status: this.status,
      ...(this.errorCode !== undefined ? { error_code: this.errorCode } : {}),
      ...(this.operationId !== undefined ? { operation_id: this.operationId } : {}),
    };
  }
}

/** What a connection error knows of the attempts behind it, for its message. */
export interface ConnectionContext {
  /** Attempts made, the first included. */
  attempts?: number;
  /** The --timeout each attempt had, for a timeout. */
  timeoutMs?: number;
  /** This request did not fail itself: an earlier one of the run gave up on the service. */
  earlier?: boolean;
  /** The run gave up because the service answered no request for this long. */
  silentMs?: number;
}

/** The service could not be reached (refused, DNS, reset, timeout) and retrying did not help. */
export class ApiConnectionError extends AccordError {
  override name = 'ApiConnectionError';
  static override readonly code = 'ACCORD_API_CONNECTION';
  readonly method: string;
  readonly path: string;
  /** The low-level code, e.g. `ECONNREFUSED` or `UND_ERR_HEADERS_TIMEOUT` (`code` is accord's own). */
  readonly transportCode: string;
  readonly outcomeUnknown: boolean = false;

  constructor(
    method: string,
    path: string,
    origin: string,
    code: string,
    detail: string,
    cause?: unknown,
    context: ConnectionContext = {},
  ) {
    super(connectionMessage(method, path, origin, code, detail, context), { cause });
    this.method = method;
    this.path = path;
    this.transportCode = code;
  }
}

function connectionMessage(
  method: string,
  path: string,
  origin: string,
  code: string,
  detail: string,
  { attempts, timeoutMs, earlier, silentMs }: ConnectionContext,
): string {
  // OpenSSL details run over several lines of library internals; the first says what happened.
  const reason = detail.split('\n')[0]?.trim() ?? '';
  const tried = attempts !== undefined && attempts > 1 ? `, ${count(attempts, 'attempt')}` : '';
  const then = earlier ? ' (an earlier request of this run gave up on it; nothing more was sent)' : '';
  const check = 'Check --api-url / ACCORD_API_URL';
  switch (transportFailure(code)) {
    case 'tls':
      return (
        `${method} ${path} could not make a TLS connection to ${origin} (${code}: ${reason})${then}. If the ` +
        'service speaks plain HTTP (accord serve does), use an http:// URL in --api-url / ACCORD_API_URL; ' +
        'otherwise check its certificate (NODE_EXTRA_CA_CERTS names a private CA).'
      );
    case 'dns':
      return (
        `${method} ${path} could not reach ${origin}: its host name ${hostOf(origin)} does not resolve ` +
        `(${code})${then}. ${check}, and the network's DNS, then run again.`
      );
    case 'refused':
      return (
        `${method} ${path} could not reach ${origin}: the connection was refused (${code}${tried})${then}, so ` +
        `nothing is listening there. ${check}, and that the service is up, then run again.`
      );
    case 'timeout': {
      if (silentMs !== undefined && timeoutMs !== undefined) {
        return (
          `${method} ${path} got no answer from ${origin}, which answered no request for ${formatSeconds(silentMs)} ` +
          `(twice --timeout ${formatSeconds(timeoutMs)}; ${code}${tried}), so accord gave up on it. ` +
          'The service accepts connections but is stalled or overloaded: check it, or raise --timeout, then run again.'
        );
      }
      const limit = timeoutMs === undefined ? '' : ` within --timeout ${formatSeconds(timeoutMs)}`;
      return (
        `${method} ${path} got no complete answer from ${origin}${limit} (${code}${tried})${then}. The service ` +
        'is down, stalled or slow: check it, or raise --timeout, then run again.'
      );
    }
    case 'broken':
      return (
        `${method} ${path} could not reach ${origin} (${code}: ${reason}${tried})${then}. ${check} ` +
        'and that the service is up, then run again.'
      );
  }
}

/**
 * Retries stopped at the run's --deadline. Says what was tried: the request, how many attempts over
 * how long, and how the last one failed.
 */
export class DeadlineError extends AccordError {
  override name = 'DeadlineError';
  static override readonly code = 'ACCORD_DEADLINE';
  readonly method: string;
  readonly path: string;
  readonly outcomeUnknown: boolean = false;

  constructor(
    method: string,
    path: string,
    init: {
      deadlineMs: number;
      attempts: number;
      elapsedMs: number;
      last: string;
      /** The status of the last answer, when there was one. */
      status?: number;
      /** The wait the service asked for (Retry-After), when it is as long as --deadline or longer. */
      askedMs?: number;
      cause?: unknown;
    },
  ) {
    // A service that throttles is best met by pacing under its limit, not by waiting longer.
    const pace = 'run again with --rate-limit 120/60 (or lower) so that accord paces itself under the limit';
    const deadline = `--deadline ${formatSeconds(init.deadlineMs)}`;
    super(
      init.askedMs !== undefined
        ? `${method} ${path}: the service asks to wait ${formatSeconds(Math.ceil(init.askedMs / 1000) * 1000)} before another attempt, ` +
            `longer than ${deadline} allows, so it was not retried (the last attempt ${init.last}). ` +
            (init.status === 429
              ? `The service throttles: ${pace}, or raise --deadline above the wait.`
              : 'Run again later, or raise --deadline above the wait.')
        : `${method} ${path} was not retried further: the run reached its --deadline of ${formatSeconds(init.deadlineMs)}. ` +
            `Tried ${count(init.attempts, 'time')} over ${formatSeconds(init.elapsedMs)}; the last attempt ${init.last}. ` +
            (init.status === 429
              ? `The service throttles: ${pace}, or raise --deadline.`
              : 'Check the service and run again later, or raise --deadline.'),
      init.cause === undefined ? undefined : { cause: init.cause },
    );
    this.method = method;
    this.path = path;
  }
}

/** An answer larger than accord reads (a page of 100 objects is far smaller). */
export class ResponseTooLargeError extends AccordError {
  override name = 'ResponseTooLargeError';
  static override readonly code = 'ACCORD_UNEXPECTED_RESPONSE';
}

function hostOf(origin: string): string {
  try {
    return new URL(origin).hostname;
  } catch {
    return origin;
  }
}

/** Milliseconds as seconds for a message: "30 s", "0.5 s". */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

/**
 * A POST may or may not have reached the service (the connection broke after the request was
 * written, or the answer was a 5xx). It is never retried blindly: the caller must re-list and look for
 * its ownership marker before creating again.
 */
export class OutcomeUnknownError extends AccordError {
  override name = 'OutcomeUnknownError';
  static override readonly code = 'ACCORD_OUTCOME_UNKNOWN';
  readonly method: string;
  readonly path: string;
  /** The low-level code, e.g. `ECONNRESET` (`code` is accord's own). */
  readonly transportCode: string;
  readonly outcomeUnknown = true as const;

  constructor(method: string, path: string, code: string, detail: string, cause?: unknown) {
    super(
      `${method} ${path} may or may not have been applied: the connection failed after the request was ` +
        `sent (${code}: ${detail}). Run plan again to see the account as it is now.`,
      { cause },
    );
    this.method = method;
    this.path = path;
    this.transportCode = code;
  }
}

/** A request was made, or was waiting to be retried, after the client was closed. */
export class ClientClosedError extends AccordError {
  override name = 'ClientClosedError';
  static override readonly code = 'ACCORD_CLIENT_CLOSED';
  constructor(method: string, path: string) {
    super(`${method} ${path} was stopped: the run is ending (the API client was closed).`);
  }
}

/** A list answered with something accord must not follow (another origin, a loop, a malformed page). */
export class PaginationError extends AccordError {
  override name = 'PaginationError';
  static override readonly code = 'ACCORD_PAGINATION';
}

/**
 * A request accord refuses to send: its path would reach another endpoint, or its URL another origin
 * than the API's (the key goes only there).
 */
export class RefusedRequestError extends AccordError {
  override name = 'RefusedRequestError';
  static override readonly code = 'ACCORD_REFUSED_REQUEST';
}

/** True when a create may have happened although it failed: look for the ownership marker first. */
export function isOutcomeUnknown(err: unknown): boolean {
  return (err instanceof ApiError || err instanceof OutcomeUnknownError) && err.outcomeUnknown === true;
}
