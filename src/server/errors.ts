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
  // The production service's documented codes (shared/SPEC-ip-policies.md "What the production service
  // refuses"), so that error handling tested here holds there; the statuses are this service's.
  /** A CIDR that does not parse. */
  ERR_NGROK_1406: 400,
  /** A second rule with a CIDR the policy already holds. */
  ERR_NGROK_1408: 400,
  /** A CIDR not written with the lowest address of its range. */
  ERR_NGROK_1409: 400,
  /** More IP policies than the account's limit. */
  ERR_NGROK_1410: 400,
  /** More rules in one policy than the account's limit. */
  ERR_NGROK_1411: 400,
  /** A rule CIDR without a network mask. */
  ERR_NGROK_1413: 400,
  /** An `ip_policy_id` that is not a valid ID. */
  ERR_NGROK_1414: 400,
  /** Deleting the only rule of a policy that a dashboard IP restriction uses. */
  ERR_NGROK_1419: 409,
  /** Deleting an IP policy that IP restrictions or endpoints' traffic policies name. */
  ERR_NGROK_1420: 409,
  /** A rule `action` other than allow or deny. */
  ERR_NGROK_1422: 400,
  /** An IP restriction naming a policy the account does not have. */
  ERR_NGROK_1801: 400,
  /** A second IP restriction of one type. */
  ERR_NGROK_1802: 409,
  /** An IP restriction with no IP policy. */
  ERR_NGROK_1804: 400,
  /** A traffic policy that denies CIDRs with nothing allowed (shared/SPEC-endpoints.md). */
  ERR_NGROK_393: 400,
  /** An endpoint create of another type than cloud, or a PATCH or DELETE of an endpoint that is not one. */
  ERR_NGROK_248: 400,
  /** A traffic policy's restrict-ips naming an IP policy the account does not have. */
  ERR_NGROK_2216: 400,
  /** A traffic policy phase the endpoint's protocol does not run (an HTTP phase on a TCP endpoint). */
  ERR_NGROK_2230: 400,
  /** A traffic policy that is not YAML or JSON. */
  ERR_NGROK_2236: 400,
  /** An endpoint URL that is not scheme://host[:port]. */
  ERR_NGROK_18001: 400,
  /** A traffic policy whose structure is not a policy document's. */
  ERR_NGROK_18002: 400,
  /** An endpoint URL whose port is invalid, or missing where the scheme has no default. */
  ERR_NGROK_18003: 400,
  /** An endpoint PATCH that changes nothing. */
  ERR_NGROK_18004: 400,
  /** An endpoint PATCH that changes the URL's scheme. */
  ERR_NGROK_18005: 400,
  /** A second cloud endpoint on one URL. */
  ERR_NGROK_18009: 409,
  /** An endpoint's bindings that do not fit its URL. */
  ERR_NGROK_18014: 400,
  /** An endpoint URL without a scheme, or with one that is not http, https, tls or tcp. */
  ERR_NGROK_18022: 400,
  /** The version header is not supported. */
  ERR_NGROK_217: 400,
  /** The version header is missing. */
  ERR_NGROK_218: 400,
  /** Too many requests. */
  ERR_NGROK_226: 429,
  ERR_AUTH_MISSING: 401,
  ERR_AUTH_INVALID: 401,
  ERR_NOT_FOUND: 404,
  ERR_METHOD_NOT_ALLOWED: 405,
  ERR_BODY_TOO_LARGE: 413,
  ERR_UNSUPPORTED_MEDIA_TYPE: 415,
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
