// The plan as accord hands it to people: the planner's codes and facts (src/plan) with their sentences
// (src/render/plan-words.ts), and a plan's error with its problems' sentences.

import { type Account, accountOf, type LiveState } from '../account/model.js';
import type { DesiredState } from '../config/model.js';
import type { PlanOptions } from '../plan/options.js';
import { PlanError, planAccount } from '../plan/planner.js';
import type { Plan } from '../plan/types.js';
import { withProblemWords, withWords } from '../render/plan-words.js';

/** `make()`, a `PlanError` it throws saying each problem in a sentence. */
export function worded<T>(make: () => T): T {
  try {
    return make();
  } catch (err) {
    if (err instanceof PlanError) throw withProblemWords(err);
    throw err;
  }
}

/** `planAccount` with words; a `PlanError` it throws says each problem in a sentence. */
export function wordedPlan(desired: DesiredState, live: Account, now: Date, options: PlanOptions): Plan {
  return worded(() => withWords(planAccount(desired, live, now, options)));
}

/** The library's `plan(desired, live, now, options)`: the account read as it is, planned with words. */
export function plan(desired: DesiredState, liveState: LiveState, now: Date, options: PlanOptions): Plan {
  return wordedPlan(desired, accountOf(liveState), now, options);
}
