// Reading accord.yaml into data plus a way back from any path in it to a line and column.
import { readFile, stat } from 'node:fs/promises';
import { isRecord } from '../resources/values.js';
import { type Extent, type PathSegment, readPlainYaml } from './plain-yaml.js';
import type { Problem } from './problems.js';

/** Larger files are refused before parsing: a desired-state file is a few hundred KB at most. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;
/**
 * Values the data may hold once every alias counts as a copy of its target: far more than a 10 MB file
 * holds without aliases, far less than a "billion laughs" file expands to.
 */
const MAX_EXPANDED_VALUES = 5_000_000;

export type { PathSegment };

export interface YamlSource {
  /** The file as the user named it, for messages. */
  file: string;
  bytes: Buffer;
  text: string;
  data: unknown;
  /** Offset of the top-level mapping. */
  root: number;
  /** Where every mapping and list of `data` and their members start. */
  extents: Map<object, Extent>;
  linePos(offset: number): { line: number; col: number };
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
    if (code === 'ENOENT')
      return at(
        1,
        1,
        'file not found; write one with accord init (a starting file) or accord export (one that adopts the account as it is), or name another with -f FILE',
      );
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
      `${file} is not valid UTF-8: byte 0x${hex(bytes[offset])} at byte offset ${offset} (line ${line}, column ${col}); save the file as UTF-8`,
    );
  }

  const plain = readPlainYaml(text, MAX_EXPANDED_VALUES);
  if (plain && isRecord(plain.data)) {
    return { ok: true, source: { file, bytes, text, ...plain } };
  }
  // Anything else (and every problem) is left to the full parser, loaded only then.
  const { readYamlDocument } = await import('./yaml-document.js');
  const read = readYamlDocument(text, MAX_EXPANDED_VALUES);
  if (!read.ok) return { ok: false, problems: read.problems.map((p) => ({ file, ...p })) };
  return { ok: true, source: { file, bytes, text, ...read.data } };
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
  let node: unknown = source.data;
  let offset = source.root;
  let keyOffset: number | undefined;
  let found = true;
  for (const segment of segments) {
    const extent = typeof node === 'object' && node !== null ? source.extents.get(node) : undefined;
    const index = extent ? memberIndex(node as object, segment) : -1;
    if (!extent || index < 0) {
      // Not found: the deepest node found (through an alias, the anchored one).
      if (extent) offset = extent.start;
      found = false;
      break;
    }
    keyOffset = extent.keys[index];
    offset = extent.values[index]!;
    node = (node as Record<PathSegment, unknown>)[segment];
  }
  return source.linePos(target === 'key' && found ? (keyOffset ?? offset) : offset);
}

const memberIndexes = new WeakMap<object, Map<string, number>>();

/**
 * The position of `segment` among a list's items or a mapping's keys (-1 if absent); large mappings get
 * an index, built once.
 */
function memberIndex(node: object, segment: PathSegment): number {
  if (Array.isArray(node)) return typeof segment === 'number' && segment < node.length ? segment : -1;
  const name = String(segment);
  let index = memberIndexes.get(node);
  if (!index) {
    // Listing a large mapping's keys costs as much as indexing them.
    const names = Object.keys(node);
    if (names.length <= 16) return names.indexOf(name);
    index = new Map(names.map((n, i) => [n, i]));
    memberIndexes.set(node, index);
  }
  return index.get(name) ?? -1;
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
