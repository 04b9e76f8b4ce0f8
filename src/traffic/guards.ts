// Guards (DESIGN §1 "Guards") checked on reach: a scope's governance before or after a plan against
// what the files say must hold, as sets of addresses. A breach of the plan's result refuses the plan,
// and no flag lifts it; a breach of the account alone is reported (drift) and does not block a plan
// that mends it. Because every step of an apply keeps B ∩ A ⊆ let through ⊆ B ∪ A (src/traffic/order.ts),
// a guard that holds before and after holds after every request of the apply (docs/reach.md).
import { ALL_SCOPES, type DesiredGuard } from '../config/guard-model.js';
import { AddressSet } from '../net/cidr-set.js';
import type { GuardBreachFacts, PlanProblem, Refusal, Warning } from '../plan/types.js';
import { isEndpointScope } from '../resources/scope.js';
import { closest } from '../suggest.js';
import { type ScopeSide, type ScopeState, scopeStates } from './governance.js';
import { type ReachCalculator, scopesOf } from './reach.js';

export type GuardRule = 'enforced' | 'always_let_in' | 'only_let_in';

/** A guard's breach (its facts are the plan's, for the `guard_mended` warning). */
export type GuardBreach = GuardBreachFacts;

/** The breaches of `guards` by each scope in `which` state. */
export function guardBreaches(
  guards: readonly DesiredGuard[],
  scopes: readonly ScopeState[],
  which: 'before' | 'after',
): GuardBreach[] {
  const breaches: GuardBreach[] = [];
  for (const g of guards) {
    for (const s of scopes) {
      if (!covers(g, s) || s[which].filter === 'absent') continue;
      breaches.push(...breachesOf(g, s.scope, s[which]));
    }
  }
  return breaches;
}

/**
 * Whether guard `g` covers scope `s`: its own scope, or an endpoint by its URL or its address; `all`
 * covers every type and edge, and each endpoint the files manage or with a `restrict-ips` either side
 * (one with none lets everyone in, and `all: {enforced: true}` would refuse every plan that lists it).
 */
export function covers(g: DesiredGuard, s: ScopeState): boolean {
  if (g.scope === s.scope || s.names?.includes(g.scope) === true) return true;
  if (g.scope !== ALL_SCOPES) return false;
  if (s.names === undefined) return true;
  const restricted = (f: string) => f !== 'none' && f !== 'absent';
  return s.names.some((n) => !n.includes('://')) || restricted(s.before.filter) || restricted(s.after.filter);
}

function breachesOf(g: DesiredGuard, scope: string, side: ScopeSide): GuardBreach[] {
  const found: GuardBreach[] = [];
  const base = { guard: g.scope, at: g.loc, scope };
  if (g.enforced && side.filter !== 'enforced' && side.filter !== 'absent') {
    found.push({ ...base, rule: 'enforced', cidrs: [], addresses: '0', filter: side.filter });
  }
  // An endpoint whose reach is a pair of bounds: every connection must let in `always_let_in` (its
  // least), and no connection may let in what `only_let_in` leaves out (its most).
  const through = side.reach;
  const most = side.most ?? through;
  const breach = (rule: GuardRule, set: AddressSet) => {
    if (!set.isEmpty()) found.push({ ...base, rule, cidrs: set.cidrs(), addresses: set.count() });
  };
  if (g.always_let_in.length > 0) breach('always_let_in', AddressSet.of(g.always_let_in).minus(through));
  if (g.only_let_in !== undefined) breach('only_let_in', most.minus(AddressSet.of(g.only_let_in)));
  return found;
}

/**
 * The plan's verdict: each breach of its result refuses it (no flag lifts a guard; change the guard's
 * file, which is reviewed); a breach of the account that the plan mends is a warning.
 */
export function guardVerdict(
  guards: readonly DesiredGuard[],
  scopes: readonly ScopeState[],
): { refusals: Refusal[]; warnings: Warning[] } {
  const after = guardBreaches(guards, scopes, 'after');
  const still = new Set(after.map((b) => `${b.guard}\u0000${b.scope}\u0000${b.rule}`));
  const mended = guardBreaches(guards, scopes, 'before').filter(
    (b) => !still.has(`${b.guard}\u0000${b.scope}\u0000${b.rule}`),
  );
  return {
    refusals: after.map((breach) => ({ code: 'guard_breach', breach })),
    warnings: mended.map((breach) => ({ code: 'guard_mended', breach })),
  };
}

/**
 * Every scope of a plan before and after its (kept) changes, by the calculators its reach was judged by
 * (`judgeReach`, or `calculatorsOf` the plan's pictures).
 */
export function planScopeStates(was: ReachCalculator, will: ReachCalculator): ScopeState[] {
  const [before, after] = [was.picture, will.picture];
  // A listed TCP edge the files do not name, with no module either side, is not theirs to guard:
  // without this, `all: {enforced: true}` would refuse every plan that lists the edges.
  const moduleless = (s: ScopeState) =>
    before.listed?.has(s.scope) === true && s.before.filter === 'none' && s.after.filter === 'none';
  return scopeStates(before, after, scopesOf(before, after), [was, will]).filter((s) => !moduleless(s));
}

/**
 * Guards by an endpoint's URL that name no endpoint on either side of the plan (`scopes`, with the
 * endpoints listed): a guard that judges nothing would pass every plan without a word, as one written
 * for an endpoint whose url an earlier plan changed. Each is a problem at its place, with the closest
 * URL an endpoint has.
 */
export function guardsNamingNothing(
  guards: readonly DesiredGuard[],
  scopes: readonly ScopeState[],
): Extract<PlanProblem, { code: 'guard_names_nothing' }>[] {
  const named = new Set(scopes.flatMap((s) => [s.scope, ...(s.names ?? [])]));
  const byUrl = new Map<string, string | undefined>();
  for (const s of scopes) {
    const names = s.names ?? [];
    const address = names.find((n) => !isEndpointScope(n));
    for (const n of names) if (isEndpointScope(n) && !byUrl.has(n)) byUrl.set(n, address);
  }
  return guards
    .filter((g) => isEndpointScope(g.scope) && !named.has(g.scope))
    .map((g) => {
      const url = closest(g.scope, [...byUrl.keys()]);
      const address = url !== undefined ? byUrl.get(url) : undefined;
      const near = url !== undefined ? { near: { url, ...(address !== undefined ? { address } : {}) } } : {};
      return { code: 'guard_names_nothing', guard: g.scope, at: g.loc, ...near };
    });
}
