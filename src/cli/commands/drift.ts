// `accord drift`: only what changed in the account outside accord (DESIGN §4 "Drift"), for a
// scheduled job. It reads the account exactly as plan does and reports from the same plan; when the
// files cannot be planned against the account, the guards the account breaks are still listed (they
// need no plan), with the plan's error beside them.
import type { Argv } from 'yargs';
import type { Account } from '../../account/model.js';
import type { DesiredState } from '../../config/model.js';
import type { PlanChange } from '../../plan/types.js';
import type { DriftReport } from '../../render/drift.js';
import { VERSION } from '../../version.js';
import type { CommandFactory } from '../command.js';
import { connectionOptions } from '../connection-options.js';
import { desiredFileOption } from '../file-option.js';
import type { Io } from '../io.js';
import { loadDesiredOrReport } from '../planning.js';
import type { ReadOnlyPlanned } from '../read-only-plan.js';
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
      const { planOrAccount } = await import('../read-only-plan.js');
      const { planned, apiUrl } = await withClient(argv, io, async (client) => ({
        // A restriction whose marker was emptied or given away outside accord holds its type's slot:
        // that is drift to list, not a reason to print nothing (DESIGN §4 "Drift").
        planned: await planOrAccount(client, desired, io, { reportHeldSlots: true }),
        apiUrl: client.baseUrl,
      }));
      const render = await import('../../render/drift.js');
      const { renderDriftMarkdown } = await import('../../render/drift-markdown.js');
      const report = await driftReportOf(desired, planned, apiUrl, io);
      if (argv.json) io.stdout(render.renderDriftJson(report));
      else if (argv.markdown) io.stdout(renderDriftMarkdown(report));
      else io.stdout(render.renderDriftText(report));
      await appendStepSummary(io, () => renderDriftMarkdown(report));
      // Drift that nothing can attribute is drift all the same: never a silent exit 0.
      setExit(render.hasDrift(report) ? EXIT_CHANGES : 0);
    },
  );

/**
 * The report of the plan; when the files cannot be planned against the account, of the guards it
 * breaks with the plan's error beside them (what else changed outside accord needs the plan; the
 * guards do not). With no breach either, the plan's error is the run's (exit 1).
 */
async function driftReportOf(
  desired: DesiredState,
  planned: ReadOnlyPlanned,
  apiUrl: string,
  io: Pick<Io, 'now'>,
): Promise<DriftReport> {
  const render = await import('../../render/drift.js');
  const breaches = await liveGuardBreaches(desired, planned.plan?.changes ?? [], planned.account);
  if (planned.plan) return render.driftReport(planned.plan, breaches);
  if (breaches.length === 0) throw planned.planError;
  const context = {
    tool_version: VERSION,
    api_url: apiUrl,
    owner: desired.owner,
    created_at: (io.now?.() ?? new Date()).toISOString(),
  };
  return render.unplannedDriftReport(context, breaches, planned.planError.report());
}

/**
 * The guards of the files that the account breaks now: drift, whoever made it so. The account alone
 * decides them (`before`): `changes` may be none, when the files cannot be planned against it.
 */
async function liveGuardBreaches(desired: DesiredState, changes: readonly PlanChange[], account: Account) {
  if (!desired.guards?.length) return [];
  const { guardBreaches, planScopeStates } = await import('../../traffic/guards.js');
  const { planCalculators } = await import('../../traffic/reach.js');
  return guardBreaches(desired.guards, planScopeStates(...planCalculators(changes, account)), 'before');
}
