// Safety rules (DESIGN §2, §4): `protect` refuses any plan that destroys a protected resource, and no
// flag overrides it; destroying more than --max-destroy-percent of >= 10 managed resources needs --force.

import { DEFAULT_MAX_DESTROY_PERCENT, type PlanOptions, SAFETY_MIN_MANAGED } from './options.js';
import type { PlanChange, PlanSafety, Refusal, Warning } from './types.js';

/** A change that deletes or replaces a live object, with whether this owner's marker protects it. */
export interface Destroyed {
  change: PlanChange;
  protect: boolean;
}

export function assessSafety(
  destroyed: readonly Destroyed[],
  managed: number,
  options: Pick<PlanOptions, 'force' | 'maxDestroyPercent'>,
): { safety: PlanSafety; reasons: Refusal[]; warnings: Warning[] } {
  const max = options.maxDestroyPercent ?? DEFAULT_MAX_DESTROY_PERCENT;
  const forced = options.force ?? false;
  const reasons: Refusal[] = [];
  const warnings: Warning[] = [];
  const protectedAddresses = destroyed.filter((d) => d.protect).map((d) => d.change.address);
  for (const d of destroyed.filter((x) => x.protect)) {
    const action = d.change.action === 'replace' ? 'replace' : 'delete';
    reasons.push({ code: 'protected', address: d.change.address, id: String(d.change.id), action });
  }
  const count = destroyed.length;
  const exceeded = managed >= SAFETY_MIN_MANAGED && count * 100 > max * managed;
  if (exceeded) {
    const pct = Math.round((count * 1000) / managed) / 10;
    const facts = { destroyed: count, managed, percent: pct, max };
    if (forced) warnings.push({ code: 'threshold_forced', ...facts });
    else reasons.push({ code: 'threshold', ...facts });
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
