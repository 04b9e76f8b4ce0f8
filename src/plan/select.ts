// `--target` and `--exclude` (DESIGN §5): plan and apply a part of the file, on purpose. The planner
// applies the selection to the full list of changes, after matching and ordering, so ownership,
// duplicates and slot ordering have seen the whole account; only the safety verdict is then taken on
// the part kept, since that is what this apply destroys.
//
// A pattern is an address as the plan shows it, a glob over addresses, or a section:
// - an address matches its change, and also the duplicates of that entry (`ip_restrictions.x#ipx_...`);
// - a name without a dot is a section and matches every change in it (`certificate_authorities`);
// - a module address prefix matches the modules under it (`https_edges.edghts_x`): edge and route IDs
//   hold no dots, so the prefix is unambiguous, unlike an entry key, which may (`db` is not `db.replica`);
// - `*` matches any run of characters, dots included (a key may hold dots, so a dot is not a boundary):
//   `tcp_edges.*` matches `tcp_edges.edgtcp_x.ip_restriction`, `ssh_host_certificates.web-*` matches
//   `ssh_host_certificates.web-1` and `ssh_host_certificates.web-1.eu`. No other character is special.
//
// An entry and its duplicates (`ip_restrictions.x`, `ip_restrictions.x#ipx_...`) are kept or left out
// together, as if each depended on the others: a duplicate left behind while its entry is replaced
// would be older than the new object, so the next plan would keep it and delete what this one made.

import { fromRegistry, moduleDescriptors } from '../resources/index.js';
import { levenshtein } from '../suggest.js';
import type { PlanChange, PlanSelection } from './types.js';

export interface Selection {
  /** `--target` patterns: keep what they match and what that depends on. */
  target: readonly string[];
  /** `--exclude` patterns: drop what they match and everything that depends on it. */
  exclude: readonly string[];
}

export interface Selected {
  /** The changes this plan keeps, in the order given; closed under `depends_on` and entries. */
  kept: PlanChange[];
  /** Every change left out, no-ops included, in the order given. */
  leftOut: PlanChange[];
  /** What the saved plan records: the patterns, and the addresses of the changes (not no-ops) left out. */
  record: PlanSelection;
}

/** A `--target` or `--exclude` pattern that matches no change, and what it may have meant. */
export interface UnmatchedPattern {
  flag: '--target' | '--exclude';
  pattern: string;
  /** Addresses or sections of the plan close to it, up to three: the nearest, else those it begins. */
  near: string[];
}

/**
 * Patterns that match no change of the full plan: a typo must not silently plan nothing. Data for the
 * command line, which says it as its usage error (src/cli/planning.ts).
 */
export class UnmatchedSelection extends Error {
  override name = 'UnmatchedSelection';
  constructor(readonly unmatched: readonly UnmatchedPattern[]) {
    super(`${unmatched.map((u) => `${u.flag} ${u.pattern}`).join(', ')}: no change of the plan matches`);
  }
}

const moduleKinds = fromRegistry((): ReadonlySet<string> => new Set(moduleDescriptors.map((d) => d.kind)));

/**
 * Target first (the matching changes and, transitively, what they depend on), then exclude (the
 * matching changes and, transitively, what depends on them). Throws UnmatchedSelection naming every
 * pattern that matches no change of the full plan.
 */
export function selectChanges(changes: readonly PlanChange[], selection: Selection): Selected {
  const unmatched = [
    ...selection.target.filter((p) => !changes.some(matcher(p))).map((p) => ['--target', p] as const),
    ...selection.exclude.filter((p) => !changes.some(matcher(p))).map((p) => ['--exclude', p] as const),
  ];
  if (unmatched.length > 0) throw new UnmatchedSelection(describeUnmatched(unmatched, changes));

  const byAddress = new Map(changes.map((c) => [c.address, c]));
  const entries = groupBy(changes, (c) => [entryOf(c)]);
  const sameEntry = (c: PlanChange) => entries.get(entryOf(c)) ?? [];
  const kept =
    selection.target.length > 0
      ? reached(changes.filter(matchesAny(selection.target)), (c) => [
          ...sameEntry(c),
          ...c.depends_on.flatMap((address) => byAddress.get(address) ?? []),
        ])
      : new Set(changes);
  if (selection.exclude.length > 0) {
    const dependents = groupBy(changes, (c) => c.depends_on);
    const dropped = reached(changes.filter(matchesAny(selection.exclude)), (c) => [
      ...sameEntry(c),
      ...(dependents.get(c.address) ?? []),
    ]);
    for (const c of dropped) kept.delete(c);
  }
  const keptList = changes.filter((c) => kept.has(c));
  const leftOut = changes.filter((c) => !kept.has(c));
  return {
    kept: keptList,
    leftOut,
    record: {
      target: [...selection.target],
      exclude: [...selection.exclude],
      left_out: leftOut.filter((c) => c.action !== 'no-op').map((c) => c.address),
    },
  };
}

/** The changes under each key `keysOf` gives them, in the order of `changes`. */
function groupBy(
  changes: readonly PlanChange[],
  keysOf: (c: PlanChange) => readonly string[],
): Map<string, PlanChange[]> {
  const groups = new Map<string, PlanChange[]>();
  for (const c of changes) {
    for (const key of keysOf(c)) {
      const list = groups.get(key);
      if (list) list.push(c);
      else groups.set(key, [c]);
    }
  }
  return groups;
}

/** The changes of `start` and every change reached from them through `next`. */
function reached(start: PlanChange[], next: (c: PlanChange) => PlanChange[]): Set<PlanChange> {
  const seen = new Set<PlanChange>();
  const stack = [...start];
  for (let c = stack.pop(); c !== undefined; c = stack.pop()) {
    if (seen.has(c)) continue;
    seen.add(c);
    stack.push(...next(c));
  }
  return seen;
}

/** Whether `pattern` selects `change` (the rules at the top of this file). */
export function matchesPattern(pattern: string, change: Pick<PlanChange, 'address' | 'kind'>): boolean {
  return matcher(pattern)(change);
}

function matchesAny(patterns: readonly string[]): (c: PlanChange) => boolean {
  const tests = patterns.map(matcher);
  return (c) => tests.some((t) => t(c));
}

function matcher(pattern: string): (c: Pick<PlanChange, 'address' | 'kind'>) => boolean {
  if (pattern.includes('*')) {
    const source = pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    const glob = new RegExp(`^${source}$`);
    return (c) => glob.test(c.address) || glob.test(entryOf(c));
  }
  const section = !pattern.includes('.');
  return (c) =>
    c.address === pattern ||
    entryOf(c) === pattern ||
    (c.address.startsWith(`${pattern}.`) && (section || moduleKinds().has(c.kind)));
}

/** The address of the entry a change belongs to: a duplicate's, a flip's or a union step's own entry. */
export function entryOf(c: Pick<PlanChange, 'address' | 'step_of'>): string {
  return c.step_of ?? c.address;
}

function describeUnmatched(
  unmatched: readonly (readonly ['--target' | '--exclude', string])[],
  changes: readonly PlanChange[],
): UnmatchedPattern[] {
  const candidates = new Set<string>();
  for (const c of changes) {
    candidates.add(entryOf(c));
    candidates.add(c.address.slice(0, c.address.indexOf('.')));
  }
  return unmatched.map(([flag, pattern]) => ({ flag, pattern, near: closeTo(pattern, [...candidates]) }));
}

/**
 * What the pattern may have meant, up to three: the nearest candidates when near enough to be a typo,
 * else those it begins (a key typed in part).
 */
function closeTo(pattern: string, all: readonly string[]): string[] {
  // An address is compared with addresses, a section with sections.
  const candidates = all.filter((c) => c.includes('.') === pattern.includes('.'));
  const tolerance = Math.max(2, Math.floor(pattern.length / 4));
  const scored = candidates.map((c) => ({ c, d: levenshtein(pattern, c) })).filter((x) => x.d <= tolerance);
  const best = Math.min(...scored.map((x) => x.d));
  const near = scored.filter((x) => x.d === best).map((x) => x.c);
  const stem = pattern.replaceAll('*', '');
  const begun = stem === '' ? [] : candidates.filter((c) => c.startsWith(stem));
  return (near.length > 0 ? near : begun).sort().slice(0, 3);
}
