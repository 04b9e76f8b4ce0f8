// Reading accord.yaml into data plus a way back from any path in it to a line and column.
import { readFile, stat } from 'node:fs/promises';
import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type Pair,
  parseDocument,
  type Scalar,
  visit,
  type YAMLMap,
} from 'yaml';
import { displayPath, type Problem } from './problems.js';

/** Larger files are refused before parsing: a desired-state file is a few hundred KB at most. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/**
 * Values the data may hold once every alias counts as a copy of its target: far more than a 10 MB file
 * holds without aliases, far less than a "billion laughs" file expands to.
 */
const MAX_EXPANDED_VALUES = 5_000_000;

export type PathSegment = string | number;

export interface YamlSource {
  /** The file as the user named it, for messages. */
  file: string;
  bytes: Buffer;
  text: string;
  doc: Document.Parsed;
  lineCounter: LineCounter;
  data: unknown;
}

export type ReadResult = { ok: true; source: YamlSource } | { ok: false; problems: Problem[] };

/** Reads and parses `path`; every failure is a located problem, never an exception. */
export async function readYamlSource(file: string, path: string): Promise<ReadResult> {
  const at = (line: number, col: number, message: string, where = ''): ReadResult => ({
    ok: false,
    problems: [{ file, line, col, path: where, message }],
  });
  let bytes: Buffer;
  try {
    const info = await stat(path);
    if (info.isDirectory()) return at(1, 1, 'is a directory; name the YAML file itself with -f FILE');
    // Reading a FIFO or a device would wait for a writer or never end.
    if (!info.isFile()) return at(1, 1, 'is not a regular file; name the YAML file itself with -f FILE');
    if (info.size > MAX_FILE_BYTES) {
      return at(1, 1, `file is ${mib(info.size)}; the limit is ${mib(MAX_FILE_BYTES)}`);
    }
    bytes = await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return at(1, 1, 'file not found; create it or name another one with -f FILE');
    return at(1, 1, `cannot read the file (${code ?? 'unknown error'})`);
  }
  // The file may have grown between stat and read.
  if (bytes.length > MAX_FILE_BYTES) return at(1, 1, `file is over the ${mib(MAX_FILE_BYTES)} limit`);

  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    const { line, col } = bytePosition(bytes, offset);
    return at(
      line,
      col,
      `is not valid UTF-8 (byte 0x${hex(bytes[offset])} at offset ${offset}); save the file as UTF-8`,
    );
  }

  const lineCounter = new LineCounter();
  // Duplicate keys are found by checkKeys in linear time; yaml's own check is quadratic in a map's size.
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false, strict: true });
  const pos = (offset: number) => lineCounter.linePos(offset);
  const problems: Problem[] = [];
  for (const e of [...doc.errors, ...doc.warnings]) {
    const { line, col } = pos(e.pos[0]);
    problems.push({ file, line, col, path: '', message: yamlMessage(e.code, e.message) });
  }
  if (problems.length > 0) return { ok: false, problems };

  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
    return at(1, 1, 'the file is empty; start it with "version: 1" (see examples/accord.yaml)');
  }
  if (!isMap(doc.contents)) {
    const { line, col } = pos(doc.contents.range[0]);
    const what = isSeq(doc.contents) ? 'a list' : 'a single value';
    return at(
      line,
      col,
      `the file must be a mapping of fields (version: 1, ip_restrictions: ...), not ${what}`,
    );
  }

  checkKeys(doc.contents, [], (segments, offset, message) => {
    const { line, col } = pos(offset);
    problems.push({ file, line, col, path: displayPath(segments), message });
  });
  if (problems.length > 0) return { ok: false, problems };

  let data: unknown;
  try {
    data = toData(doc.contents);
  } catch (err) {
    if (!(err instanceof AliasError)) throw err;
    const { line, col } = pos(err.offset ?? firstAliasOffset(doc));
    return at(line, col, err.message);
  }
  return { ok: true, source: { file, bytes, text, doc, lineCounter, data } };
}

/**
 * The line and column of a node, from its data path. `target: 'key'` points at the map key naming the
 * node (for "missing field" or "unknown field"); it falls back to the deepest node found.
 */
export function locate(
  source: YamlSource,
  segments: readonly PathSegment[],
  target: 'key' | 'value' = 'value',
): { line: number; col: number } {
  let node: unknown = source.doc.contents;
  let keyNode: Node | undefined;
  let found = true;
  for (const segment of segments) {
    if (isAlias(node)) node = node.resolve(source.doc);
    if (isMap(node)) {
      const pair = pairsByKey(node).get(String(segment));
      if (!pair) {
        found = false;
        break;
      }
      keyNode = pair.key as Node;
      node = pair.value ?? pair.key;
    } else if (isSeq(node) && typeof segment === 'number' && node.items[segment] !== undefined) {
      node = node.items[segment];
      keyNode = node as Node;
    } else {
      found = false;
      break;
    }
  }
  const valueNode = node as Node | undefined;
  const chosen = target === 'key' && found ? (keyNode ?? valueNode) : (valueNode ?? keyNode);
  const offset = chosen?.range?.[0] ?? 0;
  return source.lineCounter.linePos(offset);
}

/** Keys must be plain scalars, unique in their mapping and never `__proto__`. Aliases are not followed (they point at checked nodes). */
function checkKeys(
  node: unknown,
  segments: PathSegment[],
  report: (segments: PathSegment[], offset: number, message: string) => void,
): void {
  if (isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      const key = pair.key as Node | null;
      const offset = key?.range?.[0] ?? 0;
      if (!isScalar(key)) {
        report(segments, offset, 'keys must be plain strings');
        continue;
      }
      const name = String(key.value);
      if (seen.has(name)) {
        report([...segments, name], offset, 'duplicate key: this key appears earlier in the same mapping');
      }
      seen.add(name);
      if (name === '__proto__') report([...segments, name], offset, '"__proto__" is not allowed as a key');
      if (isMap(pair.value) || isSeq(pair.value)) checkKeys(pair.value, [...segments, name], report);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      if (isMap(item) || isSeq(item)) checkKeys(item, [...segments, i], report);
    });
  }
}

class AliasError extends Error {
  constructor(
    message: string,
    readonly offset?: number,
  ) {
    super(message);
  }
}

/**
 * The document as plain data. Like yaml's toJS, but linear: an alias shares its target's value instead
 * of copying it, and the expanded size is counted rather than built, so alias bombs are refused cheaply.
 * Keys have been checked (plain, unique, no `__proto__`) before.
 */
function toData(root: Node): unknown {
  const anchors = new Map<string, Node>();
  const done = new Map<Node, { value: unknown; size: number }>();
  const convert = (node: unknown): { value: unknown; size: number } => {
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      const converted = target && done.get(target);
      if (!converted) {
        const why = target ? 'is inside the value it refers to' : 'has no anchor (&name) before it';
        throw new AliasError(`alias *${node.source} ${why}`, node.range?.[0]);
      }
      return converted;
    }
    const n = node as Node | null;
    if (n?.anchor) anchors.set(n.anchor, n);
    let result: { value: unknown; size: number };
    if (isMap(n)) {
      const value: Record<string, unknown> = {};
      let size = 1;
      for (const pair of n.items) {
        const item = convert(pair.value);
        value[String((pair.key as Scalar).value)] = item.value;
        size += item.size;
      }
      result = { value, size };
    } else if (isSeq(n)) {
      const value: unknown[] = [];
      let size = 1;
      for (const element of n.items) {
        const item = convert(element);
        value.push(item.value);
        size += item.size;
      }
      result = { value, size };
    } else {
      result = { value: isScalar(n) ? n.value : null, size: 1 };
    }
    if (result.size > MAX_EXPANDED_VALUES) {
      throw new AliasError(
        `aliases expand the file to more than ${MAX_EXPANDED_VALUES.toLocaleString('en-US')} values (a "billion laughs" file?); use fewer nested aliases`,
      );
    }
    if (n) done.set(n, result);
    return result;
  };
  return convert(root).value;
}

const pairIndex = new WeakMap<YAMLMap, Map<string, Pair>>();

/** A mapping's pairs by key, built once: locating every entry of a large file stays linear. */
function pairsByKey(map: YAMLMap): Map<string, Pair> {
  let index = pairIndex.get(map);
  if (!index) {
    index = new Map();
    for (const pair of map.items) {
      if (isScalar(pair.key) && !index.has(String(pair.key.value))) index.set(String(pair.key.value), pair);
    }
    pairIndex.set(map, index);
  }
  return index;
}

function firstAliasOffset(doc: Document.Parsed): number {
  let offset = 0;
  visit(doc, {
    Alias(_, node) {
      offset = node.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  return offset;
}

function yamlMessage(code: string, message: string): string {
  if (code === 'TAB_AS_INDENT') return 'tabs are not allowed for indentation in YAML; indent with spaces';
  if (code === 'MULTIPLE_DOCS') return 'the file holds several YAML documents (---); keep one';
  if (code === 'TAG_RESOLVE_FAILED') return `${message}; custom tags are not supported`;
  return `invalid YAML: ${message}`;
}

/** Offset of the first byte that is not part of a well-formed UTF-8 sequence. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let need = 0;
    let min = 0;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else return i;
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return i;
}

function bytePosition(bytes: Buffer, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  const col = new TextDecoder('utf-8').decode(bytes.subarray(lineStart, offset)).length + 1;
  return { line, col };
}

function hex(b: number | undefined): string {
  return (b ?? 0).toString(16).padStart(2, '0');
}

function mib(n: number): string {
  return `${(n / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;
}
