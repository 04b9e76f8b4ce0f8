// Which IP policies an endpoint's traffic policy names: the `ip_policies` of its `restrict-ips` actions,
// in every phase (shared/SPEC-endpoints.md "restrict-ips"). What the service would refuse or leave
// dangling if such a policy were deleted (src/traffic/holders.ts) asks this, whatever the phase.

import { isRecord } from '../resources/values.js';

const RESTRICT_IPS = 'restrict-ips';

/** The policy IDs (or known-after-apply references) a policy document's `restrict-ips` actions name. */
export function policiesNamedBy(document: Readonly<Record<string, unknown>> | undefined): string[] {
  const named = new Set<string>();
  for (const rules of Object.values(document ?? {})) {
    if (!Array.isArray(rules)) continue;
    for (const rule of rules) {
      const actions = isRecord(rule) && Array.isArray(rule['actions']) ? rule['actions'] : [];
      for (const action of actions) {
        if (!isRecord(action) || action['type'] !== RESTRICT_IPS || !isRecord(action['config'])) continue;
        const policies = action['config']['ip_policies'];
        if (!Array.isArray(policies)) continue;
        for (const p of policies) if (typeof p === 'string') named.add(p);
      }
    }
  }
  return [...named];
}
