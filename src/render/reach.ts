// The reach of a plan in words (DESIGN §4 "Reach"), shown first in text and Markdown: one line per scope
// whose reach changes (`dashboard: lets in 10.0.0.0/8 (16,777,216 addresses); shuts out
// 198.51.100.64/26 (64)`, `api: everyone -> 10.0.0.0/8 only`), then how many scopes are unchanged.
// Long CIDR lists are shortened with a count; the JSON has them whole.

import type { Plan, ReachDiffJson, ScopeReachJson } from '../plan/types.js';
import { count } from '../plural.js';
import { cidrsText, setText } from './reach-text.js';

/** One line per changed scope, then `N scopes unchanged`; none when no scope changes. */
export function reachLines(plan: Plan): string[] {
  if (plan.reach.length === 0) return [];
  const lines = plan.reach.map((r) => `${scopeName(r)}: ${boundsChange(r)}`);
  if (plan.reach_unchanged.length > 0) lines.push(`${count(plan.reach_unchanged.length, 'scope')} unchanged`);
  return lines;
}

/** `dashboard`; an endpoint by its URL, and its address in the files when an entry manages it. */
function scopeName(r: ScopeReachJson): string {
  return r.address !== undefined ? `${r.scope} (${r.address})` : r.scope;
}

/** An endpoint not exact on a side: `at least <change>; at most <change>`, each bound `unchanged` when it is. */
function boundsChange(r: ScopeReachJson): string {
  if (!r.at_least || !r.at_most) return reachChange(r);
  const bound = (d: ReachDiffJson) =>
    d.let_in.cidrs.length === 0 && d.shut_out.cidrs.length === 0 ? 'unchanged' : reachChange(d);
  return `at least ${bound(r.at_least)}; at most ${bound(r.at_most)}`;
}

function reachChange(r: ReachDiffJson): string {
  if (r.before.everyone)
    return `everyone -> ${r.after.cidrs.length === 0 ? 'nobody' : `${cidrsText(r.after)} only`}`;
  if (r.after.everyone)
    return `${r.before.cidrs.length === 0 ? 'nobody' : `${cidrsText(r.before)} only`} -> everyone`;
  const parts: string[] = [];
  if (r.let_in.cidrs.length > 0) parts.push(`lets in ${setText(r.let_in)}`);
  if (r.shut_out.cidrs.length > 0) parts.push(`shuts out ${setText(r.shut_out, parts.length === 0)}`);
  return parts.join('; ');
}
