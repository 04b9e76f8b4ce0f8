// Never fail open over a TCP edge the files do not name (DESIGN §4 "Never fail open"): listed with its
// module inline, it is ordered exactly as a scope the files name. Random worlds of
// test/traffic/traffic-world.ts (policies whose rules move between them, two types, a named edge) plus an
// edge the files do not name over a random part of the live policies; each plan applied to the
// in-memory service in any order its DAG allows, with any one request failing: after every request,
// the unnamed edge, like every other scope, lets through no sampled address that neither the account
// nor the files let through, and shuts out none that both let through.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import { cidrContains, parseCidr } from '../../src/net/cidr.js';
import { PlanError } from '../../src/plan/planner.js';
import type { Plan, PlanChange } from '../../src/plan/types.js';
import { NOW, OPTIONS } from '../plan/fixtures.js';
import type { FakeAccount } from '../support/account.js';
import { ADDRESSES, apply, letThrough, setUp, type World, worldArb } from './traffic-world.js';

const EDGE = 'edgtcp_000000000000000000000009';

/** The sampled addresses an edge module naming `policies` lets through, by the account's rules now. */
function edgeLets(account: FakeAccount, policies: readonly string[], enabled: boolean): Set<string> {
  const rules = account
    .objects('ip_policy_rule')
    .filter((r) => policies.includes((r['ip_policy'] as { id: string }).id));
  const matches = (action: string, a: string) =>
    rules.some((r) => {
      const cidr = parseCidr(String(r['cidr']));
      return r['action'] === action && !('problem' in cidr) && cidrContains(cidr, a);
    });
  return new Set(ADDRESSES.filter((a) => !enabled || (matches('allow', a) && !matches('deny', a))));
}

interface Unnamed {
  mask: number;
  enabled: boolean;
}

/** Every scope's sampled reach now: the types and the named edge, and the unnamed edge. */
function reachNow(account: FakeAccount, named: string[], u: Unnamed): Map<string, Set<string>> {
  const out = letThrough(account);
  out.set('unnamed', edgeLets(account, named, u.enabled));
  return out;
}

/** Plans `w` with the unnamed edge listed; undefined when it does not plan or the edge names nothing. */
function planned(w: World, u: Unnamed) {
  const { account, desired } = setUp(w);
  const ids = account.objects('ip_policy').map((o) => String(o['id']));
  const named = ids.filter((_, i) => (u.mask >> i) & 1);
  if (named.length === 0) return undefined;
  const live = account.live(desired);
  live.tcpEdges = [
    { id: EDGE, ip_restriction: { enabled: u.enabled, ip_policies: named.map((id) => ({ id, uri: 'x' })) } },
  ];
  try {
    return { p: plan(desired, live, NOW, { ...OPTIONS, force: true }), named };
  } catch (err) {
    if (err instanceof PlanError) return undefined;
    throw err;
  }
}

function holds(w: World, u: Unnamed, order: 'dag' | 'deletes first'): boolean {
  const made = planned(w, u);
  if (!made) return false;
  const { p, named } = made;
  const { account: done } = setUp(w);
  const B = reachNow(done, named, u);
  apply(
    done,
    p,
    () => 0,
    () => {},
  );
  const A = reachNow(done, named, u);
  const { account: start } = setUp(w);
  let turn = 0;
  const pick =
    order === 'dag'
      ? () => w.schedule[turn++ % w.schedule.length]!
      : (runnable: { c: PlanChange; next: number }[]) => {
          const del = runnable.findIndex((x) => x.c.requests[x.next]!.method === 'DELETE');
          return del >= 0 ? del : w.schedule[turn++ % w.schedule.length]!;
        };
  const check = () => {
    const now = reachNow(start, named, u);
    for (const [scope, before] of B) {
      for (const a of ADDRESSES) {
        const after = A.get(scope)!.has(a);
        if (before.has(a) && after) expect(now.get(scope)!.has(a), `${scope} shuts out ${a}`).toBe(true);
        if (!before.has(a) && !after)
          expect(now.get(scope)!.has(a), `${scope} lets ${a} through`).toBe(false);
      }
    }
  };
  apply(start, p as Plan, pick, check, order === 'dag' ? w.failAt : undefined, order === 'deletes first');
  return true;
}

const unnamedArb = fc.record({ mask: fc.nat(15), enabled: fc.boolean() });

describe('never fail open over a TCP edge the files do not name', () => {
  it('keeps it between B ∩ A and B ∪ A after every request, any order, any failure', () => {
    let planned = 0;
    fc.assert(
      fc.property(worldArb, unnamedArb, (w, u) => {
        if (holds(w, u, 'dag')) planned++;
      }),
      { numRuns: 400 },
    );
    expect(planned).toBeGreaterThan(150);
  }, 600_000);

  it('fails for a naive order that sends the deletes first', () => {
    const result = fc.check(
      fc.property(worldArb, unnamedArb, (w, u) => {
        holds(w, u, 'deletes first');
      }),
      { numRuns: 400 },
    );
    expect(result.failed).toBe(true);
    expect(String(result.errorInstance)).toMatch(/(lets \S+ through|shuts out \S+)/);
  }, 600_000);
});
