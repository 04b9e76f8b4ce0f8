// Entry keys for exported resources (DESIGN §1: [a-z0-9][a-z0-9._-]{0,62}): readable (from the
// description), unique within a section, and stable: the same account always gets the same keys, and a
// resource added later never takes a key an older one had.

export const KEY_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;
const KEY_MAX = 63;
/** Characters of the ID's random tail used to tell resources apart. */
const TAIL = 8;

/** A description as a key, or "" when nothing of it survives. */
export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // combining marks: "café" -> "cafe"
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[^a-z0-9]+/, '');
  return trimEnd(slug.slice(0, KEY_MAX));
}

function trimEnd(s: string): string {
  return s.replace(/[^a-z0-9]+$/, '');
}

/** The ID's last characters, lower-cased; IDs are time-sortable, so the tail is the random part. */
export function idTail(id: string, length = TAIL): string {
  const body = id.slice(id.indexOf('_') + 1).toLowerCase();
  return body.slice(Math.max(0, body.length - length));
}

/** `base-tail`, cutting `base` so that the whole stays a key. */
function suffixed(base: string, tail: string): string {
  const room = KEY_MAX - tail.length - 1;
  const head = trimEnd(base.slice(0, room));
  return head === '' ? tail : `${head}-${tail}`;
}

export interface KeyRequest {
  id: string;
  created_at: string;
  /** The readable base (slug of the description), "" when there is none. */
  base: string;
}

/**
 * Assigns unique keys. `taken` holds keys already used in the section (this owner's markers). Requests
 * are served oldest first, so an older resource keeps its key when newer ones arrive; a base that is
 * empty becomes `fallback-<id tail>`, a taken one `base-<id tail>` (longer tails if even that is taken).
 */
export function assignKeys(
  requests: readonly KeyRequest[],
  fallback: string,
  taken: ReadonlySet<string> = new Set(),
): Map<string, string> {
  const used = new Set(taken);
  const keys = new Map<string, string>();
  for (const r of [...requests].sort(oldestFirst)) {
    const key = uniqueKey(r, fallback, used);
    used.add(key);
    keys.set(r.id, key);
  }
  return keys;
}

function uniqueKey(r: KeyRequest, fallback: string, used: ReadonlySet<string>): string {
  if (r.base !== '' && !used.has(r.base)) return r.base;
  const stem = r.base || fallback;
  const bodyLength = r.id.length - r.id.indexOf('_') - 1;
  for (let length = TAIL; length <= Math.max(TAIL, bodyLength); length++) {
    const candidate = suffixed(stem, idTail(r.id, length));
    if (!used.has(candidate)) return candidate;
  }
  for (let n = 2; ; n++) {
    const candidate = suffixed(stem, `${idTail(r.id)}-${n}`);
    if (!used.has(candidate)) return candidate;
  }
}

function oldestFirst(a: KeyRequest, b: KeyRequest): number {
  const ta = time(a.created_at);
  const tb = time(b.created_at);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A total order even for timestamps that do not parse (they count as newest). */
function time(text: string): number {
  const t = Date.parse(text);
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
}
