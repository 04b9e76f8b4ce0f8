// `accord drift`: only what changed in the account outside accord (DESIGN §4 "Drift"), for a
// scheduled job. It reads the account exactly as plan does and reports from the same plan.
import type { Argv } from 'yargs';
import type { DesiredState } from '../../config/model.js';
import type { Account } from '../../plan/state.js';
import type { Plan } from '../../plan/types.js';
import type { CommandFactory } from '../command.js';
import { connectionOptions } from '../connection-options.js';
import { desiredFileOption } from '../file-option.js';
import { loadDesiredOrReport, planAgainstAccount, READ_ONLY } from '../planning.js';
import { appendStepSummary } from '../summary.js';
import { EXIT_CHANGES } from './plan.js';

export const driftCommand: CommandFactory = (io, setExit) => (y: Argv) =>
  y.command(
    'drift',
    'Show what was changed in the account outside accord, or cannot be attributed; exit 2 when anything was',
    (b) =>
      connectionOptions(
        b
          .option('file', desiredFileOption)
          .option('json', { type: 'boolean', describe: 'Print the report as JSON' })
          .option('markdown', {
            type: 'boolean',
            describe: 'Print the report as Markdown for an issue kept by a scheduled CI job',
          })
          .conflicts('json', 'markdown')
          .example('accord drift', 'what changed outside accord in the account ./accord.yaml describes')
          .example('accord drift --markdown > drift.md || code=$?', 'in a scheduled job: 2 means drift'),
      ),
    async (argv) => {
      const desired = await loadDesiredOrReport(argv.file, io, argv.json);
      if (!desired) {
        setExit(1);
        return;
      }
      const { withClient } = await import('../connection.js');
      const { plan, account } = await withClient(argv, io, (client) =>
        planAgainstAccount(
          client,
          desired,
          READ_ONLY,
          io,
          // A restriction whose marker was emptied or given away outside accord holds its type's
          // slot: that is drift to list, not a reason to print nothing (DESIGN §4 "Drift").
          { reportHeldSlots: true },
        ),
      );
      const render = await import('../../plan/render/drift.js');
      const report = render.driftReport(plan, await liveGuardBreaches(desired, plan, account));
      if (argv.json) io.stdout(render.renderDriftJson(report));
      else if (argv.markdown) io.stdout(render.renderDriftMarkdown(report));
      else io.stdout(render.renderDriftText(report));
      await appendStepSummary(io, () => render.renderDriftMarkdown(report));
      // Drift that nothing can attribute is drift all the same: never a silent exit 0.
      setExit(render.hasDrift(report) ? EXIT_CHANGES : 0);
    },
  );

/** The guards of the files that the account breaks now: drift, whoever made it so. */
async function liveGuardBreaches(desired: DesiredState, plan: Plan, account: Account) {
  if (!desired.guards?.length) return [];
  const { guardBreaches, planScopeStates } = await import('../../plan/guards.js');
  const { planCalculators } = await import('../../plan/reach.js');
  return guardBreaches(desired.guards, planScopeStates(...planCalculators(plan.changes, account)), 'before');
}
