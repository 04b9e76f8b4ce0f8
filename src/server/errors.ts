// The error body of the service (DESIGN §7):
// {"error_code": "ERR_...", "status_code": N, "msg": "...", "details": {"operation_id": "op_..."}}

/** Every error code the service answers with, and its HTTP status. docs/service.md lists them all. */
export const ERROR_CODES = {
  ERR_INVALID_JSON: 400,
  ERR_MISSING_FIELD: 400,
  ERR_UNKNOWN_FIELD: 400,
  ERR_INVALID_FIELD: 400,
  ERR_FIELD_TOO_LONG: 400,
  ERR_INVALID_QUERY: 400,
  ERR_INVALID_REQUEST: 400,
  ERR_INVALID_PEM: 400,
  ERR_INVALID_PUBLIC_KEY: 400,
  ERR_REFERENCE_NOT_FOUND: 400,
  ERR_INVALID_CIDR: 400,
  ERR_CIDR_NOT_LOWEST_ADDRESS: 400,
  ERR_CIDR_EXISTS: 400,
  ERR_SERVICE_VERSION_MISSING: 400,
  ERR_SERVICE_VERSION_UNSUPPORTED: 400,
  ERR_AUTH_MISSING: 401,
  ERR_AUTH_INVALID: 401,
  ERR_NOT_FOUND: 404,
  ERR_METHOD_NOT_ALLOWED: 405,
  ERR_IP_RESTRICTION_TYPE_TAKEN: 409,
  ERR_BODY_TOO_LARGE: 413,
  ERR_UNSUPPORTED_MEDIA_TYPE: 415,
  ERR_RATE_LIMITED: 429,
  ERR_INTERNAL: 500,
  ERR_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Thrown by handlers; the server's error handler turns it into the error body. */
export class ServiceError extends Error {
  override name = 'ServiceError';
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    msg: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(msg);
    this.status = ERROR_CODES[code];
  }
}

export function errorBody(code: ErrorCode, msg: string, operationId: string): string {
  return JSON.stringify({
    error_code: code,
    status_code: ERROR_CODES[code],
    msg,
    details: { operation_id: operationId },
  });
}

/** An error the HTTP framework raised on its own, before or around a handler. */
export interface FrameworkError {
  code?: string;
  statusCode?: number;
  message: string;
}

/**
 * What the framework reports by itself (a path it cannot decode, a body its parsers refuse, a request
 * Node.js cannot parse), said as the service's error code and message: a client sees one error body
 * shape whatever refused its request. Undefined for a 5xx or anything unexpected: that is a bug.
 */
export function frameworkError(err: FrameworkError): { code: ErrorCode; msg: string } | undefined {
  switch (err.code) {
    case 'FST_ERR_BAD_URL':
      return { code: 'ERR_INVALID_REQUEST', msg: 'the path is not valid percent-encoded UTF-8' };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { code: 'ERR_NOT_FOUND', msg: `no such object: an ID is at most ${MAX_ID_LENGTH} characters` };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { code: 'ERR_BODY_TOO_LARGE', msg: `the request body is larger than ${BODY_LIMIT} bytes` };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
    case 'FST_ERR_CTP_EMPTY_TYPE':
      return {
        code: 'ERR_UNSUPPORTED_MEDIA_TYPE',
        msg: 'a request with a body must send "Content-Type: application/json"',
      };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { code: 'ERR_INVALID_REQUEST', msg: 'the Content-Length header does not match the body sent' };
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'ERR_INVALID_REQUEST', msg: 'the request headers are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'ERR_INVALID_REQUEST', msg: 'the request was not received in time' };
  }
  if (err.code?.startsWith('HPE_'))
    return { code: 'ERR_INVALID_REQUEST', msg: 'the request is not valid HTTP/1.1' };
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
    // A body parser's refusal (bad encoding, a body that is not what its Content-Type says).
    return {
      code: 'ERR_INVALID_JSON',
      msg: `the request body cannot be read (${err.message.slice(0, 120)})`,
    };
  }
  return undefined;
}

/** Largest accepted request body. */
export const BODY_LIMIT = 128 * 1024;

/** Longest path parameter (an ID) the router matches; longer ones can name no object. */
export const MAX_ID_LENGTH = 100;

/**
 * A whole HTTP/1.1 response with the error body, for a request Node.js could not even parse (there is
 * no request object to answer through); the connection is closed after it.
 */
export function rawErrorResponse(code: ErrorCode, msg: string, operationId: string): string {
  const body = errorBody(code, msg, operationId);
  const status = ERROR_CODES[code];
  return (
    `HTTP/1.1 ${status} ${status === 400 ? 'Bad Request' : 'Error'}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}
