// Shared request/response helpers of the local service: absolute URIs, JSON replies, keyset pages.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from './errors.js';
import { type IdKind, isIdOf } from './ids.js';
import type { Store } from './store.js';

export const MAX_PAGE = 100;

const SAFE_HOST = /^[A-Za-z0-9.\-:[\]]+$/;

/** `http://host:port` of this request, from its Host header (or the server's own address). */
export function baseUrl(request: FastifyRequest, fallback: string): string {
  const host = request.headers.host;
  return host && SAFE_HOST.test(host) ? `http://${host}` : fallback;
}

/**
 * Stored JSON keeps `uri`s relative ("/ip_policies/ipp_..."); this makes them absolute. A `"uri":"/`
 * sequence cannot occur inside a JSON string value (its quotes would be escaped), so only real `uri`
 * members match.
 */
export function absolutize(json: string, base: string): string {
  return json.replaceAll('"uri":"/', `"uri":"${base}/`);
}

export function sendJson(reply: FastifyReply, status: number, json: string): FastifyReply {
  return reply.code(status).header('content-type', 'application/json; charset=utf-8').send(json);
}

/** RFC 3339 in UTC with whole seconds, as the service reports every timestamp. */
export function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface PageQuery {
  limit: number;
  beforeId?: string;
}

/**
 * Reads `limit` (1..100, default 100) and `before_id`, also spelled `beforeId` as the official
 * TypeScript client does (both at once is ambiguous); anything else is a 400.
 */
export function pageQuery(request: FastifyRequest, kind: IdKind): PageQuery {
  const query = request.query as Record<string, string | string[] | undefined>;
  let limit = MAX_PAGE;
  let beforeId: string | undefined;
  for (const [name, value] of Object.entries(query)) {
    if (typeof value !== 'string') {
      throw new ServiceError(
        'ERR_INVALID_QUERY',
        `query parameter "${name.slice(0, 40)}" is given more than once`,
      );
    }
    if (name === 'limit') {
      if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > MAX_PAGE) {
        throw new ServiceError('ERR_INVALID_QUERY', `"limit" must be a whole number from 1 to ${MAX_PAGE}`);
      }
      limit = Number(value);
    } else if (name === 'before_id' || name === 'beforeId') {
      if (beforeId !== undefined) {
        throw new ServiceError(
          'ERR_INVALID_QUERY',
          'query parameters "before_id" and "beforeId" mean the same; send only one of them',
        );
      }
      if (!isIdOf(kind, value)) {
        throw new ServiceError('ERR_INVALID_QUERY', `"${name}" must be an ID of the listed kind`);
      }
      beforeId = value;
    } else {
      throw new ServiceError(
        'ERR_INVALID_QUERY',
        `unknown query parameter "${name.slice(0, 40)}"; lists accept limit and before_id`,
      );
    }
  }
  return { limit, beforeId };
}

// Rendered list pages, valid while the store's version is unchanged (clients poll lists far more than
// they write). Small and cleared wholesale: it only has to hold the pages being paged through.
const pageCache = new WeakMap<Store, { version: number; pages: Map<string, string> }>();
const PAGE_CACHE_SIZE = 256;

/** Which list: objects of `kind` under `parent` ('' for top-level), answered under `listKey`. */
export interface ListTarget {
  kind: IdKind;
  parent: string;
  listKey: string;
}

/** One page of a list, newest first: `{<listKey>: [...], uri, next_page_uri}`. */
export function listPage(store: Store, request: FastifyRequest, base: string, target: ListTarget): string {
  let cache = pageCache.get(store);
  if (!cache || cache.version !== store.version || cache.pages.size >= PAGE_CACHE_SIZE) {
    cache = { version: store.version, pages: new Map() };
    pageCache.set(store, cache);
  }
  const key = `${base}${request.url}`;
  let page = cache.pages.get(key);
  if (page === undefined) {
    page = renderPage(store, request, base, target);
    cache.pages.set(key, page);
  }
  return page;
}

function renderPage(store: Store, request: FastifyRequest, base: string, target: ListTarget): string {
  const { kind, parent, listKey } = target;
  const { limit, beforeId } = pageQuery(request, kind);
  const rows = store.list(kind, parent, beforeId, limit + 1);
  const more = rows.length > limit;
  if (more) rows.pop();
  const path = request.url.split('?')[0]!;
  let next = 'null';
  if (more) {
    const last = /^\{"id":"([^"]+)"/.exec(rows[rows.length - 1]!)?.[1];
    next = JSON.stringify(`${base}${path}?limit=${limit}&before_id=${last}`);
  }
  return `{"${listKey}":[${absolutize(rows.join(','), base)}],"uri":${JSON.stringify(base + request.url)},"next_page_uri":${next}}`;
}
