// The plan of a command that only reads (drift, reach), or, when the files cannot be planned against
// the account, the account as read with the plan's error: what the account does now needs no plan
// (the guards it breaks, who it lets through), and a plan error must not hide it (DESIGN §4).

import type { Account } from '../account/model.js';
import type { ApiClient } from '../api/client.js';
import type { DesiredState } from '../config/model.js';
import type { PlanError } from '../plan/planner.js';
import type { Plan } from '../plan/types.js';
import type { Io } from './io.js';
import { type PlanningContext, planAgainstAccount, READ_ONLY } from './planning.js';

/** The plan and the account it was made against; or the account alone, and why it could not be planned. */
export type ReadOnlyPlanned =
  | { plan: Plan; account: Account; planError?: undefined }
  | { plan?: undefined; account: Account; planError: PlanError };

/**
 * Plans as `planAgainstAccount` does with the read-only flags; a `PlanError` (the files and the account
 * cannot be planned together) gives the account as read instead. Any other error is thrown.
 */
export async function planOrAccount(
  client: ApiClient,
  desired: DesiredState,
  io: Pick<Io, 'cwd' | 'now' | 'stderr' | 'onInterrupt'>,
  context: PlanningContext = {},
): Promise<ReadOnlyPlanned> {
  const { PlanError } = await import('../plan/planner.js');
  let read: Account | undefined;
  try {
    const { plan, account } = await planAgainstAccount(client, desired, READ_ONLY, io, {
      ...context,
      onAccount: (account) => {
        read = account;
      },
    });
    return { plan, account };
  } catch (err) {
    if (!(err instanceof PlanError) || read === undefined) throw err;
    return { account: read, planError: err };
  }
}
