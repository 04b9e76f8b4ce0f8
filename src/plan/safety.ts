// Safety rules (DESIGN §2, §4): `protect` refuses any plan that destroys a protected resource, and no
// flag overrides it; destroying more than --max-destroy-percent of >= 10 managed resources needs --force.

import { count as plural } from '../plural.js';
import { DEFAULT_MAX_DESTROY_PERCENT, type PlanOptions, SAFETY_MIN_MANAGED } from './state.js';
import type { PlanChange, PlanSafety, Warning } from './types.js';

/** A change that deletes or replaces a live object, with whether this owner's marker protects it. */
export interface Destroyed {
  change: PlanChange;
  protect: boolean;
}

export function assessSafety(
  destroyed: readonly Destroyed[],
  managed: number,
  options: Pick<PlanOptions, 'force' | 'maxDestroyPercent'>,
): { safety: PlanSafety; reasons: string[]; warnings: Warning[] } {
  const max = options.maxDestroyPercent ?? DEFAULT_MAX_DESTROY_PERCENT;
  const forced = options.force ?? false;
  const reasons: string[] = [];
  const warnings: Warning[] = [];
  const protectedAddresses = destroyed.filter((d) => d.protect).map((d) => d.change.address);
  for (const d of destroyed.filter((x) => x.protect)) {
    const verb = d.change.action === 'replace' ? 'replace' : 'delete';
    reasons.push(
      `${d.change.address}: would ${verb} ${d.change.id}, which is protected (lifecycle.prevent_destroy); ` +
        'keep the entry with prevent_destroy: false, apply, then change it',
    );
  }
  const count = destroyed.length;
  const exceeded = managed >= SAFETY_MIN_MANAGED && count * 100 > max * managed;
  if (exceeded) {
    const pct = Math.round((count * 1000) / managed) / 10;
    const text = `would delete or replace ${count} of ${plural(managed, 'managed resource')} (${pct}%), more than --max-destroy-percent ${max}`;
    if (forced) warnings.push({ code: 'threshold_forced', destroyed: count, managed, percent: pct, max });
    else reasons.push(`${text}; review the plan and rerun with --force if it is intended`);
  }
  return {
    safety: {
      managed,
      destroyed: count,
      max_destroy_percent: max,
      threshold_exceeded: exceeded,
      forced,
      protected: protectedAddresses,
    },
    reasons,
    warnings,
  };
}
