// Never fail open, never lock out needlessly (DESIGN §4): over a model of how the service evaluates
// restrictions (an enforced restriction or enabled TCP edge module lets an address through when an
// allow rule of its policies matches and no deny rule does; anything else lets everything through),
// after every request of an apply, in any order the plan's DAG allows, and when any one request fails
// (the applier then skips what depends on it and goes on with the rest), what each type and edge lets
// through stays between B ∩ A and B ∪ A. The same property fails for a naive order (deletes first).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlanError, plan } from '../../src/plan/planner.js';
import type { Plan, PlanChange } from '../../src/plan/types.js';
import { NOW, OPTIONS } from './fixtures.js';
import { ADDRESSES, apply, letThrough, setUp, type World, worldArb } from './traffic-world.js';

/** The property for one world with one way of ordering; true when the world plans to no error. */
function holds(w: World, order: 'dag' | 'deletes first'): boolean {
  const { account, desired } = setUp(w);
  let p: Plan;
  try {
    p = plan(desired, account.live(desired), NOW, { ...OPTIONS, force: true });
  } catch (err) {
    if (err instanceof PlanError) return false;
    throw err;
  }
  const B = letThrough(account);
  apply(
    account,
    p,
    () => 0,
    () => {},
  );
  const A = letThrough(account);
  // The same account again (the in-memory account is one at a time): what the apply under test starts from.
  const { account: start } = setUp(w);
  let turn = 0;
  const pick =
    order === 'dag'
      ? () => w.schedule[turn++ % w.schedule.length]!
      : (runnable: { c: PlanChange; next: number }[]) => {
          const del = runnable.findIndex((x) => x.c.requests[x.next]!.method === 'DELETE');
          return del >= 0 ? del : w.schedule[turn++ % w.schedule.length]!;
        };
  apply(
    start,
    p,
    pick,
    () => {
      const now = letThrough(start);
      for (const [scope, before] of B) {
        const after = A.get(scope)!;
        const current = now.get(scope)!;
        for (const a of ADDRESSES) {
          if (before.has(a) && after.has(a)) expect(current.has(a), `${scope} shuts out ${a}`).toBe(true);
          if (!before.has(a) && !after.has(a))
            expect(current.has(a), `${scope} lets ${a} through`).toBe(false);
        }
      }
    },
    order === 'dag' ? w.failAt : undefined,
    order === 'deletes first',
  );
  return true;
}

describe('never fail open', () => {
  it('keeps every type and edge between B ∩ A and B ∪ A after every request, any order, any failure', () => {
    let planned = 0;
    fc.assert(
      fc.property(worldArb, (w) => {
        if (holds(w, 'dag')) planned++;
      }),
      { numRuns: 400 },
    );
    // Most worlds plan (a plan error is a policy still in use being deleted, or an order that cannot be kept).
    expect(planned).toBeGreaterThan(200);
    // Hundreds of plans, each applied twice request by request: no wall-clock bound on a busy machine.
  }, 600_000);

  it('fails for a naive order that sends the deletes first', () => {
    const result = fc.check(
      fc.property(worldArb, (w) => {
        holds(w, 'deletes first');
      }),
      { numRuns: 400 },
    );
    expect(result.failed).toBe(true);
    // It fails by what it lets through or shuts out, not by an error of the test.
    expect(String(result.errorInstance)).toMatch(/(lets \S+ through|shuts out \S+)/);
  }, 600_000);
});
