// The production service's official clients speak a dialect the spec does not show (DESIGN §7): bodies
// repeat the IDs of the path, module PUTs wrap the module in `{"module": {...}}`, and lists page with
// `beforeId`. These turn such a request into the spec's form before it is validated, so that both
// forms mean exactly the same and everything else unknown is still refused.
import { ServiceError } from './errors.js';

type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Removes body members named after a path parameter (`id`, `edge_id`) once they are checked to name
 * the same object as the path: a body that names another object is a mistake, never a move.
 */
export function withoutPathIds(body: unknown, params: Record<string, string>): unknown {
  if (!isJsonObject(body)) return body;
  let copy: JsonObject | undefined;
  for (const [name, value] of Object.entries(params)) {
    if (!Object.hasOwn(body, name)) continue;
    const given = body[name];
    if (given !== value) {
      throw new ServiceError(
        'ERR_INVALID_FIELD',
        `field "${name}" is ${JSON.stringify(given)?.slice(0, 80)} but the path names "${value.slice(0, 64)}"; ` +
          `send the same ID as the path, or leave "${name}" out`,
      );
    }
    copy ??= { ...body };
    delete copy[name];
  }
  return copy ?? body;
}

/** `{"module": {...}}` (the TypeScript client's module PUT) becomes the flat body of the spec. */
export function unwrapModule(body: unknown): unknown {
  if (!isJsonObject(body) || !Object.hasOwn(body, 'module')) return body;
  const { module, ...rest } = body;
  const others = Object.keys(rest);
  if (others.length > 0) {
    const named = others
      .slice(0, 3)
      .map((k) => `"${k.slice(0, 40)}"`)
      .join(', ');
    throw new ServiceError(
      'ERR_INVALID_FIELD',
      `field "module" cannot be combined with ${named}; send the module either as {"module": {...}} or as its fields alone`,
    );
  }
  if (!isJsonObject(module)) {
    throw new ServiceError('ERR_INVALID_FIELD', 'field "module" must be a JSON object');
  }
  return module;
}
