import type { Plan } from '../plan/types.js';

/** The plan as saved by --out and printed by --json (schemas/plan.schema.json). */
export function renderJson(plan: Plan): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}
