import { errorReport } from '../errors.js';

/**
 * With `--json`, stdout holds one JSON document whatever happens: the command's own, or this one when
 * the command failed before writing it. The paragraph for people still goes to stderr.
 */
export function jsonError(err: unknown): string {
  return `${JSON.stringify({ error: errorReport(err) }, null, 2)}\n`;
}
