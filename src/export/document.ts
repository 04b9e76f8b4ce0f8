// The pure half of `accord export`: a live account -> an accord.yaml text and the files it references
// (DESIGN §1, §2). Unmanaged resources become entries with `id:` that the plan adopts; the output is
// deterministic, so exporting one account twice gives the same bytes.
import { Document, isMap, isScalar, type Pair, type Scalar, type YAMLMap } from 'yaml';
import type { DesiredManaged } from '../config/model.js';
import { SCHEMA_COMMENT } from '../config/schema-file.js';
import { oldestFirst } from '../plan/match.js';
import { isPlainJson, unmarkedData } from '../plan/metadata.js';
import { count } from '../plural.js';
import {
  fromRegistry,
  type ManagedDescriptor,
  managedDescriptors,
  moduleDescriptors,
  type Nested,
} from '../resources/index.js';
import { decodeMarker, entryBudgetLeft, type Marker } from '../resources/marker.js';
import { isRecord, type LiveObject, str } from '../resources/values.js';
import { assignKeys, type KeyRequest, slugify } from './keys.js';
import type { LiveAccount } from './read.js';

export { SCHEMA_COMMENT };

export interface ExportOptions {
  owner: string;
  /** Also write resources carrying this owner's marker (keyed by their marker, without `id:`). */
  includeManaged: boolean;
  /** Also write resources carrying another owner's marker (with `id:`; taking them needs --allow-takeover). */
  includeOtherOwners: boolean;
  /** `files`: CA PEMs go to `certs/<key>.pem` beside the YAML; `inline`: into `ca_pem`. */
  pem: 'files' | 'inline';
  /** Named in the header comment. */
  apiUrl?: string;
  /** For comments on certificates that have expired (default: no such comments). */
  now?: Date;
  /** Also write the account as one file per section (`accord export --split DIR`): `ExportResult.split`. */
  split?: boolean;
  /**
   * Removes the run's secrets from a text. Applied to every string of the account before anything is
   * derived from it: an entry key slugged from a description holding the API key would hold it
   * lower-cased, where redacting the output no longer finds it.
   */
  redact?: (text: string) => string;
}

/** A file the YAML references, by its path relative to the YAML file ('/'-separated). */
export interface ExportFile {
  path: string;
  content: string;
}

export interface ExportSummary {
  /** Entries with `id:` of unmanaged resources: the plan adopts them. */
  adopt: number;
  /** This owner's resources written (--include-managed). */
  managed: number;
  /** Other owners' resources written (--include-other-owners). */
  takeover: number;
  /** Edge modules written. */
  modules: number;
  leftOutManaged: number;
  leftOutOtherOwners: number;
  /** What could not be written as it is, also in the file's comments. */
  notes: string[];
}

export interface ExportResult {
  yaml: string;
  files: ExportFile[];
  summary: ExportSummary;
  /**
   * With `split`: the same entries as `yaml`, one file per managed section (`ip-restrictions.yaml`) and
   * one for the edges' modules (`edges.yaml`), each with `version` and `owner`: one desired state
   * together (DESIGN §1 "Several files"). The referenced files (`files`) go beside them.
   */
  split?: ExportFile[];
}

interface Entry {
  key: string;
  /** The live object's ID. */
  id: string;
  value: Record<string, unknown>;
  comments: string[];
}

interface Section {
  name: string;
  entries: Entry[];
  comments: string[];
}

const EXCERPT = 120;

export function buildExport(listed: LiveAccount, options: ExportOptions): ExportResult {
  const account = options.redact ? redactStrings(listed, options.redact) : listed;
  const summary: ExportSummary = {
    adopt: 0,
    managed: 0,
    takeover: 0,
    modules: 0,
    leftOutManaged: 0,
    leftOutOtherOwners: 0,
    notes: [],
  };
  const files: ExportFile[] = [];
  const sections: Section[] = [];
  for (const descriptor of managedDescriptors) {
    const live = account.managed[descriptor.kind] ?? [];
    if (descriptor.within) {
      writeNested(descriptor, descriptor.within, live, sections);
      continue;
    }
    const entries = exportKind(descriptor, live, options, summary, files);
    if (entries.length > 0)
      sections.push({ name: descriptor.section, entries, comments: [...(descriptor.exportComments ?? [])] });
  }
  sections.push(...exportModules(account, summary));
  referToExportedByKey(sections);

  const header = [SCHEMA_COMMENT, ...headerLines(options, summary)];
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const yaml = renderYaml(options.owner, sections, header);
  if (!options.split) return { yaml, files, summary };
  return { yaml, files, summary, split: splitDocuments(options.owner, sections, header) };
}

/** `value` with `redact` applied to every string in it (object keys are field names, not data). */
function redactStrings<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactStrings(v, redact)) as T;
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactStrings(v, redact)])) as T;
}

/** The edges' sections go together: an environment's edges are one part of the layout. */
const EDGES_FILE = 'edges.yaml';

/** One document per managed section and one for the module sections, in file order. */
function splitDocuments(owner: string, sections: readonly Section[], header: string[]): ExportFile[] {
  const moduleSections = new Set(moduleDescriptors.map((d) => d.section));
  const byFile = new Map<string, Section[]>();
  for (const s of sections) {
    const name = moduleSections.has(s.name) ? EDGES_FILE : `${s.name.replaceAll('_', '-')}.yaml`;
    byFile.set(name, [...(byFile.get(name) ?? []), s]);
  }
  // An account with nothing to export still gives a desired state: the owner alone.
  if (byFile.size === 0) byFile.set('owner.yaml', []);
  return [...byFile].map(([path, parts]) => ({ path, content: renderYaml(owner, parts, header) }));
}

interface Classified {
  live: LiveObject;
  id: string;
  marker: Marker | undefined;
}

function exportKind(
  descriptor: ManagedDescriptor,
  live: readonly LiveObject[],
  options: ExportOptions,
  summary: ExportSummary,
  files: ExportFile[],
): Entry[] {
  const items: Classified[] = live.map((obj) => ({
    live: obj,
    id: str(obj['id']),
    marker: decodeMarker(obj['metadata']),
  }));
  const own = items.filter((i) => i.marker?.owner === options.owner);
  const others = items.filter((i) => i.marker && i.marker.owner !== options.owner);
  const unmanaged = items.filter((i) => !i.marker);

  // This owner's keys stay reserved even when left out, so the exported entries can join its file.
  const ownKept = new Map<string, Classified>();
  for (const i of [...own].sort((a, b) => oldestFirst(a.live, b.live))) {
    if (!ownKept.has(i.marker!.key)) ownKept.set(i.marker!.key, i);
    else if (options.includeManaged) {
      summary.notes.push(
        `${descriptor.section}: ${i.id} duplicates key ${i.marker!.key} (kept: ${ownKept.get(i.marker!.key)!.id}); left out, and plan will delete it`,
      );
    }
  }
  if (!options.includeManaged) summary.leftOutManaged += own.length;
  if (!options.includeOtherOwners) summary.leftOutOtherOwners += others.length;

  const toKey = [...unmanaged, ...(options.includeOtherOwners ? others : [])];
  const requests: KeyRequest[] = toKey.map((i) => ({
    id: i.id,
    created_at: str(i.live['created_at']),
    base: i.marker ? i.marker.key : readableKey(descriptor, i.live),
  }));
  // Key stem for a resource that nothing names: the kind (`ip-restriction-k93kffnk`).
  const fallback = descriptor.kind.replaceAll('_', '-');
  const keys = assignKeys(requests, fallback, new Set(ownKept.keys()));

  const entries: Entry[] = [];
  if (options.includeManaged) {
    for (const [key, i] of ownKept) {
      entries.push(buildEntry(descriptor, i, key, false, options, summary, files));
      summary.managed++;
    }
  }
  for (const i of toKey) {
    const entry = buildEntry(descriptor, i, keys.get(i.id)!, true, options, summary, files);
    if (i.marker) {
      entry.comments.unshift(
        ` managed by owner "${i.marker.owner}" (key ${i.marker.key}): plan and apply need --allow-takeover`,
      );
      summary.takeover++;
    } else summary.adopt++;
    entries.push(entry);
  }
  return entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** The description; without one, what names the resource to a person (`api`, a CA's CN); or "". */
function readableKey(descriptor: ManagedDescriptor, live: LiveObject): string {
  return slugify(str(live['description'])) || slugify(descriptor.exportName?.(live) ?? '');
}

function buildEntry(
  descriptor: ManagedDescriptor,
  item: Classified,
  key: string,
  withId: boolean,
  options: ExportOptions,
  summary: ExportSummary,
  files: ExportFile[],
): Entry {
  const { live, marker } = item;
  const address = `${descriptor.section}.${key}`;
  const comments: string[] = [];
  const value: Record<string, unknown> = {};
  if (withId) value['id'] = item.id;
  const description = str(live['description']);
  if (description !== '') value['description'] = description;
  Object.assign(
    value,
    descriptor.exportFields(live, {
      key,
      inline: options.pem === 'inline',
      ...(options.now ? { now: options.now } : {}),
      comment: (line) => comments.push(line),
      file: (path, content) => files.push({ path, content }),
    }),
  );

  const protect = marker?.protect === true;
  const data = marker ? (marker.hasData ? marker.data : undefined) : unmarkedData(live['metadata']);
  if (data !== undefined) {
    const left = entryBudgetLeft(options.owner, key, protect, data);
    const original = marker ? JSON.stringify(data) : str(live['metadata']);
    if (!isPlainJson(data)) {
      comments.push(
        ` metadata left out: it holds values YAML cannot carry exactly. It was: ${excerpt(original)}`,
      );
      summary.notes.push(`${address}: metadata left out (not expressible in YAML); adopting replaces it`);
    } else if (left < 0) {
      comments.push(
        ` metadata left out: with accord's ownership marker it would be ${-left} bytes over the 4096-byte limit.`,
        ' Adopting replaces it with the marker; to keep it, shorten it and add it back here. It begins:',
        ` ${excerpt(original)}`,
      );
      summary.notes.push(`${address}: metadata left out (${-left} bytes over the marker budget)`);
    } else value['metadata'] = data;
  }
  if (protect) value['lifecycle'] = { prevent_destroy: true };
  return { key, id: item.id, value, comments };
}

/** A nested kind's objects (a policy's rules) in their exported parent's entry, in identity order. */
function writeNested(
  descriptor: ManagedDescriptor,
  within: Nested<DesiredManaged>,
  live: readonly LiveObject[],
  sections: readonly Section[],
): void {
  const parents = sections.find((s) => s.name === within.section)?.entries ?? [];
  const byParent = new Map<string, LiveObject[]>();
  for (const o of live) {
    const id = within.parentId(descriptor.normalizeLive(o));
    const list = byParent.get(id);
    if (list) list.push(o);
    else byParent.set(id, [o]);
  }
  for (const parent of parents) {
    const children = byParent.get(parent.id) ?? [];
    const written = children.map((o) => within.exportEntry(o));
    written.sort((a, b) => {
      const x = JSON.stringify(Object.values(a)[0]);
      const y = JSON.stringify(Object.values(b)[0]);
      return x < y ? -1 : x > y ? 1 : 0;
    });
    parent.value[within.field] = written;
  }
}

/** Fields that name entries of a section (`ip_policies`), by that section. */
const referenceFields = fromRegistry(
  () =>
    new Map(
      [...managedDescriptors, ...moduleDescriptors].flatMap((d) =>
        d.fields.flatMap((f) => (f.references ? [[f.name, f.references] as const] : [])),
      ),
    ),
);

/** A reference by live ID to an object this export writes becomes its key (DESIGN §1 references). */
function referToExportedByKey(sections: readonly Section[]): void {
  const keyOf = new Map<string, Map<string, string>>();
  for (const s of sections) keyOf.set(s.name, new Map(s.entries.map((e) => [e.id, e.key])));
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    if (!isRecord(node)) return;
    for (const [name, value] of Object.entries(node)) {
      const section = referenceFields().get(name);
      const keys = section === undefined ? undefined : keyOf.get(section);
      if (keys && Array.isArray(value)) node[name] = value.map((v) => keys.get(String(v)) ?? v);
      else visit(value);
    }
  };
  for (const s of sections) for (const e of s.entries) visit(e.value);
}

/** Each module kind's entries, at their addresses (`tcp_edges.<edge>.ip_restriction`), in file order. */
function exportModules(account: LiveAccount, summary: ExportSummary): Section[] {
  const sections = new Map<string, Map<string, Record<string, unknown>>>();
  for (const descriptor of moduleDescriptors) {
    const read = account.modules[descriptor.kind];
    const { modules, notes } = descriptor.exportModules(read?.edges ?? [], read?.found ?? []);
    summary.notes.push(...notes);
    for (const { identity, value } of modules) {
      // A module's address is its path in the file: section, edge ID, then the path to the module.
      const [section = '', entry = '', ...path] = descriptor.address(identity).split('.');
      const entries = sections.get(section) ?? new Map<string, Record<string, unknown>>();
      sections.set(section, entries);
      const root = entries.get(entry) ?? {};
      entries.set(entry, root);
      setPath(root, path, value);
      summary.modules++;
    }
  }
  return [...sections].map(([name, entries]) => ({
    name,
    entries: [...entries].map(([key, value]) => ({ key, id: key, value, comments: [] })),
    comments: [],
  }));
}

/** Sets `value` at `path` under `node`, making the mappings on the way. */
function setPath(node: Record<string, unknown>, path: readonly string[], value: unknown): void {
  const [step, ...rest] = path;
  if (step === undefined) return;
  if (rest.length === 0) {
    node[step] = value;
    return;
  }
  const child = node[step];
  const next: Record<string, unknown> = isRecord(child) ? child : {};
  node[step] = next;
  setPath(next, rest, value);
}

function headerLines(options: ExportOptions, summary: ExportSummary): string[] {
  const lines = [
    ` Exported by accord export${options.apiUrl ? ` from ${options.apiUrl}` : ''}. Review it, then run accord plan:`,
    ' every entry with id: is adopted (accord writes its ownership marker into the metadata, keeping the',
    ' metadata shown here as data); nothing is recreated. Once adopted, id: may be removed.',
  ];
  const leftOut: string[] = [];
  if (summary.leftOutManaged > 0) {
    leftOut.push(
      ` Left out: ${count(summary.leftOutManaged, 'resource')} already managed by owner "${options.owner}" (--include-managed writes them).`,
    );
  }
  if (summary.leftOutOtherOwners > 0) {
    leftOut.push(
      ` Left out: ${count(summary.leftOutOtherOwners, 'resource')} managed by other owners (--include-other-owners writes them).`,
    );
  }
  for (const n of summary.notes) leftOut.push(` Note: ${n}.`);
  return leftOut.length > 0 ? [...lines, '', ...leftOut] : lines;
}

function renderYaml(owner: string, sections: Section[], header: string[]): string {
  const root: Record<string, unknown> = { version: 1, owner };
  for (const s of sections) root[s.name] = Object.fromEntries(s.entries.map((e) => [e.key, e.value]));
  const doc = new Document(root, { aliasDuplicateObjects: false });
  doc.commentBefore = header.join('\n');
  const top = doc.contents as YAMLMap;
  for (const s of sections) {
    const sectionPair = findPair(top, s.name);
    const sectionKey = keyNode(doc, sectionPair);
    sectionKey.spaceBefore = true;
    if (s.comments.length > 0) sectionKey.commentBefore = s.comments.join('\n');
    const map = sectionPair.value;
    if (!isMap(map)) continue;
    const comments = new Map(s.entries.map((e) => [e.key, e.comments]));
    map.items.forEach((pair, i) => {
      const node = keyNode(doc, pair);
      if (i > 0) node.spaceBefore = true;
      const lines = comments.get(String(node.value)) ?? [];
      if (lines.length > 0) node.commentBefore = lines.join('\n');
    });
  }
  const text = doc.toString({ lineWidth: 0, blockQuote: 'literal' });
  return text.endsWith('\n') ? text : `${text}\n`;
}

function findPair(map: YAMLMap, key: string): Pair {
  const pair = map.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === key);
  if (!pair) throw new Error(`export: no ${key} in the document being built`);
  return pair;
}

function keyNode(doc: Document, pair: Pair): Scalar {
  if (!isScalar(pair.key)) pair.key = doc.createNode(pair.key);
  return pair.key as Scalar;
}

/** A value for a one-line comment: line breaks shown as \n, at most EXCERPT characters. */
function excerpt(text: string): string {
  const flat = text.replace(/\r?\n/g, '\\n');
  return flat.length <= EXCERPT ? flat : `${flat.slice(0, EXCERPT)}... (${Buffer.byteLength(text)} bytes)`;
}
