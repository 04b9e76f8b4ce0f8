// Reading the service's answers: bodies, bounded in size; error bodies decoded into ApiErrors with a hint;
// low-level errors made free of the key.
import { ApiError, ResponseTooLargeError } from './errors.js';
import type { Method } from './retry.js';

type Headers = Record<string, string | string[] | undefined>;

/** An answer with an error status, as the request that got it is shown. */
export interface ErrorAnswer {
  method: Method;
  display: string;
  status: number;
  text: string;
  headers: Headers;
  /** The wait a 429 or 503 asked for, said when it is why the request gave up. */
  retryAfterMs?: number | undefined;
}

/** The ApiError an error answer is, every field of its body scrubbed of the key. */
export function apiError(answer: ErrorAnswer, redact: (text: string) => string): ApiError {
  const { method, display, status, text, headers, retryAfterMs } = answer;
  const { errorCode, msg, operationId } = errorBody(text, redact);
  const outcomeUnknown = method === 'POST' && status >= 500;
  const location = first(headers['location']);
  return new ApiError({
    status,
    method,
    path: display,
    msg: msg ?? 'no message',
    ...(errorCode !== undefined ? { errorCode } : {}),
    ...(operationId !== undefined ? { operationId } : {}),
    outcomeUnknown,
    hint:
      status >= 300 && status < 400
        ? redirectHint(location === undefined ? undefined : redact(location))
        : hintFor(status, outcomeUnknown, retryAfterMs, errorCode),
  });
}

/** The fields of an error body (`{error_code, msg, details: {operation_id}}`), or a short form of a body that is not JSON. */
function errorBody(
  text: string,
  redact: (text: string) => string,
): { errorCode?: string; msg?: string; operationId?: string } {
  const found: { errorCode?: string; msg?: string; operationId?: string } = {};
  try {
    const body = JSON.parse(text) as {
      error_code?: unknown;
      msg?: unknown;
      details?: { operation_id?: unknown };
    };
    if (typeof body.error_code === 'string') found.errorCode = redact(body.error_code);
    if (typeof body.msg === 'string') found.msg = redact(body.msg);
    if (typeof body.details?.operation_id === 'string') found.operationId = redact(body.details.operation_id);
  } catch {
    if (text.trim() !== '') found.msg = redact(plainText(text));
  }
  return found;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** accord does not follow redirects: the key would go wherever they lead. */
function redirectHint(location: string | undefined): string {
  const to = location === undefined ? '' : ` to ${location.slice(0, 200)}`;
  return `The service redirects${to}; accord does not follow redirects (the key would go along). Put the API's own URL in --api-url / ACCORD_API_URL.`;
}

/** An error body that is not JSON, in one short line: an HTML page by its title, anything else cut. */
function plainText(text: string): string {
  const trimmed = text.trim();
  if (/^<(!doctype html|html|head|body)\b/i.test(trimmed)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(trimmed)?.[1]?.replace(/\s+/g, ' ').trim();
    return `an HTML page${title ? ` ("${title.slice(0, 100)}")` : ''} instead of a JSON error`;
  }
  return trimmed.replace(/\s+/g, ' ').slice(0, 200);
}

/**
 * What the production service's documented codes mean to the user, where the code says more than its
 * status (shared/SPEC-ip-policies.md "What the production service refuses").
 */
const CODE_HINTS: Record<string, string> = {
  ERR_NGROK_226:
    'The service allows 120 requests per rolling 60 s per account and kept refusing; ' +
    'run again with --rate-limit 120/60 (or lower) so that accord paces itself, or lower --parallelism.',
  ERR_NGROK_1419:
    'The service keeps at least one rule in a policy that the dashboard IP restriction uses: create the ' +
    'new rule first, or take the policy out of the dashboard restriction, then run again.',
  ERR_NGROK_1420:
    'The service does not delete an IP policy that an IP restriction names: take the policy out of the ' +
    'restrictions the message lists (their ip_policies), then run again.',
};

function hintFor(status: number, outcomeUnknown: boolean, retryAfterMs?: number, errorCode?: string): string {
  const wait =
    retryAfterMs === undefined
      ? undefined
      : `The service asked to wait ${Math.ceil(retryAfterMs / 1000)} s; run again later.`;
  const known = errorCode === undefined ? undefined : CODE_HINTS[errorCode];
  if (known) return wait ? `${wait} ${known}` : known;
  if (wait) return wait;
  if (outcomeUnknown) return 'The resource may have been created anyway; run plan again before retrying.';
  if (status === 401) return 'Check the API key (ACCORD_API_KEY or --api-key-file).';
  if (status === 403) return 'The API key is not allowed to do this.';
  if (status === 429) return 'The service kept throttling; lower --parallelism or set --rate-limit.';
  if (status >= 500) return 'The service failed; run again later.';
  return '';
}

/** Reads a body as text, stopping (and throwing) past `limit` bytes. */
export async function readBody(
  body: AsyncIterable<Buffer> & { destroy?: (err?: Error) => void },
  limit: number,
  tooLarge: () => Error,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      const error = tooLarge();
      body.destroy?.(error);
      throw error;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The error of an answer cut off at `limit` bytes. */
export function tooLarge(request: string, status: number, limit: number): ResponseTooLargeError {
  return new ResponseTooLargeError(
    `${request} answered ${status} with more than ${limit.toLocaleString('en-US')} bytes; ` +
      'accord stopped reading (a page of 100 objects is far smaller). Check that --api-url points at the API.',
  );
}

/** The data of a successful answer: undefined for no body, an ApiError for one that is not JSON. */
export function parseBody(
  text: string,
  method: string,
  display: string,
  status: number,
  redact: (text: string) => string,
): unknown {
  if (status === 204 || text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ApiError({
      status,
      method,
      path: display,
      msg: 'the response body is not JSON',
      // JSON.parse quotes the text it could not read, which may echo the key.
      cause: scrubbed(err, redact),
      hint: 'Check that --api-url / ACCORD_API_URL points at the Account Management API, not a web page.',
    });
  }
}

/** A copy of a low-level error that keeps its name, code and stack but not the key. */
export function scrubbed(err: unknown, redact: (text: string) => string): Error {
  const original = err instanceof Error ? err : new Error(String(err));
  const copy = new Error(redact(original.message));
  copy.name = original.name;
  copy.stack = redact(original.stack ?? `${original.name}: ${original.message}`);
  const code = errorCode(err);
  return code === original.name ? copy : Object.assign(copy, { code });
}

/** A low-level error's code (`ECONNREFUSED`), else its name. */
export function errorCode(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const { code, name } = err as { code?: unknown; name?: unknown };
    if (typeof code === 'string') return code;
    if (typeof name === 'string') return name;
  }
  return 'UNKNOWN';
}
