// Lists of the local service (DESIGN §7): newest first, `limit` 1..100 (default 100), keyset pages
// with `before_id` (or `beforeId`), `next_page_uri` absolute or null.
import { type IdKind, isIdOf } from '../ids.js';
import { type AnyCollection, pathParent, type ServiceContext } from './collections.js';
import { ServiceError } from './errors.js';
import { absolutize } from './http.js';
import type { Store } from './store.js';

export const MAX_PAGE = 100;

export interface PageQuery {
  limit: number;
  beforeId?: string;
}

/**
 * Reads `limit` (1..100, default 100) and `before_id`, also spelled `beforeId` as the official
 * TypeScript client does (both at once is ambiguous); anything else is a 400.
 */
export function pageQuery(given: unknown, kind: IdKind): PageQuery {
  const query = (given ?? {}) as Record<string, string | string[] | undefined>;
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
const pageCache = new WeakMap<Store, PageCache>();
interface PageCache {
  version: number;
  pages: Map<string, RenderedPage>;
}
const PAGE_CACHE_SIZE = 256;

/** One page of a list, newest first: `{<listKey>: [...], uri, next_page_uri}`. */
export function listPage(
  ctx: ServiceContext,
  c: AnyCollection,
  params: Record<string, string>,
  query: unknown,
  url: string,
  base: string,
): string {
  const { store } = ctx;
  // A nested collection's path names its parent (404 when it does not exist); others list every object.
  const parent = c.parent ? pathParent(ctx, c, params) : undefined;
  let cache = pageCache.get(store);
  if (!cache || cache.version !== store.version || cache.pages.size >= PAGE_CACHE_SIZE) {
    cache = { version: store.version, pages: new Map() };
    pageCache.set(store, cache);
  }
  const key = `${base}${url}`;
  const target = { kind: c.kind, parent, listKey: c.listKey };
  let rendered = cache.pages.get(key);
  if (rendered === undefined) {
    rendered = renderPage(store, target, pageQuery(query, c.kind), url, base);
    cache.pages.set(key, rendered);
  }
  if (rendered.next) renderAhead(store, cache, target, rendered.next, base);
  return rendered.page;
}

type ListTarget = { kind: IdKind; parent: string | undefined; listKey: string };

interface RenderedPage {
  page: string;
  /** The next page's request (its path and query, read), when there is one. */
  next?: { url: string; query: PageQuery };
}

/**
 * A client that asked for a page asks for the next one once it has read it: that page is rendered
 * meanwhile, after this answer goes out, unless the store changes first.
 */
function renderAhead(
  store: Store,
  cache: PageCache,
  target: ListTarget,
  next: NonNullable<RenderedPage['next']>,
  base: string,
): void {
  const key = `${base}${next.url}`;
  if (cache.pages.has(key)) return;
  setImmediate(() => {
    if (pageCache.get(store) !== cache || cache.version !== store.version || cache.pages.has(key)) return;
    if (cache.pages.size >= PAGE_CACHE_SIZE) return;
    cache.pages.set(key, renderPage(store, target, next.query, next.url, base));
  });
}

function renderPage(
  store: Store,
  target: ListTarget,
  query: PageQuery,
  url: string,
  base: string,
): RenderedPage {
  const { kind, parent, listKey } = target;
  const { limit, beforeId } = query;
  const rows = store.list(kind, parent, beforeId, limit + 1);
  const more = rows.length > limit;
  if (more) rows.pop();
  const path = url.split('?')[0]!;
  const last = more ? /^\{"id":"([^"]+)"/.exec(rows[rows.length - 1]!)?.[1] : undefined;
  const nextUrl = last === undefined ? undefined : `${path}?limit=${limit}&before_id=${last}`;
  const page = `{"${listKey}":[${absolutize(rows.join(','), base)}],"uri":${JSON.stringify(base + url)},"next_page_uri":${nextUrl === undefined ? 'null' : JSON.stringify(base + nextUrl)}}`;
  if (nextUrl === undefined) return { page };
  return { page, next: { url: nextUrl, query: { limit, beforeId: last! } } };
}
