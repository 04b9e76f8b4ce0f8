// A fast reader for the YAML that desired-state files are written in: block mappings and lists, one-line
// flow collections, plain and quoted one-line scalars, literal block scalars (|), comments, anchors and
// aliases. It returns undefined for anything else (tags, folded or multi-line scalars, tabs, CR, several
// documents, duplicate or `__proto__` keys, a bad alias...); the full parser then reads the file and
// reports any problem. Empty values (`key:` alone) and CRLF line ends also go to the full parser.
//
// Why it stays beside the `yaml` package: speed on the files accord is for. Measured, `yaml`'s
// `parseDocument` takes about 2.3 s for a 10,000-entry, 2.5 MB file and this reader about 0.11 s; from a
// cold start a 1,000-entry file costs `yaml` ~0.5 s of CPU and this reader under a tenth of that
// (`npm run bench` runs `accord validate` on such a file).
//
// How it stays honest: whatever it accepts, it must read exactly as the full parser (YAML 1.2 core
// schema) does. test/config/plain-yaml.test.ts reads the example files and thousands of random files,
// rare constructs (aliases, literal blocks, quoting) included, with both, and fails on any file this
// reader accepts and reads differently in data, key order, offsets or line:col; it also fails unless
// this reader accepts hundreds of them, so that declining everything cannot pass, and checks that it
// declines what it leaves to the full parser. A construct it cannot read exactly must make it return
// undefined, never a guess. Scalars are read by plain-scalars.ts.

import {
  isSpaceOrEnd,
  lineEnd,
  readLiteral,
  readScalar,
  resolvePlain,
  UNSUPPORTED,
  Unsupported,
  type Value,
} from './plain-scalars.js';

export type PathSegment = string | number;

/**
 * Where a mapping or list starts in the text and where each of its keys and values starts (offsets), by
 * member in order (a mapping's members in the order of `Object.keys`, a list's items by index).
 */
export interface Extent {
  start: number;
  keys: number[];
  values: number[];
}

export interface ReadData {
  data: unknown;
  /** Offset of the top-level value. */
  root: number;
  /** The extent of every mapping and list in `data` (an alias's value is its anchor's). */
  extents: Map<object, Extent>;
  /** The 1-based line and column (in UTF-16 units, as yaml counts) of an offset. */
  linePos(offset: number): { line: number; col: number };
}

// Characters the reader leaves to the full parser wherever they appear.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const AVOIDED = /[\x00-\x09\x0b-\x1f\x7f-\x9f\ufeff\u2028\u2029]/;
const KEY = /^[A-Za-z0-9_$][\w.$/-]*$/;
/** Deeper nesting than any desired-state file has; the full parser reports what it makes of it. */
const MAX_DEPTH = 64;
const ANCHOR = /[^\s,[\]{}]/;

/**
 * Reads `text` when it is within the supported subset, else returns undefined. `maxValues` bounds the
 * data's size with aliases expanded; beyond it, undefined too.
 */
export function readPlainYaml(text: string, maxValues: number): ReadData | undefined {
  if (AVOIDED.test(text)) return undefined;
  try {
    return new Reader(text, maxValues).read();
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  }
}

function linePosition(starts: number[]): (offset: number) => { line: number; col: number } {
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, col: offset - starts[low]! + 1 };
  };
}

class Reader {
  private readonly extents = new Map<object, Extent>();
  private readonly anchors = new Map<string, Value>();
  /** Offsets where lines start: the reader visits every line once, in order. */
  private readonly lineStarts = [0];
  /** Start of the current line, its content and that content's column; `at === text.length` at the end. */
  private line = 0;
  private at = 0;
  private indent = 0;
  /** Mappings and lists open around the current point (deeper files go to the full parser). */
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly maxValues: number,
  ) {}

  read(): ReadData | undefined {
    this.advance(0);
    if (this.at >= this.text.length || this.indent !== 0) return undefined;
    const root = this.block(-1);
    // A file must be a mapping: anything else is for the full parser to report.
    if (this.at < this.text.length || Array.isArray(root.value)) return undefined;
    return {
      data: root.value,
      root: root.start,
      extents: this.extents,
      linePos: linePosition(this.lineStarts),
    };
  }

  private get atEnd(): boolean {
    return this.at >= this.text.length;
  }

  /** Moves to the first line from `from` (a line start) holding more than spaces and a comment. */
  private advance(from: number): void {
    const t = this.text;
    let p = from;
    while (p < t.length) {
      this.lineAt(p);
      let q = p;
      while (t[q] === ' ') q++;
      if (q < t.length && t[q] !== '\n' && t[q] !== '#') {
        if (q === p && (t.startsWith('---', p) || t.startsWith('...', p) || t[p] === '%')) throw UNSUPPORTED;
        this.line = p;
        this.at = q;
        this.indent = q - p;
        return;
      }
      const nl = t.indexOf('\n', q);
      if (nl < 0) break;
      p = nl + 1;
    }
    this.line = this.at = t.length;
    this.indent = -1;
  }

  private lineAt(start: number): void {
    if (start > this.lineStarts[this.lineStarts.length - 1]!) this.lineStarts.push(start);
  }

  /** After a value at `p`: only spaces and a comment may follow on the line; then moves on. */
  private endLine(p: number): void {
    const t = this.text;
    let q = p;
    while (t[q] === ' ') q++;
    if (t[q] === '#' && q > p) q = t.indexOf('\n', q) < 0 ? t.length : t.indexOf('\n', q);
    if (q < t.length && t[q] !== '\n') throw UNSUPPORTED;
    this.advance(q + 1);
  }

  private isSeqItem(p: number): boolean {
    return this.text[p] === '-' && isSpaceOrEnd(this.text[p + 1]);
  }

  /** The block mapping or list whose first line is the current one (indented more than `parent`). */
  private block(parent: number): Value {
    if (this.indent <= parent && !(this.indent === parent && this.isSeqItem(this.at))) throw UNSUPPORTED;
    if (++this.depth > MAX_DEPTH) throw UNSUPPORTED;
    const value = this.isSeqItem(this.at) ? this.blockSeq() : this.blockMap();
    this.depth--;
    return value;
  }

  private blockMap(): Value {
    const t = this.text;
    const indent = this.indent;
    const value: Record<string, unknown> = {};
    const extent: Extent = { start: this.at, keys: [], values: [] };
    let size = 1;
    while (!this.atEnd && this.indent === indent) {
      const keyAt = this.at;
      const colon = t.indexOf(':', keyAt);
      if (colon < 0 || !isSpaceOrEnd(t[colon + 1])) throw UNSUPPORTED;
      const key = this.key(t.slice(keyAt, colon), value);
      extent.keys.push(keyAt);
      const item = this.afterIndicator(colon + 1, indent, true);
      extent.values.push(item.start);
      value[key] = item.value;
      size += item.size;
    }
    if (this.indent > indent) throw UNSUPPORTED;
    return this.container(value, extent, size);
  }

  private blockSeq(): Value {
    const t = this.text;
    const indent = this.indent;
    const value: unknown[] = [];
    const places: number[] = [];
    const extent: Extent = { start: this.at, keys: places, values: places };
    let size = 1;
    while (!this.atEnd && this.indent === indent && this.isSeqItem(this.at)) {
      let p = this.at + 1;
      while (t[p] === ' ') p++;
      let item: Value;
      if (p > this.at + 1 && this.isCompactMap(p)) {
        // `- key: value` opens a mapping whose keys line up with `key`.
        this.at = p;
        this.indent = p - this.line;
        item = this.blockMap();
        if (this.indent > indent) throw UNSUPPORTED;
      } else {
        if (this.isSeqItem(p)) throw UNSUPPORTED;
        item = this.afterIndicator(this.at + 1, indent, false);
      }
      places.push(item.start);
      value.push(item.value);
      size += item.size;
    }
    if (this.indent > indent) throw UNSUPPORTED;
    return this.container(value, extent, size);
  }

  /** Whether the line from `p` is `key: ...` (a plain key). */
  private isCompactMap(p: number): boolean {
    const t = this.text;
    const end = lineEnd(t, p);
    const colon = t.indexOf(':', p);
    return colon >= 0 && colon < end && isSpaceOrEnd(t[colon + 1]) && KEY.test(t.slice(p, colon));
  }

  /**
   * A plain key of `map` (keys are never numbers, so `Object.keys` keeps their order). A key already
   * there, or inherited (`constructor`...), is left to the full parser.
   */
  private key(name: string, map: object): string {
    // yaml refuses implicit keys over 1,024 characters.
    if (name.length > 1000 || !KEY.test(name) || typeof resolvePlain(name) !== 'string') throw UNSUPPORTED;
    if (name === '__proto__' || (map as Record<string, unknown>)[name] !== undefined) throw UNSUPPORTED;
    return name;
  }

  private container(value: object, extent: Extent, size: number): Value {
    if (size > this.maxValues) throw UNSUPPORTED;
    this.extents.set(value, extent);
    return { value, start: extent.start, size };
  }

  /**
   * The value after `key:` or `-` (at `p`, the indicator's end), on this line or, for a mapping or list,
   * on the lines below. `sameIndentList`: a list may start at the indicator's own indentation.
   */
  private afterIndicator(p: number, indent: number, sameIndentList: boolean): Value {
    const t = this.text;
    let q = p;
    while (t[q] === ' ') q++;
    let anchor: Value | undefined;
    if (t[q] === '&') {
      const end = this.tokenEnd(q + 1);
      anchor = this.anchor(t.slice(q + 1, end), t[end]);
      q = this.skipSpaces(end);
    }
    let item: Value;
    if (q >= t.length || t[q] === '\n' || (t[q] === '#' && q > p)) {
      this.endLine(q);
      const nested =
        !this.atEnd &&
        (this.indent > indent || (sameIndentList && this.indent === indent && this.isSeqItem(this.at)));
      if (!nested) throw UNSUPPORTED; // an empty value: its position is the full parser's business
      item = this.block(indent);
    } else {
      const c = t[q];
      if (c === '|') {
        item = this.literal(q, indent);
      } else {
        if (c === '*' && anchor !== undefined) throw UNSUPPORTED;
        const inline =
          c === '*' ? this.alias(q) : c === '[' || c === '{' ? this.flow(q) : readScalar(t, q, false);
        this.endLine(inline.end);
        if (!this.atEnd && this.indent > indent) throw UNSUPPORTED;
        item = inline;
      }
    }
    this.anchored(anchor, item);
    return item;
  }

  /** Notes an anchor `&name` (followed by `next`) whose value is being read. */
  private anchor(name: string, next: string | undefined): Value {
    if (name === '' || name.endsWith(':') || !isSpaceOrEnd(next)) throw UNSUPPORTED;
    const pending = { value: name, start: -1, size: -1 };
    this.anchors.set(name, pending);
    return pending;
  }

  /** An anchored value is done: aliases after it get it, unless an anchor inside took the name since. */
  private anchored(pending: Value | undefined, item: Value): void {
    const name = pending?.value as string;
    if (pending && this.anchors.get(name) === pending) this.anchors.set(name, item);
  }

  private tokenEnd(p: number): number {
    const t = this.text;
    let q = p;
    while (q < t.length && ANCHOR.test(t[q]!)) q++;
    return q;
  }

  private alias(q: number): Value & { end: number } {
    const end = this.tokenEnd(q + 1);
    const name = this.text.slice(q + 1, end);
    const target = this.anchors.get(name);
    if (!target || target.size < 0 || name.endsWith(':')) throw UNSUPPORTED;
    return { value: target.value, start: q, size: target.size, end };
  }

  /** A flow list or mapping at `q` that closes on the same line. */
  private flow(q: number): Value & { end: number } {
    const t = this.text;
    if (++this.depth > MAX_DEPTH) throw UNSUPPORTED;
    const open = t[q];
    const close = open === '[' ? ']' : '}';
    const isMap = open === '{';
    const value: Record<string, unknown> | unknown[] = isMap ? {} : [];
    const keys: number[] = [];
    const extent: Extent = { start: q, keys, values: isMap ? [] : keys };
    let size = 1;
    let p = this.skipSpaces(q + 1);
    if (t[p] === close) {
      this.extents.set(value, extent);
      this.depth--;
      return { value, start: q, size, end: p + 1 };
    }
    for (;;) {
      let key: string | undefined;
      if (isMap) {
        const colon = t.indexOf(':', p);
        if (colon < 0 || t[colon + 1] !== ' ') throw UNSUPPORTED;
        key = this.key(t.slice(p, colon), value);
        keys.push(p);
        p = this.skipSpaces(colon + 1);
      }
      const item = this.flowValue(p);
      if (isMap) {
        extent.values.push(item.start);
        (value as Record<string, unknown>)[key!] = item.value;
      } else {
        keys.push(item.start);
        (value as unknown[]).push(item.value);
      }
      size += item.size;
      p = this.skipSpaces(item.end);
      if (t[p] === close) break;
      if (t[p] !== ',') throw UNSUPPORTED;
      p = this.skipSpaces(p + 1);
      if (t[p] === close || t[p] === ',') throw UNSUPPORTED;
    }
    if (size > this.maxValues) throw UNSUPPORTED;
    this.extents.set(value, extent);
    this.depth--;
    return { value, start: q, size, end: p + 1 };
  }

  private flowValue(p: number): Value & { end: number } {
    const t = this.text;
    let q = p;
    let anchor: Value | undefined;
    if (t[q] === '&') {
      const end = this.tokenEnd(q + 1);
      anchor = this.anchor(t.slice(q + 1, end), t[end] === '\n' ? '' : t[end]);
      q = this.skipSpaces(end);
    }
    let item: Value & { end: number };
    const c = t[q];
    if (c === '*') {
      if (anchor !== undefined) throw UNSUPPORTED;
      item = this.alias(q);
    } else if (c === '[' || c === '{') item = this.flow(q);
    else if (c === undefined || c === '\n' || c === ',' || c === ']' || c === '}') throw UNSUPPORTED;
    else item = readScalar(t, q, true);
    this.anchored(anchor, item);
    return item;
  }

  private skipSpaces(p: number): number {
    while (this.text[p] === ' ') p++;
    return p;
  }

  /** A literal block scalar (`|`, `|-`) whose header is at `q`, in a node indented by `indent`. */
  private literal(q: number, indent: number): Value {
    const { value, next } = readLiteral(this.text, q, indent, (start) => this.lineAt(start));
    this.advance(next);
    if (!this.atEnd && this.indent > indent) throw UNSUPPORTED;
    return { value, start: q, size: 1 };
  }
}
