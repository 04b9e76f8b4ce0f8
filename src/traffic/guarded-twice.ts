// One endpoint judged by two guards. A guard names an endpoint by its address or its URL, and an
// endpoint keeps every name it has on either side of the plan (src/traffic/endpoint-scopes.ts), so a
// guard by the URL a plan moves it away from still judges it after the move: beside a guard by its
// address (which the files resolve to the new URL, so reading them finds nothing) or by the new URL, it
// is guarded twice, which the files alone forbid (src/config/guards.ts). Only the account shows it:
// said at the later guard, naming the first, before any request.

import { ALL_SCOPES, type DesiredGuard } from '../config/guard-model.js';
import type { GuardNaming, PlanProblem } from '../plan/types.js';
import { isEndpointScope } from '../resources/scope.js';
import type { ScopeState } from './governance.js';
import { covers } from './guards.js';
import type { TrafficPicture } from './reach.js';

/** A `guarded_twice` problem per later guard that judges an endpoint an earlier one judges. */
export function guardedTwice(
  guards: readonly DesiredGuard[],
  scopes: readonly ScopeState[],
  before: TrafficPicture,
  after: TrafficPicture,
): PlanProblem[] {
  const problems: PlanProblem[] = [];
  const said = new Set<DesiredGuard>();
  for (const s of scopes) {
    if (s.names === undefined) continue;
    const judging = guards.filter((g) => g.scope !== ALL_SCOPES && covers(g, s));
    if (judging.length < 2) continue;
    const was = before.endpoints?.get(s.scope);
    const will = after.endpoints?.get(s.scope);
    const urls = { before: was?.url, after: will?.url };
    const address = will?.address ?? was?.address;
    const [first, ...later] = judging;
    for (const g of later) {
      if (said.has(g)) continue;
      said.add(g);
      problems.push({
        code: 'guarded_twice',
        scope: s.scope,
        ...(address !== undefined ? { address } : {}),
        ...(urls.before !== undefined ? { before: urls.before } : {}),
        ...(urls.after !== undefined ? { after: urls.after } : {}),
        guard: naming(g, urls),
        first: naming(first!, urls),
      });
    }
  }
  return problems;
}

/** How guard `g` names an endpoint whose URL before and after the plan are `urls`. */
function naming(g: DesiredGuard, urls: { before?: string; after?: string }): GuardNaming {
  const { file, line, col } = g.loc;
  const at = { file, line, col };
  const by: GuardNaming['by'] = !isEndpointScope(g.scope)
    ? 'address'
    : urls.before === urls.after || urls.before === undefined || urls.after === undefined
      ? 'url'
      : g.scope === urls.before
        ? 'url_before'
        : 'url_after';
  return { guard: g.scope, at, by };
}
