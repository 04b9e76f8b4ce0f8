// Checks of one file that need no network beyond the schema (byte limits, the metadata marker budget)
// and its normalization into the desired model's lists; each kind's own checks (PEM and public key
// contents, time windows) are its descriptor's `read` (src/resources/). What concerns several entries
// is checked on all the files together (src/config/merge.ts).
import { realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type ManagedSection, managedDescriptors, moduleDescriptors } from '../resources/index.js';
import { entryBudgetLeft, METADATA_MAX_BYTES } from '../resources/marker.js';
import { mappingEntries } from '../resources/reading.js';
import type { DocumentAt, EntryReader, ManagedEntry, WrittenEntry } from '../resources/types.js';
import { closest } from '../suggest.js';
import { type ReferencedFile, readReferencedFile } from './files.js';
import type { AccordFile } from './generated/accord-file.js';
import type { DesiredGuard } from './guard-model.js';
import { readGuards } from './guards.js';
import type { SharedFields, SourceLocation } from './model.js';
import { readPlainYaml } from './plain-yaml.js';
import { displayPath, type Problem } from './problems.js';
import { schemaProblems, validatePolicyDocument } from './schema.js';
import { locate, type PathSegment, type YamlSource } from './source.js';

export const DESCRIPTION_MAX_BYTES = 255;
/** Values a document file may hold with aliases expanded: far more than a policy has. */
const MAX_DOCUMENT_VALUES = 100_000;
export const DEFAULT_OWNER = 'default';

/** What reading one file takes from the others (DESIGN §1 "Several files"). */
export interface FileContext {
  /** The owner of the desired state: a file without `owner` takes it from the one that has it. */
  owner: string;
  /** Each managed section's keys, over every file: references by key work across files. */
  keys: ReadonlyMap<string, ReadonlySet<string>>;
}

export class Checker implements EntryReader {
  readonly problems: Problem[] = [];
  private realBase: string | undefined;
  /** Results computed once per load (parsed PEMs: files often name the same CA file several times). */
  private readonly memos = new Map<string, unknown>();
  /** By name and size limit (`10485760:cidrs/office.txt`): the same file may be read under two limits. */
  private readonly files = new Map<string, { name: string; read: ReferencedFile }>();

  constructor(
    readonly source: YamlSource,
    readonly baseDir: string,
    private readonly context: FileContext,
  ) {}

  keys(section: string): ReadonlySet<string> {
    return this.context.keys.get(section) ?? new Set();
  }

  /** The files this file named that could be read, by absolute path (not resolving links), for the digest. */
  referenced(): { path: string; text: string }[] {
    const out: { path: string; text: string }[] = [];
    for (const { name, read } of this.files.values())
      if (read.ok) out.push({ path: resolve(this.baseDir, name), text: read.text });
    return out;
  }

  /** Each referenced file is read once, however many entries name it. */
  readFile(name: string, maxBytes?: number): ReferencedFile {
    const cacheKey = `${maxBytes ?? ''}:${name}`;
    let read = this.files.get(cacheKey)?.read;
    if (!read) {
      read = readReferencedFile(
        this.baseDir,
        name,
        () => {
          this.realBase ??= realpathSync.native(this.baseDir);
          return this.realBase;
        },
        maxBytes,
      );
      this.files.set(cacheKey, { name, read });
    }
    return read;
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
    maxBytes?: number,
  ): { text: string; where: PathSegment[]; label: string } | undefined {
    if (typeof inline === 'string') return { text: inline, where: [...at], label: 'the value' };
    if (typeof fileName !== 'string') return undefined;
    const where = [...at.slice(0, -1), fileField];
    const read = this.readFile(fileName, maxBytes);
    if (!read.ok) {
      this.report(where, read.message);
      return undefined;
    }
    return { text: read.text, where, label: `file ${JSON.stringify(fileName)}` };
  }

  /** References by key met while reading, checked once every section is read. */
  readonly references: { path: PathSegment[]; section: string; value: string; at?: DocumentAt }[] = [];

  reference(path: readonly PathSegment[], section: string, value: string, at?: DocumentAt): void {
    this.references.push({ path: [...path], section, value, ...(at ? { at } : {}) });
  }

  /** The full YAML parser, for a document file the fast reader declines: loaded by `normalize` when needed. */
  fullParser: typeof import('./yaml-document.js') | undefined;

  document(
    at: readonly PathSegment[],
    fileName: string,
    definition: 'trafficPolicy',
  ): DocumentAt | undefined {
    const read = this.readFile(fileName);
    if (!read.ok) {
      this.report(at, read.message);
      return undefined;
    }
    const file = join(dirname(this.source.file), fileName);
    const parsed = readPlainYaml(read.text, MAX_DOCUMENT_VALUES) ?? this.fullParse(file, read.text);
    if (parsed === undefined) return undefined;
    const source: YamlSource = { file, bytes: Buffer.from(read.text), text: read.text, ...parsed };
    const validators = { trafficPolicy: validatePolicyDocument };
    this.problems.push(...schemaProblems(source, validators[definition]));
    return {
      data: parsed.data,
      report: (path, message) => {
        const { line, col } = locate(source, [...path], 'value');
        this.problems.push({ file, line, col, path: displayPath([...path]), message });
      },
    };
  }

  /** A document file parsed by the full parser, its problems reported; undefined when it has some. */
  private fullParse(file: string, text: string) {
    if (!this.fullParser) throw new Error('the full YAML parser was not loaded for a document file');
    const read = this.fullParser.readYamlDocument(text, MAX_DOCUMENT_VALUES);
    if (read.ok) return read.data;
    this.problems.push(...read.problems.map((p) => ({ file, ...p })));
    return undefined;
  }

  report(segments: readonly PathSegment[], message: string): void {
    const { line, col } = locate(this.source, [...segments], 'value');
    this.problems.push({ file: this.source.file, line, col, path: displayPath([...segments]), message });
  }

  loc(segments: readonly PathSegment[]): SourceLocation {
    const { line, col } = locate(this.source, segments, 'key');
    return { file: this.source.file, line, col };
  }
}

/**
 * Entries read between two turns of the event loop. A plan reads the account while it reads its files
 * (src/cli/planning.ts): each turn lets the next page of a list be asked for while the service prepares
 * it, where a file of thousands of entries would otherwise hold every page until it is read whole. A
 * page of 100 objects comes in over several turns (a read per chunk), so turns must be frequent: with
 * 64 entries between them, two thirds of a 10,000-entry plan's pages were still to come when its file
 * was read; with 16, the plan bench is some 30 ms quicker (bench/plan.mjs, runs interleaved).
 */
const ENTRIES_BETWEEN_TURNS = 16;

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs every client-side check of one file (its schema problems aside) and reads its entries into the
 * desired model's lists (a managed kind's under its section, a module kind's under its list). Entries
 * the checks found wrong may be missing; the reader, with its problems, is kept for the checks across
 * files.
 */
export async function normalize(
  source: YamlSource,
  absPath: string,
  context: FileContext,
): Promise<{ lists: Record<string, unknown[]>; guards: DesiredGuard[]; reader: Checker }> {
  const c = new Checker(source, dirname(absPath), context);
  const file = source.data as AccordFile;
  const { owner } = context;

  // A file whose entries name YAML document files may need the full parser for them (its loading costs
  // a run that names none some 80 ms, so it is loaded only here).
  if (managedDescriptors.some((d) => namesDocumentFiles(file, d))) {
    c.fullParser = await import('./yaml-document.js');
  }
  const lists: Record<string, unknown[]> = {};
  for (const d of managedDescriptors) {
    const within = d.within;
    if (within) {
      // Written inside their parent's entries, which were read first (registry order).
      lists[d.section] = (lists[within.section] as ManagedEntry[]).flatMap((p) => within.entries(p));
      continue;
    }
    const read = [];
    let n = 0;
    for (const [key, written] of sectionEntries(file, d.section)) {
      const entry = d.read(written, common(c, [d.section, key], owner, key, written), c);
      if (entry) read.push(entry);
      if (++n % ENTRIES_BETWEEN_TURNS === 0) await nextTurn();
    }
    lists[d.section] = read;
  }
  for (const d of moduleDescriptors) lists[d.list] = d.read(file, c);
  const guards = readGuards(file, c);
  checkReferences(c);
  return { lists, guards, reader: c };
}

/** Whether an entry of the kind's section in `file` names a document file (its `documentFiles`). */
function namesDocumentFiles(file: AccordFile, d: (typeof managedDescriptors)[number]): boolean {
  const fields = d.documentFiles;
  if (!fields) return false;
  return sectionEntries(file, d.section).some(([, e]) =>
    fields.some((f) => (e as Record<string, unknown>)[f] !== undefined),
  );
}

/** A managed section's entries whose value is a mapping, in file order. */
export function sectionEntries(file: AccordFile, section: ManagedSection) {
  return mappingEntries<WrittenEntry<ManagedSection>>(file[section as keyof AccordFile] as never);
}

export interface CommonFields {
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
  // Built in field order, id and data only where the file sets them: absent, not undefined.
  const shared = { key } as SharedFields;
  if (e.id !== undefined) shared.id = e.id;
  shared.description = description;
  if (data !== undefined) shared.data = data;
  shared.protect = protect;
  shared.loc = c.loc(at);
  return shared;
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

/**
 * Every reference by key (`ip_policies: [office]`) names an entry of its section; an ID with the
 * section's prefix is checked against the account when planning.
 */
function checkReferences(c: Checker): void {
  for (const ref of c.references) {
    const target = managedDescriptors.find((d) => d.section === ref.section);
    if (!target || ref.value.startsWith(target.idPrefix)) continue;
    const keys = c.keys(ref.section);
    if (keys.has(ref.value)) continue;
    const known = [...keys];
    const near = closest(ref.value, known);
    const hint = near
      ? `did you mean ${near}?`
      : known.length > 0
        ? `the keys of ${ref.section} are ${known.slice(0, 5).join(', ')}${known.length > 5 ? ', ...' : ''}`
        : `${ref.section} has no entries`;
    const message = `${JSON.stringify(ref.value)} is not a key of ${ref.section} (${hint}); name an entry of ${ref.section} or a live ID (${target.idPrefix}...)`;
    if (ref.at) ref.at.report(ref.path, message);
    else c.report(ref.path, message);
  }
}
