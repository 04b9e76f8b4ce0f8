// Listing a collection page by page (shared/SPEC.md "Pagination"), bounded so that no service pages forever.
import { ApiError, PaginationError } from './errors.js';
import type { ApiTarget } from './target.js';

export const PAGE_SIZE = 100;
/**
 * A million objects of one kind: far beyond any account this tool is for, and reached in seconds by a
 * service whose `next_page_uri` always names a new cursor, which would otherwise be followed forever.
 */
export const MAX_PAGES = 10_000;

/** What a listing needs of the client. */
export interface Lister {
  target: ApiTarget;
  maxPages: number;
  /** The body of a GET of a URL on the API's origin. */
  get(href: string): Promise<unknown>;
}

/**
 * Yields every item of a list, page by page: `?limit=100`, then each `next_page_uri` exactly as
 * given, as long as it stays on the API's origin, never repeats, and the listing stays within
 * `maxPages` pages. With `readAhead`, each next page is asked for before the items of the one before it
 * are yielded.
 */
export async function* listItems<T>(
  lister: Lister,
  path: string,
  listKey: string,
  readAhead: boolean,
): AsyncIterable<T> {
  const first = lister.target.resolve(path);
  if (!first.searchParams.has('limit')) first.searchParams.set('limit', String(PAGE_SIZE));
  const seen = new Set<string>();
  let pending = listPage(lister, first, listKey, seen);
  for (;;) {
    const { items, next } = await pending;
    if (readAhead && next instanceof URL) {
      pending = listPage(lister, next, listKey, seen);
      // Awaited once its page's turn comes; a caller that stops early leaves it unread.
      pending.catch(() => {});
    }
    for (const item of items) yield item as T;
    if (next === undefined) return;
    if (next instanceof Error) throw next;
    if (!readAhead) pending = listPage(lister, next, listKey, seen);
  }
}

/**
 * One page of a list and what comes after it: the next page's URL, undefined at the end, or the error
 * that ends the listing once this page's items are yielded.
 */
async function listPage(
  lister: Lister,
  url: URL,
  listKey: string,
  seen: Set<string>,
): Promise<{ items: unknown[]; next: URL | PaginationError | undefined }> {
  const { target } = lister;
  seen.add(url.href);
  const data = await lister.get(url.href).catch((err: unknown) => {
    throw seen.size === 1 ? notTheApi(err, target) : err;
  });
  const page = data as Record<string, unknown> | null;
  const items = typeof page === 'object' && page !== null ? page[listKey] : undefined;
  if (!Array.isArray(items)) {
    throw new PaginationError(
      `GET ${target.display(url)} answered without a "${listKey}" list; check --api-url points at the API.`,
    );
  }
  return { items, next: nextOf(lister, url, page?.next_page_uri, listKey, seen) };
}

/** A collection that does not exist at all means the base URL is not the API's. */
function notTheApi(err: unknown, target: ApiTarget): unknown {
  if (!(err instanceof ApiError && err.status === 404)) return err;
  return new ApiError({
    status: err.status,
    method: err.method,
    path: err.path,
    msg: err.msg,
    ...(err.errorCode !== undefined ? { errorCode: err.errorCode } : {}),
    ...(err.operationId !== undefined ? { operationId: err.operationId } : {}),
    cause: err,
    hint: `Check that --api-url / ACCORD_API_URL (${target.baseUrl}) is the API's base URL, without an extra path.`,
  });
}

/** The page after `url`: its URL, undefined at the end, or why the listing stops there. */
function nextOf(
  { target, maxPages }: Lister,
  url: URL,
  next: unknown,
  listKey: string,
  seen: Set<string>,
): URL | PaginationError | undefined {
  if (next === null || next === undefined || next === '') return undefined;
  if (seen.size >= maxPages) {
    return new PaginationError(
      `Listing ${listKey} stopped after ${maxPages} pages (${maxPages * PAGE_SIZE} objects at ` +
        `most) with the service still giving a next_page_uri. If the account really holds more, pass ` +
        '--max-pages N with a larger N; otherwise the service pages without end: report it with the ' +
        'listing path.',
    );
  }
  const nextUrl = nextPageUrl(target, url, next);
  if (nextUrl instanceof PaginationError) return nextUrl;
  if (seen.has(nextUrl.href)) {
    return new PaginationError(
      `Listing ${listKey} stopped: next_page_uri ${target.display(nextUrl)} was already fetched, so the ` +
        'pages loop. This is a fault of the service; report it with the listing path.',
    );
  }
  return nextUrl;
}

/** A `next_page_uri` as a URL, or why it cannot be followed: not a URL, or off the API's origin. */
function nextPageUrl(target: ApiTarget, current: URL, next: unknown): URL | PaginationError {
  let url: URL | undefined;
  if (typeof next === 'string') {
    try {
      url = new URL(next, current);
    } catch {
      url = undefined;
    }
  }
  if (!url) {
    return new PaginationError(
      `GET ${target.display(current)} answered with an unusable next_page_uri; it must be a URL or null.`,
    );
  }
  if (url.origin !== target.origin) {
    return new PaginationError(
      `GET ${target.display(current)} answered with a next_page_uri on another origin (${target.redact(url.origin)}); ` +
        `accord sends the API key only to ${target.origin} and stopped listing. Check --api-url.`,
    );
  }
  return url;
}
