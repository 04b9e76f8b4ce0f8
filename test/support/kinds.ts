// What outputs that count every kind say, derived from the registry, so that adding a kind changes no
// test: each test pins the counts of the kinds it knows, and takes the others from the files.
import type { DesiredState } from '../../src/config/model.js';
import { count } from '../../src/plural.js';
import { desiredOf, managedDescriptors, moduleDescriptors } from '../../src/resources/index.js';

/** The entries of every registered kind in `state`, by kind. */
export function entriesByKind(state: DesiredState): Record<string, number> {
  const managed = managedDescriptors.map((d) => [d.kind, desiredOf(d, state).length] as const);
  const modules = moduleDescriptors.map((d) => [d.kind, desiredOf(d, state).length] as const);
  return Object.fromEntries([...managed, ...modules]);
}

/** `accord validate`'s count of every registered kind in `state`, in registry order ("1 IP policy, ..."). */
export function kindCounts(state: DesiredState): string {
  const entries = entriesByKind(state);
  return [...managedDescriptors, ...moduleDescriptors]
    .map((d) => count(entries[d.kind]!, d.nouns.one, d.nouns.many))
    .join(', ');
}

/** The 1-based line of the first line of `text` that `pattern` matches, from line `after` on. */
export function lineOf(text: string, pattern: RegExp, after = 0): number {
  const i = text.split('\n').findIndex((l, n) => n >= after && pattern.test(l));
  if (i < 0) throw new Error(`no line matches ${pattern}`);
  return i + 1;
}
