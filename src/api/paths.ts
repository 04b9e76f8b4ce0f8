// Request paths: shared by the client and by the reading of saved plans.

/**
 * Whether a relative request path holds a segment that URL parsing folds away (`.`, `..`, their
 * percent-encoded forms) or a backslash (read as `/`), so that the request would reach another path.
 */
export function hasDotSegment(path: string): boolean {
  const beforeQuery = path.split(/[?#]/)[0] ?? '';
  return beforeQuery.includes('\\') || beforeQuery.split('/').some((s) => /^(?:\.|%2e){1,2}$/i.test(s));
}
