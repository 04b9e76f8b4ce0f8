// Why a plan is refused, in English: the only place its refusal codes (src/plan/types.ts `Refusal`)
// become sentences. The plan's `unsafe_reasons` are these sentences of its `unsafe_codes`, in order.

import type { Refusal } from '../plan/types.js';
import { count as plural } from '../plural.js';
import { isEdgeScope } from '../resources/scope.js';
import { isEndpointScope } from '../traffic/endpoint-scopes.js';
import { scopeLabel } from '../traffic/reach.js';
import { describeBreach } from './guards.js';
import { setText } from './reach-text.js';

const FAMILY_NAME = { 4: 'IPv4', 6: 'IPv6' } as const;

/** One refusal as a person reads it. */
export function refusalText(r: Refusal): string {
  switch (r.code) {
    case 'protected':
      return (
        `${r.address}: would ${r.action} ${r.id}, which is protected (lifecycle.prevent_destroy); ` +
        'keep the entry with prevent_destroy: false, apply, then change it'
      );
    case 'threshold':
      return `${destroyedText(r)}; review the plan and rerun with --force if it is intended`;
    case 'locked_out': {
      const which = r.family ? `${FAMILY_NAME[r.family]} ` : '';
      const holder =
        r.source ??
        (isEdgeScope(r.scope)
          ? 'its module'
          : isEndpointScope(r.scope)
            ? 'its traffic policy'
            : 'its restriction');
      const policies = r.policies.length === 0 ? 'none' : r.policies.join(', ');
      if (r.cause === 'endpoints_restriction') {
        const at = r.at ? ` (${r.at.file}:${r.at.line})` : '';
        return `would lock out all ${which}${scopeLabel(r.scope)} traffic: after this plan the account-wide endpoints restriction${r.source !== undefined ? ` ${r.source}` : ''}${at} names policies (${policies}) that let through none of the ${which}addresses this endpoint's traffic policy lets in, where today it lets through ${setText(r.today)}; let those addresses through the endpoints restriction's policies, or rerun with --force if that is intended`;
      }
      return `would lock out all ${which}${scopeLabel(r.scope)} traffic: after this plan ${holder} names policies (${policies}) that let no ${which}address through, where today it lets through ${setText(r.today)}; add an allow rule that no deny rule covers, or rerun with --force if that is intended`;
    }
    case 'guard_breach':
      return `${describeBreach(r.breach, 'would')}; --force does not lift a guard: change the rules, or the guard in its file`;
  }
}

/** The threshold's facts, said the same whether refused or allowed by --force. */
export function destroyedText(r: {
  destroyed: number;
  managed: number;
  percent: number;
  max: number;
}): string {
  return `would delete or replace ${r.destroyed} of ${plural(r.managed, 'managed resource')} (${r.percent}%), more than --max-destroy-percent ${r.max}`;
}
