// Reach over a TCP edge the files do not name, as the list of edges shows it (DESIGN §4 "Reach"): its
// module stays, so what it lets through before and after the plan is what the service's model lets
// through with the account's rules before the apply and after it, whatever the plan does to the
// policies it names (rules changed, added, removed). Random worlds of test/traffic/traffic-world.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountOf } from '../../src/account/model.js';
import { plan } from '../../src/cli/worded-plan.js';
import { cidrContains, parseCidr } from '../../src/net/cidr.js';
import { PlanError } from '../../src/plan/planner.js';
import type { Plan } from '../../src/plan/types.js';
import { reachOf } from '../../src/traffic/reach.js';
import { NOW, OPTIONS } from '../plan/fixtures.js';
import type { FakeAccount } from '../support/account.js';
import { ADDRESSES, apply, setUp, worldArb } from './traffic-world.js';

const EDGE = 'edgtcp_000000000000000000000009';

/** The addresses an enforced module naming `policies` lets through, by the account's rules now. */
function modelLets(account: FakeAccount, policies: readonly string[], enabled: boolean): string[] {
  const rules = account
    .objects('ip_policy_rule')
    .filter((r) => policies.includes((r['ip_policy'] as { id: string }).id));
  const matches = (action: string, a: string) =>
    rules.some((r) => {
      const cidr = parseCidr(String(r['cidr']));
      return r['action'] === action && !('problem' in cidr) && cidrContains(cidr, a);
    });
  return ADDRESSES.filter((a) => !enabled || (matches('allow', a) && !matches('deny', a)));
}

describe('reach of a listed TCP edge the files do not name (property)', () => {
  it('agrees with the model of the service before and after the plan', () => {
    let checked = 0;
    fc.assert(
      fc.property(worldArb, fc.nat(15), fc.boolean(), (w, mask, enabled) => {
        const { account, desired } = setUp(w);
        const ids = account.objects('ip_policy').map((o) => String(o['id']));
        const named = ids.filter((_, i) => (mask >> i) & 1);
        if (named.length === 0) return;
        const live = account.live(desired);
        live.tcpEdges = [
          { id: EDGE, ip_restriction: { enabled, ip_policies: named.map((id) => ({ id, uri: 'x' })) } },
        ];
        let p: Plan;
        try {
          p = plan(desired, live, NOW, { ...OPTIONS, force: true });
        } catch (err) {
          if (err instanceof PlanError) return; // refused: a policy the edge names would be deleted
          throw err;
        }
        checked++;
        const r = reachOf(p.changes, accountOf(live)).find((s) => s.scope === `tcp_edges.${EDGE}`);
        expect(r).toBeDefined();
        const before = modelLets(account, named, enabled);
        apply(
          account,
          p,
          () => 0,
          () => {},
        );
        const after = modelLets(account, named, enabled);
        expect(ADDRESSES.filter((a) => r!.before.contains(a))).toEqual(before);
        expect(ADDRESSES.filter((a) => r!.after.contains(a))).toEqual(after);
      }),
      { numRuns: 300 },
    );
    expect(checked).toBeGreaterThan(100);
  }, 300_000);
});
