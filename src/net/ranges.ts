// Sets of addresses of one family as sorted, disjoint, non-touching half-open ranges laid flat
// (src/net/cidr-set.ts): union, intersection and difference as linear merges, and the searches.
// IPv4 bounds are numbers, IPv6 bounds bigints; each function serves both.

export type Bound = number | bigint;
/** Ranges laid flat, `[first0, end0, first1, end1, ...]`: each from `first` up to but not including `end`. */
export type Flat<T extends Bound> = readonly T[];
/** Appends `[first, end)` to sorted ranges whose last starts at or before `first`, merging if they meet. */
export function add<T extends Bound>(out: T[], first: T, end: T): void {
  const last = out.length - 1;
  if (last > 0 && first <= (out[last] as T)) {
    if (end > (out[last] as T)) out[last] = end;
  } else out.push(first, end);
}

export function merge<T extends Bound>(a: Flat<T>, b: Flat<T>): Flat<T> {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && (a[i] as T) <= (b[j] as T))) {
      add(out, a[i] as T, a[i + 1] as T);
      i += 2;
    } else {
      add(out, b[j] as T, b[j + 1] as T);
      j += 2;
    }
  }
  return out;
}

/** The union of sorted lists, merged in pairs (each range is copied about log2(lists) times). */
export function unionAll<T extends Bound>(lists: Flat<T>[]): Flat<T> {
  let level = lists.filter((list) => list.length > 0);
  while (level.length > 1) {
    const next: Flat<T>[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const a = level[i] as Flat<T>;
      const b = level[i + 1];
      next.push(b === undefined ? a : merge(a, b));
    }
    level = next;
  }
  return level[0] ?? [];
}

export function intersect<T extends Bound>(a: Flat<T>, b: Flat<T>): Flat<T> {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const aFirst = a[i] as T;
    const aEnd = a[i + 1] as T;
    const bFirst = b[j] as T;
    const bEnd = b[j + 1] as T;
    const first = aFirst > bFirst ? aFirst : bFirst;
    const end = aEnd < bEnd ? aEnd : bEnd;
    if (first < end) out.push(first, end);
    if (aEnd < bEnd) i += 2;
    else j += 2;
  }
  return out;
}

export function subtract<T extends Bound>(a: Flat<T>, b: Flat<T>): Flat<T> {
  if (a.length === 0 || b.length === 0) return a;
  const out: T[] = [];
  let j = 0;
  for (let i = 0; i < a.length; i += 2) {
    let first = a[i] as T;
    const aEnd = a[i + 1] as T;
    while (j < b.length && (b[j + 1] as T) <= first) j += 2;
    for (let k = j; k < b.length && first < aEnd; k += 2) {
      const bFirst = b[k] as T;
      if (bFirst >= aEnd) break;
      if (bFirst > first) out.push(first, bFirst);
      first = b[k + 1] as T;
    }
    if (first < aEnd) out.push(first, aEnd);
  }
  return out;
}

/** The index of the last range of `ranges` that starts at or before `value`; -1 when none does. */
function lastStartingBy<T extends Bound>(ranges: Flat<T>, value: T): number {
  let low = 0;
  let high = ranges.length / 2 - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((ranges[2 * middle] as T) <= value) low = middle + 1;
    else high = middle - 1;
  }
  return high;
}

export function holds<T extends Bound>(ranges: Flat<T>, value: T): boolean {
  const at = lastStartingBy(ranges, value);
  return at >= 0 && value < (ranges[2 * at + 1] as T);
}

/** Each range of `a` lies within one range of `b` (ranges of `b` never touch, so one must hold it). */
export function within<T extends Bound>(a: Flat<T>, b: Flat<T>): boolean {
  for (let i = 0; i < a.length; i += 2) {
    const holder = lastStartingBy(b, a[i] as T);
    if (holder < 0 || (a[i + 1] as T) > (b[2 * holder + 1] as T)) return false;
  }
  return true;
}

export function meets<T extends Bound>(a: Flat<T>, b: Flat<T>): boolean {
  const small = a.length <= b.length ? a : b;
  const large = small === a ? b : a;
  for (let i = 0; i < small.length; i += 2) {
    const first = small[i] as T;
    const end = small[i + 1] as T;
    const before = lastStartingBy(large, first);
    if (before >= 0 && (large[2 * before + 1] as T) > first) return true;
    const next = large[2 * before + 2];
    if (next !== undefined && next < end) return true;
  }
  return false;
}

export function sameRanges<T extends Bound>(a: Flat<T>, b: Flat<T>): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
