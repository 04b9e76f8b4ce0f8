// GET /endpoints (shared/SPEC-endpoints.md "Operations"): a list like every other (lists.ts), plus the
// filters `ids` and `urls`, each repeated (`?ids=a&ids=b`) or comma-separated (`?ids=a,b`). An endpoint
// is listed when its ID is one of `ids` and its URL one of `urls` (compared by identity: scheme, host
// and port). A filtered list pages like any other; its `next_page_uri` keeps the filters.
import { isIdOf } from '../ids.js';
import type { ListHandler } from './collections.js';
import { publicUrl, readEndpointUrl } from './endpoint-url.js';
import { ServiceError } from './errors.js';
import { absolutize } from './http.js';
import { listPage, pageQuery } from './lists.js';

const FILTERS = ['ids', 'urls'] as const;

interface Filters {
  ids?: string[];
  urls?: string[];
}

export const listEndpoints: ListHandler = (ctx, c, params, query, url, base) => {
  const { filters, rest } = readFilters(query);
  if (filters.ids === undefined && filters.urls === undefined)
    return listPage(ctx, c, params, rest, url, base);
  const { limit, beforeId } = pageQuery(rest, 'endpoint');
  const ids = filters.ids && new Set(filters.ids);
  const urls = filters.urls && new Set(filters.urls.map(urlIdentity));
  const rows = ctx.store
    .all('endpoint')
    .map((json) => ({ json, ...(JSON.parse(json) as { id: string; public_url: string }) }))
    .filter((e) => (beforeId === undefined || e.id < beforeId) && (!ids || ids.has(e.id)))
    .filter((e) => !urls || urls.has(e.public_url))
    .sort((a, b) => (a.id < b.id ? 1 : -1));
  const page = rows.slice(0, limit);
  const last = rows.length > limit ? page[page.length - 1]?.id : undefined;
  const path = url.split('?')[0] ?? '';
  let next: string | undefined;
  if (last !== undefined) {
    const search = new URLSearchParams({ limit: String(limit), before_id: last });
    for (const name of FILTERS) {
      const values = filters[name];
      if (values) search.set(name, values.join(','));
    }
    next = `${base}${path}?${search.toString()}`;
  }
  const items = absolutize(page.map((e) => e.json).join(','), base);
  return `{"endpoints":[${items}],"uri":${JSON.stringify(base + url)},"next_page_uri":${next === undefined ? 'null' : JSON.stringify(next)}}`;
};

/** The identity of a URL of the `urls` filter; a value that is not an endpoint URL is a 400. */
function urlIdentity(text: string): string {
  try {
    return publicUrl(readEndpointUrl(text, 'urls'));
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    throw new ServiceError('ERR_INVALID_QUERY', `query parameter ${err.message.replace(/^field /, '')}`);
  }
}

/** The filters (values split at commas, empty ones dropped) and the rest of the query, for pageQuery. */
function readFilters(given: unknown): { filters: Filters; rest: Record<string, unknown> } {
  const rest = { ...((given ?? {}) as Record<string, string | string[] | undefined>) };
  const filters: Filters = {};
  for (const name of FILTERS) {
    const value = rest[name];
    delete rest[name];
    if (value === undefined) continue;
    const values = (Array.isArray(value) ? value : [value])
      .flatMap((v) => v.split(','))
      .filter((v) => v !== '');
    if (values.length === 0) continue;
    if (values.length > 100) {
      throw new ServiceError(
        'ERR_INVALID_QUERY',
        `"${name}" holds ${values.length} values; give at most 100`,
      );
    }
    if (name === 'ids') {
      const bad = values.find((id) => !isIdOf('endpoint', id));
      if (bad !== undefined) {
        throw new ServiceError(
          'ERR_INVALID_QUERY',
          `"ids" holds "${bad.slice(0, 64)}", which is not an endpoint ID (ep_ followed by 27 letters and digits)`,
        );
      }
    }
    filters[name] = values;
  }
  return { filters, rest };
}
