import { join, relative, resolve, sep } from 'node:path';
import type { Argv } from 'yargs';
import type { LiveState } from '../../account/model.js';
import type { ApiClient } from '../../api/client.js';
import type { WrittenCertificate } from '../../apply/certs.js';
import type { ApplyResult, LiveObject } from '../../apply/index.js';
import type { DesiredState } from '../../config/model.js';
import { desiredPaths, desiredPathsSource, expandPaths } from '../../config/paths.js';
import { AccordError } from '../../errors.js';
import type { Plan } from '../../plan/types.js';
import { count as countOf } from '../../plural.js';
import { hasChanges } from '../../render/values.js';
import type { CommandFactory } from '../command.js';
import { type ConnectionArgs, connectionOptions } from '../connection-options.js';
import { desiredFileOption } from '../file-option.js';
import { type Io, PromptCancelled } from '../io.js';
import {
  loadDesiredOrReport,
  maxDestroyPercent,
  type PlanningArgs,
  planAgainstAccount,
  planningOptions,
  selectionOf,
  selectionWarning,
} from '../planning.js';
import { appendStepSummary } from '../summary.js';
import { EXIT_REFUSED, printPlan } from './plan.js';

/** Exit code after Ctrl-C, as a shell reports a process ended by SIGINT. */
export const EXIT_INTERRUPTED = 130;

export class ApplyUsageError extends AccordError {
  override name = 'ApplyUsageError';
  static override readonly code = 'ACCORD_USAGE';
}

export class NotApprovedError extends AccordError {
  override name = 'NotApprovedError';
  static override readonly code = 'ACCORD_NOT_APPROVED';
}

interface ApplyArgs {
  plan?: string;
  file?: string[];
  'auto-approve': boolean;
  'cert-dir'?: string;
  json?: boolean;
  parallelism?: number;
  stats: boolean;
}

export const applyCommand: CommandFactory = (io, setExit) => (y: Argv) =>
  y.command(
    'apply [plan]',
    'Change the account to match the file, or apply a plan saved by accord plan --out',
    (b) =>
      connectionOptions(
        planningOptions(b)
          .positional('plan', {
            type: 'string',
            describe:
              'A plan saved by accord plan --out FILE: planned again from the desired-state files this command names (-f, $ACCORD_FILES or accord.yaml; they must be the files the plan was made from, run where plan ran, same commit) and applied only if nothing differs',
          })
          .option('file', desiredFileOption)
          .option('auto-approve', {
            type: 'boolean',
            default: false,
            describe: 'Apply without asking (needed when stdin is not a terminal; a saved plan never asks)',
          })
          .option('cert-dir', {
            type: 'string',
            requiresArg: true,
            describe: 'Write each managed SSH host certificate to DIR/<key>-cert.pub',
          })
          .option('json', { type: 'boolean', describe: 'Print the result as JSON (the plan goes to stderr)' })
          .example('accord apply', 'plan ./accord.yaml, show it, ask, then apply')
          .example(
            'accord apply --auto-approve --cert-dir /etc/ssh/certs',
            'in CI, writing host certificates',
          )
          .example(
            'accord plan --out plan.json && accord apply plan.json',
            'apply the reviewed plan: refused if the files or the account changed since',
          )
          .example(
            'accord apply plan.json -f accord/shared -f accord/production.yaml',
            'apply a plan made from those files (the plan file never chooses them)',
          )
          .example(
            'accord apply --exclude ssh_host_certificates.db-1',
            'everything but that change and the changes that depend on it',
          ),
      ),
    async (argv) => {
      if (argv.plan !== undefined && (argv.target !== undefined || argv.exclude !== undefined)) {
        throw new ApplyUsageError(
          `a saved plan is applied exactly as it was reviewed, so --target/--exclude cannot narrow it; give them to accord plan (accord plan --target PATTERN --out ${argv.plan}), review, then apply that file.`,
        );
      }
      const code =
        argv.plan !== undefined ? await applySavedPlan(argv.plan, argv, io) : await planAndApply(argv, io);
      setExit(code);
    },
  );

/**
 * `accord apply FILE`: plans again from this command's desired-state files (-f, ACCORD_FILES or the
 * default), which must be those the saved plan names, with its selection and this command's own flags,
 * and applies that fresh plan if it is the one saved (src/apply/stale.ts).
 */
async function applySavedPlan(
  file: string,
  argv: ApplyArgs & ConnectionArgs & PlanningArgs,
  io: Io,
): Promise<number> {
  const { readPlanFile, planSavedAgain } = await import('../../apply/index.js');
  maxDestroyPercent(argv);
  const saved = readPlanFile(resolve(io.cwd, file), file);
  await checkCertDir(argv, io);
  const desired = await loadSavedFiles(saved, file, argv, io);
  if (!desired) return 1;
  const { withClient } = await import('../connection.js');
  return withClient(argv, io, async (client) => {
    const { verdict, plan, live } = await planSavedAgain(saved, desired, file, client.baseUrl, (context) =>
      planAgainstAccount(client, desired, argv, io, context),
    );
    const count = plan.changes.filter((c) => c.action !== 'no-op').length;
    const out = argv.json ? io.stderr : io.stdout;
    if (verdict === 'applied') out(`No changes: the account already matches this plan (${file}).\n`);
    else
      out(
        count === 0 ? 'No changes.\n' : `Applying ${file}: ${countOf(count, 'change')} to ${plan.api_url}\n`,
      );
    const warning = selectionWarning(plan);
    if (warning) io.stderr(warning);
    return execute(plan, client, liveObjects(live), argv, io);
  });
}

/**
 * The desired state of this command's files, once they are the files the saved plan names (the plan's
 * list is checked before any file is read, and never chooses one); undefined on file problems.
 */
async function loadSavedFiles(
  saved: Plan,
  shownAs: string,
  argv: Pick<ApplyArgs, 'file' | 'json'>,
  io: Io,
): Promise<DesiredState | undefined> {
  const { checkPlanPaths, checkSameFiles } = await import('../../apply/index.js');
  checkPlanPaths(saved, shownAs);
  const source = desiredPathsSource(argv.file, io.env);
  const { files, problems } = await expandPaths(desiredPaths(argv.file, io.env), io.cwd);
  // A directory without YAML files is reported by the load below, with the rest of the files' problems.
  if (problems.length === 0) {
    const relativeFiles = files.map((f) => relative(io.cwd, f.path).split(sep).join('/'));
    checkSameFiles(saved, relativeFiles, source, shownAs);
  }
  return loadDesiredOrReport(argv.file, io, argv.json);
}

/** Every listed managed object by ID, for --cert-dir. */
function liveObjects(live: LiveState): Map<string, LiveObject> {
  const objects = new Map<string, LiveObject>();
  for (const list of Object.values(live.managed)) for (const o of list) objects.set(String(o['id']), o);
  return objects;
}

/** `accord apply [-f PATH]...`: plan, show, ask (or --auto-approve), apply. */
async function planAndApply(argv: ApplyArgs & ConnectionArgs & PlanningArgs, io: Io): Promise<number> {
  selectionOf(argv);
  const desired = await loadDesiredOrReport(argv.file, io, argv.json);
  if (!desired) return 1;
  await checkCertDir(argv, io);
  const { withClient } = await import('../connection.js');
  return withClient(argv, io, async (client) => {
    const { plan, live } = await planAgainstAccount(client, desired, argv, io);
    // With --json, stdout carries only the result; the plan is still shown, on stderr.
    await printPlan(plan, {}, argv.json ? { ...io, stdout: io.stderr } : io);
    const warning = selectionWarning(plan);
    if (warning) io.stderr(warning);
    if (!plan.safe) return EXIT_REFUSED;
    const count = plan.changes.filter((c) => c.action !== 'no-op').length;
    if (count > 0 && !argv['auto-approve']) {
      if (!io.prompt) {
        throw new NotApprovedError(
          'not applying: nothing was changed. Approval needs a terminal; pass --auto-approve to apply without ' +
            'asking (e.g. in CI), or save the plan with accord plan --out FILE and apply that file.',
        );
      }
      const these = count === 1 ? 'this change' : `these ${count} changes`;
      let answer: string;
      try {
        answer = await io.prompt(
          `\nDo you want to make ${these} to ${plan.api_url}? Only "yes" will be accepted: `,
        );
      } catch (err) {
        if (!(err instanceof PromptCancelled)) throw err;
        // The prompt's line was left unfinished.
        io.stderr('\nApply cancelled; nothing was changed.\n');
        return err.by === 'interrupt' ? EXIT_INTERRUPTED : 1;
      }
      if (answer.trim() !== 'yes') {
        io.stderr('Apply cancelled; nothing was changed.\n');
        return 1;
      }
      // The time spent deciding is not the service's: retries get their whole --deadline again.
      client.restartDeadline();
    }
    return execute(plan, client, liveObjects(live), argv, io);
  });
}

/** A --cert-dir that cannot take the certificates fails here, before the first request. */
async function checkCertDir(argv: ApplyArgs, io: Io): Promise<void> {
  const dir = argv['cert-dir'];
  if (dir === undefined) return;
  const { prepareCertDir } = await import('../../apply/index.js');
  prepareCertDir(resolve(io.cwd, dir));
}

/** Runs the plan with progress, Ctrl-C handling, --cert-dir and the summary; returns the exit code. */
async function execute(
  plan: Plan,
  client: ApiClient,
  live: ReadonlyMap<string, LiveObject>,
  argv: ApplyArgs,
  io: Io,
): Promise<number> {
  const words = await import('../../render/apply.js');
  const out = argv.json ? io.stderr : io.stdout;
  sayReverted(plan, out);
  const result = await applyWithProgress(plan, client, argv, io);
  for (const line of words.skippedLines(result)) out(`${line}\n`);
  const certificates = await writeCertDir(plan, result, live, argv, io);
  if (hasChanges(plan)) out(`${words.applySummaryLine(result)}\n`);
  if (argv.json) io.stdout(words.renderResultJson(plan, result, certificates, client.stats.snapshot()));
  await appendStepSummary(io, () => words.renderResultMarkdown(result));
  if (result.status === 'interrupted') return EXIT_INTERRUPTED;
  return result.status === 'failed' ? 1 : 0;
}

/** So the log shows it: an apply silently undoing a change made in the dashboard may undo a fix. */
function sayReverted(plan: Plan, out: (text: string) => void): void {
  for (const c of plan.changes) {
    const reverted = c.changed_fields.filter((f) => c.drift[f] === 'outside' || c.drift[f] === 'both');
    if (reverted.length > 0)
      out(`reverting a change made outside accord: ${c.address} ${reverted.join(', ')}\n`);
  }
}

/**
 * Applies the plan, a line per change that ends and on a terminal a running count; Ctrl-C starts no new
 * change and waits for those under way.
 */
async function applyWithProgress(
  plan: Plan,
  client: ApiClient,
  argv: ApplyArgs,
  io: Io,
): Promise<ApplyResult> {
  const apply = await import('../../apply/index.js');
  const words = await import('../../render/apply.js');
  const out = argv.json ? io.stderr : io.stdout;
  const counter = io.isTty && !argv.json;
  const clear = counter ? '\r\u001b[K' : '';
  const controller = new AbortController();
  const stopListening = io.onInterrupt?.(() => {
    controller.abort();
    io.stderr(
      `${clear}Interrupted: no new changes start; waiting for those under way (Ctrl-C again to quit now).\n`,
    );
  });
  let result: ApplyResult;
  try {
    result = await apply.applyPlan(plan, client, {
      parallelism: client.parallelism,
      signal: controller.signal,
      onChangeEnd: (r) => out(`${clear}${words.progressLine(r)}\n`),
      ...(counter
        ? {
            onProgress: ({ finished, running, total }) =>
              out(`${clear}[${finished}/${total} finished, ${running} under way]`),
          }
        : {}),
    });
  } finally {
    stopListening?.();
  }
  if (counter) out(clear);
  return result;
}

/** --cert-dir: writes the managed certificates the apply made or knows, and names those no longer managed. */
async function writeCertDir(
  plan: Plan,
  result: ApplyResult,
  live: ReadonlyMap<string, LiveObject>,
  argv: ApplyArgs,
  io: Io,
): Promise<WrittenCertificate[]> {
  const dir = argv['cert-dir'];
  if (dir === undefined) return [];
  const apply = await import('../../apply/index.js');
  const out = argv.json ? io.stderr : io.stdout;
  const objects = new Map([...live, ...result.responses]);
  const certificates = apply.writeCertificates(
    resolve(io.cwd, dir),
    apply.certificatesToWrite(plan, result.changes, objects),
  );
  out(`Wrote ${countOf(certificates.length, 'SSH host certificate')} to ${dir}.\n`);
  // Only a plan of the whole file knows every key it manages.
  if (plan.selection === undefined) {
    for (const name of apply.staleCertificates(resolve(io.cwd, dir), plan)) {
      io.stderr(`Note: ${join(dir, name)} is no longer managed; remove it.\n`);
    }
  }
  return certificates;
}
