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
