// The words of a plan and of a plan's error. The planner emits codes and facts only (src/plan); where a
// plan is handed to people (the CLI, the library's `plan`), these fill in the sentences a plan carries:
// each change's `reasons`, the plan's `unsafe_reasons` and `warnings`, in the order of their codes.

import type { PlanError } from '../plan/planner.js';
import type { Plan } from '../plan/types.js';
import { problemText } from './problems.js';
import { reasonText } from './reasons.js';
import { refusalText } from './refusals.js';
import { warningText } from './warnings.js';

/**
 * `plan` with its sentences, filled in place (the fields keep their places, so the plan's JSON is as it
 * always was) and returned.
 */
export function withWords(plan: Plan): Plan {
  for (const c of plan.changes) c.reasons = c.reason_codes.map(reasonText);
  plan.unsafe_reasons = (plan.unsafe_codes ?? []).map(refusalText);
  plan.warnings = (plan.warning_codes ?? []).map(warningText);
  return plan;
}

/** The error with each problem's sentence: `cannot plan:` and the sentences, one a line. */
export function withProblemWords(err: PlanError): PlanError {
  const messages = err.problems.map(problemText);
  return err.worded({ message: `cannot plan:\n${messages.map((m) => `  - ${m}`).join('\n')}`, messages });
}
