import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { AccordError } from '../../errors.js';
import type { Plan } from '../../plan/types.js';
import { VERSION } from '../../version.js';
import { connectionOptions } from '../connection-options.js';
import type { Io } from '../io.js';
import type { CommandFactory } from '../main.js';
import { appendPlanSummary } from '../summary.js';

/** Exit codes of DESIGN §5. */
export const EXIT_CHANGES = 2;
export const EXIT_REFUSED = 3;

export const planCommand: CommandFactory = (io, setExit) => (y: Argv) =>
  y.command(
    'plan',
    'Show what apply would change in the account to make it match the file',
    (b) =>
      connectionOptions(
        b
          .option('file', {
            alias: 'f',
            type: 'string',
            default: 'accord.yaml',
            describe: 'The desired-state file',
            requiresArg: true,
          })
          .option('json', { type: 'boolean', describe: 'Print the plan as JSON' })
          .option('markdown', {
            type: 'boolean',
            describe: 'Print the plan as Markdown for a pull-request comment',
          })
          .conflicts('json', 'markdown')
          .option('out', { type: 'string', requiresArg: true, describe: 'Also save the JSON plan to FILE' })
          .option('detailed-exitcode', {
            type: 'boolean',
            default: false,
            describe: 'Exit 2 when the plan has changes (0 when none)',
          })
          .option('force', {
            type: 'boolean',
            default: false,
            describe: 'Allow deleting or replacing more than --max-destroy-percent of the managed resources',
          })
          .option('max-destroy-percent', {
            type: 'number',
            default: 30,
            describe: 'Share of managed resources a plan may delete or replace without --force',
          })
          .option('allow-takeover', {
            type: 'boolean',
            default: false,
            describe: 'Let an entry with id: adopt a resource that another owner manages',
          })
          .example('accord plan', 'plan ./accord.yaml against $ACCORD_API_URL')
          .example('accord plan --markdown > plan.md', 'a comment for the pull request')
          .example(
            'accord plan --out plan.json && accord apply plan.json',
            'review, then apply exactly that',
          ),
      ),
    async (argv) => {
      const percent = argv['max-destroy-percent'];
      if (!(percent >= 0 && percent <= 100)) {
        throw new PlanUsageError(`--max-destroy-percent must be from 0 to 100, got ${percent}.`);
      }
      // Loaded on use, like validate: other commands should not pay for these modules.
      const timer = new PhaseTimer();
      const config = await import('../../config/index.js');
      let desired: Awaited<ReturnType<typeof config.loadDesiredState>>;
      try {
        desired = await config.loadDesiredState(argv.file, io.cwd);
      } catch (err) {
        if (!(err instanceof config.ConfigError)) throw err;
        for (const p of err.problems) io.stderr(`${config.formatProblem(p)}\n`);
        io.stderr(`${argv.file}: fix the problems above (see accord validate) and plan again.\n`);
        setExit(1);
        return;
      }
      timer.mark('file');
      const { readLiveState } = await import('../../plan/live.js');
      const { plan } = await import('../../plan/planner.js');
      const { withClient } = await import('../connection.js');
      const result = await withClient(argv, io, async (client) => {
        const live = await readLiveState(client, desired);
        timer.mark('live');
        return plan(desired, live, new Date(), {
          apiUrl: client.baseUrl,
          toolVersion: VERSION,
          force: argv.force,
          maxDestroyPercent: percent,
          allowTakeover: argv['allow-takeover'],
        });
      });
      timer.mark('plan');
      await printPlan(result, argv, io);
      timer.mark('render');
      if (argv.stats) {
        io.stderr(`Phases: ${timer.report()}\n`);
        io.stderr(`Peak RSS: ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\n`);
      }
      await appendPlanSummary(io, result);
      if (argv.out !== undefined) {
        const { renderJson } = await import('../../plan/render/json.js');
        writeFileSync(resolve(io.cwd, argv.out), renderJson(result));
      }
      setExit(exitCodeFor(result, argv['detailed-exitcode']));
    },
  );

class PlanUsageError extends AccordError {
  override name = 'PlanUsageError';
}

/** Wall time per phase of a run, for --stats. */
class PhaseTimer {
  private last = performance.now();
  private readonly phases: [string, number][] = [];
  mark(name: string): void {
    const now = performance.now();
    this.phases.push([name, now - this.last]);
    this.last = now;
  }
  report(): string {
    return this.phases.map(([name, ms]) => `${name} ${(ms / 1000).toFixed(3)} s`).join(', ');
  }
}

export function exitCodeFor(plan: Plan, detailed: boolean): number {
  if (!plan.safe) return EXIT_REFUSED;
  const changes = plan.changes.some((c) => c.action !== 'no-op');
  return detailed && changes ? EXIT_CHANGES : 0;
}

async function printPlan(plan: Plan, argv: { json?: boolean; markdown?: boolean }, io: Io): Promise<void> {
  if (argv.json) {
    const { renderJson } = await import('../../plan/render/json.js');
    io.stdout(renderJson(plan));
  } else if (argv.markdown) {
    const { renderMarkdown } = await import('../../plan/render/markdown.js');
    io.stdout(renderMarkdown(plan));
  } else {
    const { renderText } = await import('../../plan/render/text.js');
    io.stdout(renderText(plan, { color: useColor(io) }));
  }
}

/** FORCE_COLOR wins, then NO_COLOR (any non-empty value), then whether stdout is a terminal. */
export function useColor(io: Io): boolean {
  const force = io.env['FORCE_COLOR'];
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  const no = io.env['NO_COLOR'];
  if (no !== undefined && no !== '') return false;
  return io.isTty;
}
