// Checks that need no network beyond the schema (byte limits, the metadata marker budget, adopted IDs)
// and the normalization into DesiredState; each kind's own checks (one restriction per type, PEM and
// public key contents, time windows) are its descriptor's `read` (src/resources/).
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { type ManagedSection, managedDescriptors, moduleDescriptors } from '../resources/index.js';
import { mappingEntries } from '../resources/reading.js';
import type { EntryReader, WrittenEntry } from '../resources/types.js';
import { type ReferencedFile, readReferencedFile } from './files.js';
import type { AccordFile } from './generated/accord-file.js';
import { entryBudgetLeft, METADATA_MAX_BYTES } from './marker.js';
import type { DesiredState, SharedFields, SourceLocation } from './model.js';
import { displayPath, type Problem } from './problems.js';
import { locate, type PathSegment, type YamlSource } from './source.js';

export const DESCRIPTION_MAX_BYTES = 255;
export const DEFAULT_OWNER = 'default';

class Checker implements EntryReader {
  readonly problems: Problem[] = [];
  private realBase: string | undefined;
  /** Results computed once per load (parsed PEMs: files often name the same CA file several times). */
  private readonly memos = new Map<string, unknown>();
  private readonly files = new Map<string, ReferencedFile>();

  constructor(
    readonly source: YamlSource,
    readonly baseDir: string,
  ) {}

  /** Each referenced file is read once, however many entries name it. */
  readFile(name: string): ReferencedFile {
    let read = this.files.get(name);
    if (!read) {
      read = readReferencedFile(this.baseDir, name, () => {
        this.realBase ??= realpathSync.native(this.baseDir);
        return this.realBase;
      });
      this.files.set(name, read);
    }
    return read;
  }

  /**
   * The plan's `config_digest`: the YAML's bytes and every file it names, so that a saved plan is
   * made again from exactly the files it was made from (DESIGN §1 "Several files").
   */
  digest(yaml: Uint8Array): string {
    const hash = createHash('sha256').update(yaml);
    for (const name of [...this.files.keys()].sort()) {
      const read = this.files.get(name)!;
      // Length-prefixed, so that no name or content can pass for another's.
      if (read.ok)
        hash.update(`\0${Buffer.byteLength(name)}:${name}${Buffer.byteLength(read.text)}:${read.text}`);
    }
    return hash.digest('hex');
  }

  memo<T>(key: string, compute: () => T): T {
    if (!this.memos.has(key)) this.memos.set(key, compute());
    return this.memos.get(key) as T;
  }

  content(
    at: readonly PathSegment[],
    inline: string | undefined,
    fileField: string,
    fileName: string | undefined,
  ): { text: string; where: PathSegment[]; label: string } | undefined {
    if (typeof inline === 'string') return { text: inline, where: [...at], label: 'the value' };
    if (typeof fileName !== 'string') return undefined;
    const where = [...at.slice(0, -1), fileField];
    const read = this.readFile(fileName);
    if (!read.ok) {
      this.report(where, read.message);
      return undefined;
    }
    return { text: read.text, where, label: `file ${JSON.stringify(fileName)}` };
  }

  report(segments: readonly PathSegment[], message: string): void {
    const { line, col } = locate(this.source, [...segments], 'value');
    this.problems.push({ file: this.source.file, line, col, path: displayPath([...segments]), message });
  }

  loc(segments: readonly PathSegment[]): SourceLocation {
    const { line, col } = locate(this.source, [...segments], 'key');
    return { file: this.source.file, line, col };
  }
}

/**
 * Runs every client-side check on schema-valid data and builds the desired model. `problems` is empty
 * exactly when `state` is set.
 */
export function normalize(
  source: YamlSource,
  absPath: string,
): { state?: DesiredState; problems: Problem[] } {
  const c = new Checker(source, dirname(absPath));
  const file = source.data as AccordFile;
  const owner = file.owner ?? DEFAULT_OWNER;

  const lists: Record<string, unknown[]> = {};
  for (const d of managedDescriptors) {
    const read = [];
    for (const [key, written] of sectionEntries(file, d.section)) {
      const entry = d.read(written, common(c, [d.section, key], owner, key, written), c);
      if (entry) read.push(entry);
    }
    d.checkEntries?.(read, c);
    lists[d.section] = read;
  }
  for (const d of managedDescriptors) checkAdoptedIdsUnique(c, d.section, sectionEntries(file, d.section));
  for (const d of moduleDescriptors) lists[d.list] = d.read(file, c);

  if (c.problems.length > 0) return { problems: c.problems };
  return {
    problems: [],
    state: {
      file: absPath,
      digest: c.digest(source.bytes),
      owner,
      ...lists,
    } as DesiredState,
  };
}

function sectionEntries(file: AccordFile, section: ManagedSection) {
  return mappingEntries<WrittenEntry<ManagedSection>>(file[section]);
}

interface CommonFields {
  id?: string;
  description?: string;
  metadata?: unknown;
  lifecycle?: { prevent_destroy?: boolean };
}

/** description, metadata, lifecycle and id: shared by every managed kind. */
function common(c: Checker, at: PathSegment[], owner: string, key: string, e: CommonFields): SharedFields {
  const description = typeof e.description === 'string' ? e.description : '';
  const bytes = Buffer.byteLength(description, 'utf8');
  if (bytes > DESCRIPTION_MAX_BYTES) {
    c.report(
      [...at, 'description'],
      `is ${bytes} bytes of UTF-8 (${[...description].length} characters); the limit is ${DESCRIPTION_MAX_BYTES} bytes`,
    );
  }
  // `metadata:` with nothing after it is YAML null: treated as unset, like an omitted field.
  const data = e.metadata === null ? undefined : e.metadata;
  const protect = e.lifecycle?.prevent_destroy === true;
  if (data !== undefined) {
    const bad = unrepresentable(data, []);
    if (bad) {
      c.report([...at, 'metadata', ...bad.path], bad.message);
    } else {
      const left = entryBudgetLeft(owner, key, protect, data);
      if (left < 0) {
        c.report(
          [...at, 'metadata'],
          `is too large: stored with accord's ownership marker it takes ${METADATA_MAX_BYTES - left} bytes, ${-left} over the ${METADATA_MAX_BYTES}-byte limit; shorten it by at least ${-left} bytes`,
        );
      }
    }
  }
  return {
    key,
    ...(e.id !== undefined ? { id: e.id } : {}),
    description,
    ...(data !== undefined ? { data } : {}),
    protect,
    loc: c.loc(at),
  };
}

/** Values JSON cannot carry faithfully (they would come back different and never compare equal). */
function unrepresentable(
  v: unknown,
  path: PathSegment[],
): { path: PathSegment[]; message: string } | undefined {
  if (typeof v === 'number' && !Number.isFinite(v)) {
    return { path, message: 'holds .inf or .nan, which JSON cannot store; quote it as a string' };
  }
  if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) {
    return { path, message: 'holds an integer too large to store exactly; quote it as a string' };
  }
  if (typeof v === 'bigint' || typeof v === 'function' || typeof v === 'symbol') {
    return { path, message: 'holds a value JSON cannot store' };
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const bad = unrepresentable(v[i], [...path, i]);
      if (bad) return bad;
    }
  } else if (v instanceof Uint8Array || v instanceof Date || v instanceof Map || v instanceof Set) {
    return {
      path,
      message: 'holds a value JSON cannot store (binary, timestamp or set tag); use plain values',
    };
  } else if (typeof v === 'object' && v !== null) {
    for (const [k, item] of Object.entries(v)) {
      const bad = unrepresentable(item, [...path, k]);
      if (bad) return bad;
    }
  }
  return undefined;
}

function checkAdoptedIdsUnique(c: Checker, section: string, list: Array<[string, CommonFields]>): void {
  const seen = new Map<string, string>();
  for (const [key, entry] of list) {
    if (typeof entry.id !== 'string') continue;
    const first = seen.get(entry.id);
    if (first === undefined) seen.set(entry.id, key);
    else c.report([section, key, 'id'], `"${first}" already adopts ${entry.id}; one entry per resource`);
  }
}
