// Several files, one desired state (DESIGN §1 "Several files"): the owner they agree on, the keys
// they define, and the checks that concern entries of different files. There is no override and no
// merge of one entry: an entry key or module address is defined in one file only.

import {
  type DesiredManaged,
  type DesiredModule,
  descriptorFor,
  type ManagedSection,
  managedDescriptors,
  type SourceLocation,
} from '../resources/index.js';
import type { EntryReader, PathSegment } from '../resources/types.js';
import { isRecord } from '../resources/values.js';
import type { DesiredState } from './model.js';
import type { Checker } from './normalize.js';
import { DEFAULT_OWNER } from './normalize.js';
import type { Problem } from './problems.js';
import { locate, type YamlSource } from './source.js';

/** `owner` is set in at most one file, or to the same value in each; each disagreeing place is told. */
export function ownerOf(sources: readonly YamlSource[]): { owner: string; problems: Problem[] } {
  const set = sources
    .filter((s) => isRecord(s.data) && typeof s.data['owner'] === 'string')
    .map((s) => ({ source: s, owner: (s.data as { owner: string }).owner, ...locate(s, ['owner']) }));
  const values = [...new Set(set.map((s) => s.owner))];
  if (values.length <= 1) return { owner: values[0] ?? DEFAULT_OWNER, problems: [] };
  const problems = set.map((here) => {
    const others = set
      .filter((s) => s.owner !== here.owner)
      .map((s) => `"${s.owner}" at ${s.source.file}:${s.line}:${s.col}`);
    return {
      file: here.source.file,
      line: here.line,
      col: here.col,
      path: 'owner',
      message: `is "${here.owner}" here but ${others.join(', ')}; the files are one desired state with one owner: set owner in one file only, or to the same value in each`,
    };
  });
  return { owner: values[0]!, problems };
}

/** Each managed section's keys over every file, for references by key across files. */
export function sectionKeys(sources: readonly YamlSource[]): Map<string, Set<string>> {
  const keys = new Map<string, Set<string>>();
  for (const d of managedDescriptors) {
    const all = new Set<string>();
    for (const s of sources) for (const key of keysOf(s, d.section)) all.add(key);
    keys.set(d.section, all);
  }
  return keys;
}

function keysOf(source: YamlSource, section: string): string[] {
  const data = isRecord(source.data) ? source.data[section] : undefined;
  return isRecord(data) ? Object.keys(data) : [];
}

interface Definition {
  address: string;
  /** Where its key is: found only for an address defined twice. */
  loc: () => SourceLocation;
  reader: Checker;
}

/**
 * An entry key (`ip_restrictions.office`) or module address (`tcp_edges.edgtcp_x.ip_restriction`)
 * defined in two files: reported at every place, each naming the others. Managed entries are found
 * by their key in the file, so that an entry with problems of its own still counts.
 */
export function reportDefinedTwice(
  readers: readonly Checker[],
  moduleLists: readonly DesiredModule[][],
): void {
  const byAddress = new Map<string, Definition[]>();
  const add = (d: Definition) => {
    const known = byAddress.get(d.address);
    if (known) known.push(d);
    else byAddress.set(d.address, [d]);
  };
  readers.forEach((reader, i) => {
    for (const d of managedDescriptors) {
      for (const key of keysOf(reader.source, d.section)) {
        add({ address: `${d.section}.${key}`, loc: () => reader.loc([d.section, key]), reader });
      }
    }
    for (const m of moduleLists[i] ?? []) {
      const descriptor = descriptorFor(m.kind);
      const address = descriptor.address(m);
      add({ address, loc: () => m.loc, reader });
    }
  });
  for (const [address, defined] of byAddress) {
    if (defined.length < 2) continue;
    const places = defined.map((d) => ({ reader: d.reader, loc: d.loc() }));
    for (const here of places) {
      const others = places.filter((p) => p !== here).map((p) => at(p.loc));
      here.reader.problems.push({
        ...here.loc,
        path: address,
        message: `is also defined at ${others.join(', ')}; an entry is defined in one file only (files never override or merge an entry): keep one of them`,
      });
    }
  }
}

/** `file:line:col`. */
export function at(loc: SourceLocation): string {
  return `${loc.file}:${loc.line}:${loc.col}`;
}

/**
 * The checks between entries of one section, over every file: each kind's own (`checkEntries`: one IP
 * restriction per type) and one entry per adopted ID. Reported in the file of the entry concerned.
 */
export function checkAcrossFiles(state: DesiredState, readers: readonly Checker[]): void {
  const reader = routingReader(readers);
  for (const d of managedDescriptors) {
    const entries = state[d.section] as readonly DesiredManaged[];
    d.checkEntries?.(entries, reader);
    checkAdoptedIdsUnique(reader, d.section, entries);
  }
}

function checkAdoptedIdsUnique(
  reader: EntryReader,
  section: ManagedSection,
  entries: readonly DesiredManaged[],
): void {
  const seen = new Map<string, DesiredManaged>();
  for (const entry of entries) {
    if (entry.id === undefined) continue;
    const first = seen.get(entry.id);
    if (first === undefined) seen.set(entry.id, entry);
    else
      reader.report(
        [section, entry.key, 'id'],
        `"${first.key}" already adopts ${entry.id} (at ${at(first.loc)}); one entry per resource`,
      );
  }
}

/** An EntryReader whose problems go to the file that holds the path reported (the deepest match). */
function routingReader(readers: readonly Checker[]): EntryReader {
  const readerFor = (segments: readonly PathSegment[]): Checker => {
    let best = readers[0]!;
    let bestDepth = -1;
    for (const r of readers) {
      const depth = foundDepth(r.source.data, segments);
      if (depth > bestDepth) [best, bestDepth] = [r, depth];
    }
    return best;
  };
  return {
    report: (segments, message) => readerFor(segments).report(segments, message),
    loc: (segments) => readerFor(segments).loc(segments),
    content: (segments, ...rest) => readerFor(segments).content(segments, ...rest),
    memo: (key, compute) => readers[0]!.memo(key, compute),
    keys: (section) => readers[0]!.keys(section),
    reference: (segments, section, value, at) => readerFor(segments).reference(segments, section, value, at),
    document: (segments, ...rest) => readerFor(segments).document(segments, ...rest),
  };
}

/** How many of `segments` lead somewhere in `data`. */
function foundDepth(data: unknown, segments: readonly PathSegment[]): number {
  let node = data;
  let depth = 0;
  for (const s of segments) {
    if (!isRecord(node) && !Array.isArray(node)) break;
    if (!Object.hasOwn(node, s)) break;
    node = (node as Record<PathSegment, unknown>)[s];
    depth++;
  }
  return depth;
}
