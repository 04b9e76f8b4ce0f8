// The full YAML parser's reading of a file: used when the fast reader (plain-yaml.ts) declines, and for
// every problem (tabs, duplicate or `__proto__` keys, alias bombs, several documents...), each located.
import {
  type Document,
  isAlias,
  isCollection,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  type Scalar,
  visit,
  type YAMLError,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';
import type { Extent, PathSegment, ReadData } from './plain-yaml.js';
import { displayPath } from './problems.js';

/** A problem without its file name (the caller adds it). */
export interface YamlProblem {
  line: number;
  col: number;
  path: string;
  message: string;
}

export type DocumentResult =
  | { ok: true; data: ReadData & { linePos: (offset: number) => { line: number; col: number } } }
  | { ok: false; problems: YamlProblem[] };

/** What yaml says of the line after a tab that indents one: its misreading of the tab, not a mistake of its own. */
const MISREAD = new Set(['BLOCK_AS_IMPLICIT_KEY', 'BAD_INDENT', 'MULTILINE_IMPLICIT_KEY']);

export function readYamlDocument(text: string, maxValues: number): DocumentResult {
  const lineCounter = new LineCounter();
  // Duplicate keys are found by checkKeys in linear time; yaml's own check is quadratic in a map's size.
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false, strict: true });
  const pos = (offset: number) => lineCounter.linePos(offset);
  const problems = parseProblems(text, doc, pos);
  if (problems.length > 0) return { ok: false, problems };
  const contents = doc.contents;
  if (!isMap(contents)) return { ok: false, problems: [notAMapping(contents, pos)] };

  checkKeys(
    contents,
    [],
    (offset) => pos(offset).line,
    (segments, offset, message) => {
      const { line, col } = pos(offset);
      problems.push({ line, col, path: displayPath(segments), message });
    },
  );
  if (problems.length > 0) return { ok: false, problems };

  try {
    const { data, extents } = toData(contents, maxValues);
    return { ok: true, data: { data, root: contents.range[0], extents, linePos: pos } };
  } catch (err) {
    if (!(err instanceof AliasError)) throw err;
    const { line, col } = pos(err.offset ?? firstAliasOffset(doc));
    return { ok: false, problems: [{ line, col, path: '', message: err.message }] };
  }
}

type LinePos = (offset: number) => { line: number; col: number };

/** yaml's errors and warnings, one problem for each mistake (a tab or a misindented item says it all). */
function parseProblems(text: string, doc: Document.Parsed, pos: LinePos): YamlProblem[] {
  const problems: YamlProblem[] = [];
  // A tab that indents a line makes yaml misread the rest of that line, and the indentation of the next:
  // the tab says it all.
  const tabbed = new Set(doc.errors.filter((e) => e.code === 'TAB_AS_INDENT').map((e) => pos(e.pos[0]).line));
  const items = new Set<number>();
  const told = new Set<Node>();
  for (const e of [...doc.errors, ...doc.warnings]) {
    // A list item whose "-" is not lined up with the item above makes yaml complain of keys and map
    // values, once or several times: one problem says what it is.
    const item = MISINDENT.has(e.code) ? misindentedItem(text, pos(e.pos[0]).line) : undefined;
    if (item) {
      if (!items.has(item.line)) problems.push(item);
      items.add(item.line);
      continue;
    }
    // yaml follows a misplaced key with a second complaint about the same spot; one says it.
    if (e.code === 'MULTILINE_IMPLICIT_KEY' && problems.length > 0) continue;
    const said = yamlProblem(e, { doc, text, told });
    const { line, col } = pos(said.offset);
    if (e.code !== 'TAB_AS_INDENT' && (tabbed.has(line) || (tabbed.has(line - 1) && MISREAD.has(e.code)))) {
      continue;
    }
    problems.push({ line, col, path: '', message: said.message });
  }
  return problems;
}

/** The problem of a document that is not a mapping of fields: empty, a list or a single value. */
function notAMapping(contents: Document.Parsed['contents'], pos: LinePos): YamlProblem {
  if (contents === null || (isScalar(contents) && contents.value === null)) {
    return {
      line: 1,
      col: 1,
      path: '',
      message:
        'the file is empty; start it with "version: 1" and "owner: NAME", or write a starting file with accord init (accord schema prints every field)',
    };
  }
  const { line, col } = pos(contents.range[0]);
  const what = isSeq(contents) ? 'a list' : 'a single value';
  return {
    line,
    col,
    path: '',
    message: `the file must be a mapping of fields (version: 1, ip_restrictions: ...), not ${what}`,
  };
}

/** Keys must be plain scalars, unique in their mapping and never `__proto__`. Aliases are not followed (they point at checked nodes). */
function checkKeys(
  node: unknown,
  segments: PathSegment[],
  lineOf: (offset: number) => number,
  report: (segments: PathSegment[], offset: number, message: string) => void,
): void {
  if (isMap(node)) {
    /** Each key and where it first appears. */
    const seen = new Map<string, number>();
    for (const pair of node.items) {
      const key = pair.key as Node | null;
      const offset = key?.range?.[0] ?? 0;
      if (!isScalar(key)) {
        report(segments, offset, 'keys must be plain strings');
        continue;
      }
      const name = String(key.value);
      const first = seen.get(name);
      if (first !== undefined) {
        report(
          [...segments, name],
          offset,
          `duplicate key: "${name}" is already at line ${lineOf(first)} of the same mapping; keep one of them`,
        );
      } else seen.set(name, offset);
      if (name === '__proto__') report([...segments, name], offset, '"__proto__" is not allowed as a key');
      if (isMap(pair.value) || isSeq(pair.value)) checkKeys(pair.value, [...segments, name], lineOf, report);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      if (isMap(item) || isSeq(item)) checkKeys(item, [...segments, i], lineOf, report);
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

/** A node as plain data, and how many values it expands to (aliases counted as often as they occur). */
interface Converted {
  value: unknown;
  size: number;
}

/** What one conversion shares across the nodes of the document. */
interface Conversion {
  anchors: Map<string, Node>;
  done: Map<Node, Converted>;
  extents: Map<object, Extent>;
  maxValues: number;
}

/**
 * The document as plain data, with the extent of every mapping and list. Like yaml's toJS, but linear:
 * an alias shares its target's value instead of copying it, and the expanded size is counted rather
 * than built, so alias bombs are refused cheaply. Keys have been checked (plain, unique, no `__proto__`).
 */
function toData(root: Node, maxValues: number): { data: unknown; extents: Map<object, Extent> } {
  const conversion: Conversion = { anchors: new Map(), done: new Map(), extents: new Map(), maxValues };
  return { data: convert(conversion, root).value, extents: conversion.extents };
}

function convert(conversion: Conversion, node: unknown): Converted {
  const { anchors, done, maxValues } = conversion;
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
  const result = isMap(n)
    ? mapData(conversion, n)
    : isSeq(n)
      ? listData(conversion, n)
      : { value: isScalar(n) ? n.value : null, size: 1 };
  if (result.size > maxValues) {
    throw new AliasError(
      `aliases expand the file to more than ${maxValues.toLocaleString('en-US')} values (a "billion laughs" file?); use fewer nested aliases`,
    );
  }
  if (n) done.set(n, result);
  return result;
}

function mapData(conversion: Conversion, n: YAMLMap): Converted {
  const value: Record<string, unknown> = {};
  const offsets = new Map<string, [number, number]>();
  let size = 1;
  for (const pair of n.items) {
    const item = convert(conversion, pair.value);
    const key = String((pair.key as Scalar).value);
    value[key] = item.value;
    offsets.set(key, [start(pair.key), start(pair.value ?? pair.key)]);
    size += item.size;
  }
  // In the order of Object.keys, which puts keys like "1" first.
  const members = Object.keys(value).map((key) => offsets.get(key)!);
  conversion.extents.set(value, {
    start: start(n),
    keys: members.map(([k]) => k),
    values: members.map(([, v]) => v),
  });
  return { value, size };
}

function listData(conversion: Conversion, n: YAMLSeq): Converted {
  const value: unknown[] = [];
  const places: number[] = [];
  let size = 1;
  for (const element of n.items) {
    const item = convert(conversion, element);
    places.push(start(element));
    value.push(item.value);
    size += item.size;
  }
  conversion.extents.set(value, { start: start(n), keys: places, values: places });
  return { value, size };
}

function start(node: unknown): number {
  return (node as Node | null)?.range?.[0] ?? 0;
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

/** The codes yaml gives a list item indented unlike the item above (one space short or over). */
const MISINDENT = new Set(['BAD_INDENT', 'BLOCK_AS_IMPLICIT_KEY', 'MULTILINE_IMPLICIT_KEY', 'MISSING_CHAR']);

/**
 * The problem of line `line` (1-based) when it is a list item (`- ...`) whose "-" is at another column
 * than the "-" of the item above it in the same list (the lines between are that item's, deeper).
 */
function misindentedItem(text: string, at: number): YamlProblem | undefined {
  const lines = text.split('\n');
  const dash = (l: string | undefined) =>
    l === undefined ? undefined : /^( *)- /.exec(`${l} `)?.[1]?.length;
  // yaml may place the complaint on the blank lines before the item.
  let line = at;
  while (line < lines.length && (lines[line - 1] ?? '').trim() === '') line++;
  const col = dash(lines[line - 1]);
  if (col === undefined) return undefined;
  for (let n = line - 1; n >= 1; n--) {
    const l = lines[n - 1] ?? '';
    if (l.trim() === '' || l.trim().startsWith('#')) continue;
    const indent = l.length - l.trimStart().length;
    const above = dash(l);
    if (above !== undefined && above !== col && Math.abs(above - col) <= 2) {
      return {
        line,
        col: col + 1,
        path: '',
        message: `this list item's "-" is at column ${col + 1}, and the item above it (line ${n}) has its "-" at column ${above + 1}; indent every "-" of a list alike, with spaces`,
      };
    }
    if (indent <= col) return undefined;
  }
  return undefined;
}

/**
 * The quoted value yaml found not closed at `offset` (where the text ran out, often the end of the
 * file, far from the mistake), but for those already `told`; undefined when the complaint is of
 * something else (a list in brackets ending there too is complained of after its values).
 */
function unclosedQuote({ doc, text, told }: Reading, offset: number): Scalar | undefined {
  let found: Scalar | undefined;
  visit(doc, {
    Scalar(_, node) {
      const quote = node.type === 'QUOTE_DOUBLE' ? '"' : node.type === 'QUOTE_SINGLE' ? "'" : undefined;
      const r = node.range;
      if (quote === undefined || r?.[1] !== offset || told.has(node)) return;
      // Unclosed as yaml tells it: its text is the opening quote alone, or does not end with one.
      if (r[1] - r[0] === 1 || text[r[1] - 1] !== quote) found = node;
    },
  });
  if (found) told.add(found);
  return found;
}

/**
 * What a BAD_INDENT complaint at `offset` is about, which yaml gives one code: a list or mapping in
 * brackets not closed there (`flow`; each is complained of once, before the keys after it), a key of a
 * mapping (`key`), or a list item or block of text (`other`).
 */
function misindented({ doc, told }: Reading, offset: number): 'flow' | 'key' | 'other' {
  let flow: Node | undefined;
  let innermost: 'key' | 'other' | undefined;
  visit(doc, {
    Node(_, node) {
      const r = node.range;
      if (!r) return;
      if (isCollection(node) && node.flow) {
        // Its closing bracket, or where one was due, is in it: the innermost not yet told.
        if (r[0] < offset && offset <= r[1] && !told.has(node)) flow = node;
      } else if ((isCollection(node) || isBlockScalar(node)) && r[0] <= offset && offset < r[2]) {
        // Visited outside in: the last that holds the offset is the innermost.
        innermost = isMap(node) ? 'key' : 'other';
      }
    },
  });
  if (flow) told.add(flow);
  return flow ? 'flow' : (innermost ?? 'other');
}

function isBlockScalar(node: unknown): boolean {
  return isScalar(node) && (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED');
}

/** What yaml names the first character of a value without quotes that cannot start one. */
function scalarStart(char: string | undefined): string | undefined {
  switch (char) {
    case '\t':
      return 'a tab character';
    case ',':
      return 'flow indicator character ,';
    case '%':
      return 'directive indicator character %';
    case '|':
    case '>':
      return `block scalar indicator ${char}`;
    case '@':
    case '`':
      return `reserved character ${char}`;
    default:
      return undefined;
  }
}

/** The document yaml complains of: its text, and the nodes whose complaint is already told. */
interface Reading {
  doc: Document.Parsed;
  text: string;
  told: Set<Node>;
}

/**
 * yaml's complaint `e`, said in terms of what to change on the line, and where: its code and the
 * document tell the mistake, never its English (passed on as it is where it says more than the code).
 */
function yamlProblem(e: YAMLError, reading: Reading): { offset: number; message: string } {
  const { text } = reading;
  const offset = e.pos[0];
  switch (e.code) {
    case 'MISSING_CHAR': {
      const quoted = unclosedQuote(reading, offset);
      return quoted?.range
        ? { offset: quoted.range[0], message: 'a quoted value is not closed; add the closing quote' }
        : { offset, message: `something is not closed (${e.message}); close it` };
    }
    case 'BAD_INDENT':
      return { offset, message: INDENT_MESSAGES[misindented(reading, offset)] };
    case 'BAD_SCALAR_START': {
      const start = scalarStart(text[offset]);
      const what = start === undefined ? e.message : `a value without quotes cannot start with ${start}`;
      return { offset, message: `${what}; put the value in quotes` };
    }
    default:
      return { offset, message: yamlMessage(e.code, e.message) };
  }
}

const INDENT_MESSAGES = {
  key: 'this key is not lined up with the other keys of its mapping; indent it like them, with spaces',
  flow: 'a list in [ ] or a mapping in { } is not closed on its line, or its next line is not indented enough',
  other: 'the indentation is off here; indent each level with spaces, deeper than its parent',
} as const;

/** The YAML parser's complaints that its code tells alone, said in terms of what to change on the line. */
function yamlMessage(code: string, message: string): string {
  switch (code) {
    case 'TAB_AS_INDENT':
      return 'tabs are not allowed for indentation in YAML; indent with spaces';
    case 'MULTIPLE_DOCS':
      return 'the file holds several YAML documents (---); keep one';
    case 'TAG_RESOLVE_FAILED':
      return `${message}; custom tags are not supported`;
    case 'BLOCK_AS_IMPLICIT_KEY':
      return (
        'this key has a value on its line and more deeply indented lines under it; give it either the ' +
        'value or the nested keys (check the indentation of the next line)'
      );
    case 'MULTILINE_IMPLICIT_KEY':
      return 'a key must be followed by ":" and a space on its own line; check this line for a missing ": "';
    default:
      return `invalid YAML: ${message}`;
  }
}
