// What the planner takes besides the desired state and the account: the options of one plan.
import type { Selection } from './select.js';

export interface PlanOptions {
  apiUrl: string;
  toolVersion: string;
  /** The desired-state files as the plan records them (default: the desired state's files as shown). */
  files?: string[];
  /** Allow a plan over the destroy threshold. */
  force?: boolean;
  /** Default 30. */
  maxDestroyPercent?: number;
  /** Allow adopting (`id:`) a resource marked by another owner. */
  allowTakeover?: boolean;
  /** --target/--exclude: plan only a part of the file (src/plan/select.ts). */
  selection?: Selection;
  /**
   * `accord drift`: a slot held by an object no entry claims (unmanaged, another owner's) is the
   * create's reason (`slot_held`), not a plan error, so that drift lists it rather than failing.
   */
  reportHeldSlots?: boolean;
}

export const DEFAULT_MAX_DESTROY_PERCENT = 30;
/** The threshold applies only from this many managed live resources on. */
export const SAFETY_MIN_MANAGED = 10;
