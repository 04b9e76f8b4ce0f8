import { accessSync, constants, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import type { Argv } from 'yargs';
import type { Plan } from '../../plan/types.js';
import { hasChanges } from '../../render/values.js';
import type { CommandFactory } from '../command.js';
import { type ConnectionArgs, connectionOptions } from '../connection-options.js';
import { desiredFileOption } from '../file-option.js';
import type { Io } from '../io.js';
import { redacted } from '../output.js';
import {
  heldUntilLoaded,
  loadDesiredOrReport,
  maxDestroyPercent,
  type Planned,
  type PlanningArgs,
  PlanUsageError,
  planAgainstAccount,
  planningOptions,
  selectionOf,
  selectionWarning,
} from '../planning.js';
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
        planningOptions(b)
          .option('file', desiredFileOption)
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
          .example('accord plan', 'plan ./accord.yaml against $ACCORD_API_URL')
          .example('accord plan --markdown > plan.md', 'a comment for the pull request')
          .example('accord plan --out plan.json && accord apply plan.json', 'review, then apply exactly that')
          .example(
            'accord plan --target ip_restrictions.office --out fix.json',
            'only that change and what it depends on',
          ),
      ),
    async (argv) => {
      maxDestroyPercent(argv);
      selectionOf(argv);
      if (argv.out !== undefined) checkOut(resolve(io.cwd, argv.out), argv.out, io.cwd);
      const timer = new PhaseTimer();
      const planned = await planOrReport(argv, io, timer);
      if (!planned) {
        setExit(1);
        return;
      }
      const { plan: result } = planned;
      timer.mark('close');
      await showPlan(result, argv, io, timer);
      setExit(exitCodeFor(result, argv['detailed-exitcode']));
    },
  );

interface PlanArgs extends ConnectionArgs, PlanningArgs {
  file?: string[];
  json?: boolean;
  markdown?: boolean;
  out?: string;
}

/** The plan, the account's lists read while the files load; undefined once the files' problems are said. */
async function planOrReport(argv: PlanArgs, io: Io, timer: PhaseTimer): Promise<Planned | undefined> {
  const loading = loadDesiredOrReport(argv.file, io, argv.json);
  const { withClient } = await import('../connection.js');
  try {
    return await withClient(argv, heldUntilLoaded(io, loading), (client) =>
      planAgainstAccount(client, loading, argv, io, { onPhase: (phase) => timer.mark(phase) }),
    );
  } catch (err) {
    // The files' problems come first, as when they were loaded before connecting.
    if ((await loading) !== undefined) throw err;
    return undefined;
  }
}

/** Prints the plan with its warning, --stats and the step summary, and saves it to --out. */
async function showPlan(result: Plan, argv: PlanArgs, io: Io, timer: PhaseTimer): Promise<void> {
  await printPlan(result, argv, io);
  const warning = selectionWarning(result);
  if (warning) io.stderr(warning);
  timer.mark('render');
  if (argv.stats) {
    io.stderr(`Phases: ${timer.report()}\n`);
    io.stderr(`Peak RSS: ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\n`);
  }
  await appendPlanSummary(io, result);
  if (argv.out !== undefined) {
    const { renderJson } = await import('../../render/json.js');
    savePlan(resolve(io.cwd, argv.out), argv.out, redacted(io, renderJson(result)));
    io.stderr(savedText(result, argv.out, argv.file));
  }
}

/** What `--out FILE` saved, and how to apply it: with the files it was made from (`-f` as given). */
export function savedText(plan: Plan, out: string, files: readonly string[] | undefined): string {
  const word = (w: string) => (/^[\w./:@%+=,-]+$/.test(w) ? w : `'${w.replaceAll("'", "'\\''")}'`);
  const command = ['accord apply', word(out), ...(files ?? []).map((f) => `-f ${word(f)}`)].join(' ');
  if (!plan.safe)
    return `Saved the plan to ${out}; it is refused as it stands (above), and ${command} refuses it too.\n`;
  if (!hasChanges(plan)) return `Saved the plan to ${out}; it has no changes to apply.\n`;
  return `Saved the plan to ${out}; review it, then apply exactly it with ${command}.\n`;
}

/**
 * `--out FILE` where no plan can be saved (under a file, a directory, a directory accord may not write
 * to) is said before anything is planned or printed: otherwise the plan would be shown, with no file.
 */
function checkOut(path: string, shownAs: string, cwd: string): void {
  const refuse = (why: string) =>
    new PlanUsageError(
      `cannot save the plan to --out ${shownAs}: ${why}; nothing was planned. Give a file path in a writable directory.`,
    );
  if (existsSync(path) && statSync(path).isDirectory()) throw refuse('it is a directory');
  // The nearest part of the path that exists is where the missing directories would be made.
  let nearest = dirname(path);
  while (!existsSync(nearest) && dirname(nearest) !== nearest) nearest = dirname(nearest);
  if (!statSync(nearest).isDirectory())
    throw refuse(`${relative(cwd, nearest) || nearest} is a file, not a directory`);
  try {
    accessSync(nearest, constants.W_OK);
  } catch (err) {
    throw refuse(
      `${relative(cwd, nearest) || nearest} is not writable (${(err as NodeJS.ErrnoException).code})`,
    );
  }
}

/** `--out FILE`: creates missing directories; any failure is a usage error, not a crash. */
function savePlan(path: string, shownAs: string, json: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, json);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    const why = code === 'EISDIR' ? 'it is a directory' : code;
    throw new PlanUsageError(
      `cannot save the plan to --out ${shownAs} (${why}); the plan shown was not saved. Give a file path in a writable directory.`,
      { cause: err },
    );
  }
}

/** Wall and CPU time per phase of a run, for --stats (CPU time does not depend on the machine's load). */
class PhaseTimer {
  private last = performance.now();
  private lastCpu = process.cpuUsage();
  private readonly phases: { name: string; ms: number; cpuMs: number }[] = [];
  mark(name: string): void {
    const now = performance.now();
    const cpu = process.cpuUsage(this.lastCpu);
    this.phases.push({ name, ms: now - this.last, cpuMs: (cpu.user + cpu.system) / 1000 });
    this.last = now;
    this.lastCpu = process.cpuUsage();
  }
  report(): string {
    return this.phases
      .map((p) => `${p.name} ${(p.ms / 1000).toFixed(3)} s (cpu ${(p.cpuMs / 1000).toFixed(3)} s)`)
      .join(', ');
  }
}

export function exitCodeFor(plan: Plan, detailed: boolean): number {
  if (!plan.safe) return EXIT_REFUSED;
  return detailed && hasChanges(plan) ? EXIT_CHANGES : 0;
}

export async function printPlan(
  plan: Plan,
  argv: { json?: boolean; markdown?: boolean },
  io: Io,
): Promise<void> {
  if (argv.json) {
    const { renderJson } = await import('../../render/json.js');
    io.stdout(renderJson(plan));
  } else if (argv.markdown) {
    const { renderMarkdown } = await import('../../render/markdown.js');
    io.stdout(renderMarkdown(plan));
  } else {
    const { renderText } = await import('../../render/text.js');
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
