// The `restrict-ips` actions of an endpoint's traffic policy, in every phase (shared/SPEC-endpoints.md
// "restrict-ips"): which IP policies they name, which the service refuses (src/traffic/holders.ts), and
// what the service refuses of them once the plan's rules are in place (ERR_NGROK_393).

import type { PlanChange, PlanProblem } from '../plan/types.js';
import { isPlannedId, type PlannedId } from '../resources/known-after-apply.js';
import { restrictIpsConfigs } from '../resources/traffic-policy.js';
import type { TrafficPicture } from './picture.js';
import { roleOf } from './roles.js';

/** One `restrict-ips` action's lists, as the document writes them. */
interface RestrictIpsConfig {
  /** `on_http_request[1].actions[0]`. */
  where: string;
  allow: readonly unknown[];
  deny: readonly unknown[];
  policies: readonly PlannedId[];
}

const list = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);

/** Every `restrict-ips` action of a policy document, in every phase (as the file's checks walk them). */
function restrictIpsLists(document: Readonly<Record<string, unknown>> | undefined): RestrictIpsConfig[] {
  return restrictIpsConfigs(document).map(({ path: [phase, ri, , ai], config }) => ({
    where: `${String(phase)}[${String(ri)}].actions[${String(ai)}]`,
    allow: list(config['allow']),
    deny: list(config['deny']),
    policies: list(config['ip_policies']).filter(isPlannedId),
  }));
}

/** The policy IDs (or known-after-apply references) a policy document's `restrict-ips` actions name. */
export function policiesNamedBy(document: Readonly<Record<string, unknown>> | undefined): PlannedId[] {
  return [...new Set(restrictIpsLists(document).flatMap((c) => c.policies))];
}

/**
 * Where a policy document's first `restrict-ips` that denies with nothing allowed is, given whether a
 * policy has a rule of an action (`has`); undefined when none does. The service refuses such a
 * document (ERR_NGROK_393).
 */
export function deniesOnlyAt(
  document: Readonly<Record<string, unknown>> | undefined,
  has: (policy: PlannedId, action: 'allow' | 'deny') => boolean,
): string | undefined {
  for (const action of restrictIpsLists(document)) {
    const allows = action.allow.length > 0 || action.policies.some((p) => has(p, 'allow'));
    const denies = action.deny.length > 0 || action.policies.some((p) => has(p, 'deny'));
    if (denies && !allows) return action.where;
  }
  return undefined;
}

/**
 * The service refuses a traffic policy whose `restrict-ips` denies with nothing allowed (ERR_NGROK_393),
 * counting the rules of the policies it names as they are when it is sent: after the rule changes of
 * those policies (src/traffic/endpoint-order.ts), so with the rules the picture after the plan gives
 * them (made only when an endpoint change has such an action). A problem for each endpoint change
 * (create or patch) that would send one.
 */
export function deniesWithNothingAllowed(
  changes: readonly PlanChange[],
  afterOf: () => TrafficPicture,
): PlanProblem[] {
  const problems: PlanProblem[] = [];
  let after: TrafficPicture | undefined;
  for (const c of changes) {
    const role = roleOf(c);
    if (role?.role !== 'endpoint' || (c.action !== 'create' && c.action !== 'patch') || !c.after) continue;
    const { url, document } = role.endpoint(c.after);
    if (restrictIpsConfigs(document).length === 0) continue;
    after ??= afterOf();
    const rules = after.rules;
    const where = deniesOnlyAt(document, (p, action) =>
      (rules.get(p) ?? []).some((r) => r.action === action),
    );
    if (where !== undefined) problems.push({ code: 'denies_only', address: c.address, url, where });
  }
  return problems;
}
