// The plan pipeline `accord plan` and `accord apply -f` share: load the file, read the account, plan.
import { relative, sep } from 'node:path';
import type { Argv } from 'yargs';
import type { Account, LiveState } from '../account/model.js';
import type { ApiClient } from '../api/client.js';
import type { DesiredState } from '../config/model.js';
import { desiredPaths } from '../config/paths.js';
import { AccordError } from '../errors.js';
import type { Selection, UnmatchedPattern } from '../plan/select.js';
import type { Plan } from '../plan/types.js';
import { count } from '../plural.js';
import { selectionFlags } from '../render/values.js';
import { VERSION } from '../version.js';
import type { Io } from './io.js';
import { jsonError } from './json-error.js';

export interface PlanningArgs {
  force: boolean;
  'max-destroy-percent': number;
  'allow-takeover': boolean;
  target?: string[];
  exclude?: string[];
}

export class PlanUsageError extends AccordError {
  override name = 'PlanUsageError';
  static override readonly code = 'ACCORD_USAGE';
}

/** The options that shape a plan, shared by plan and apply. */
export function planningOptions<T>(y: Argv<T>): Argv<T & PlanningArgs> {
  return y
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
    .option('target', {
      type: 'string',
      array: true,
      nargs: 1,
      requiresArg: true,
      describe:
        'Plan only the changes matching PATTERN (an address, a glob with *, or a section) and what they depend on; repeatable',
    })
    .option('exclude', {
      type: 'string',
      array: true,
      nargs: 1,
      requiresArg: true,
      describe: 'Leave out the changes matching PATTERN and every change that depends on them; repeatable',
    }) as Argv<T & PlanningArgs>;
}

/** `--target`/`--exclude` as the planner takes them; undefined when neither was given. */
export function selectionOf(argv: Pick<PlanningArgs, 'target' | 'exclude'>): Selection | undefined {
  const target = argv.target ?? [];
  const exclude = argv.exclude ?? [];
  if (target.length === 0 && exclude.length === 0) return undefined;
  for (const [flag, patterns] of [
    ['--target', target],
    ['--exclude', exclude],
  ] as const) {
    if (patterns.some((p) => p.trim() === '')) {
      throw new PlanUsageError(
        `${flag} was given an empty pattern; give an address (ip_restrictions.office), a glob (ssh_host_certificates.web-*) or a section (certificate_authorities).`,
      );
    }
  }
  return { target, exclude };
}

/**
 * The one line every plan or apply made with --target/--exclude prints on stderr: it looked at a part
 * of the file on purpose, and the rest may still differ.
 */
export function selectionWarning(plan: Plan): string | undefined {
  if (!plan.selection) return undefined;
  const n = plan.selection.left_out.length;
  return (
    `Warning: planned only the part of the file chosen by ${selectionFlags(plan)} (${count(n, 'change')} left out); ` +
    'the account may still differ from the file: accord plan without them (or accord drift) shows the rest.\n'
  );
}

/** `--max-destroy-percent`, checked: plan checks it before reading anything, apply when it plans. */
export function maxDestroyPercent(argv: PlanningArgs): number {
  const percent = argv['max-destroy-percent'];
  if (!(percent >= 0 && percent <= 100)) {
    throw new PlanUsageError(`--max-destroy-percent must be from 0 to 100, got ${percent}.`);
  }
  return percent;
}

/**
 * Loads the desired state from `-f` (or ACCORD_FILES, or accord.yaml); on file problems prints them all
 * and returns undefined (exit 1). With `json`, stdout also gets them as the `{"error": ...}` document of
 * --json output.
 */
export async function loadDesiredOrReport(
  given: readonly string[] | undefined,
  io: Io,
  json = false,
): Promise<DesiredState | undefined> {
  const paths = desiredPaths(given, io.env);
  // Each caller plans next: what planning runs is read from disk while the file is read and checked.
  for (const next of [import('../account/read.js'), import('../plan/planner.js'), import('./connection.js')])
    next.catch(() => {}); // a module that fails to load fails where it is used
  // Loaded on use: other commands should not pay for these modules.
  const config = await import('../config/index.js');
  try {
    return await config.loadDesiredState(paths, io.cwd);
  } catch (err) {
    if (!(err instanceof config.ConfigError)) throw err;
    if (json) io.stdout(jsonError(err));
    for (const p of err.problems) io.stderr(`${config.formatProblem(p)}\n`);
    io.stderr(`${paths.join(', ')}: fix the problems above (see accord validate) and run again.\n`);
    return undefined;
  }
}

/**
 * The flags of a command that only reads a plan (drift, reach): the safety rules decide whether a plan
 * may be applied, so they do not apply. Guards still hold: no flag lifts them.
 */
export const READ_ONLY: PlanningArgs = { force: true, 'max-destroy-percent': 100, 'allow-takeover': false };

/** What the plan command line does not say: set by `apply FILE` from the saved plan. */
export interface PlanningContext {
  /** The desired-state files as the plan records them; default the loaded files, relative to io.cwd. */
  files?: string[];
  /** The saved plan's --target/--exclude, in place of the command line's. */
  selection?: Selection;
  /** Told when the files are loaded ('file'), the account read ('live') and the plan made ('plan'), for --stats. */
  onPhase?: (phase: 'file' | 'live' | 'plan') => void;
  /** `accord drift`: list a slot held outside accord instead of refusing to plan (PlanOptions). */
  reportHeldSlots?: boolean;
  /**
   * Told the account as typed, with the TCP edges when the plan listed them, before the plan is
   * finished: drift and reach still read it when planning fails.
   */
  onAccount?: (account: Account) => void;
}

/** Exit code after Ctrl-C, as a shell reports a process ended by SIGINT. */
const EXIT_INTERRUPTED = 130;

/**
 * Reads the live account (the fewest requests) and plans; `live` is kept for --cert-dir, and `account`,
 * the same typed once, for the commands that read it again after the plan (drift, reach).
 */
export function planAgainstAccount(
  client: ApiClient,
  desired: DesiredState,
  argv: PlanningArgs,
  io: PlanningIo,
  context?: PlanningContext,
): Promise<Planned>;
/**
 * With the files still loading (loadDesiredOrReport's promise): the account's lists are read meanwhile,
 * and nothing is planned (undefined) when the files have problems.
 */
export function planAgainstAccount(
  client: ApiClient,
  loading: Promise<DesiredState | undefined>,
  argv: PlanningArgs,
  io: PlanningIo,
  context?: PlanningContext,
): Promise<Planned | undefined>;
export async function planAgainstAccount(
  client: ApiClient,
  files: DesiredState | Promise<DesiredState | undefined>,
  argv: PlanningArgs,
  io: PlanningIo,
  context: PlanningContext = {},
): Promise<Planned | undefined> {
  const percent = maxDestroyPercent(argv);
  const selection = context.selection ?? selectionOf(argv);
  const { matchAccount, finishPlan } = await import('../plan/planner.js');
  const { worded } = await import('./worded-plan.js');
  const { withWords } = await import('../render/plan-words.js');
  const { accountOf } = await import('../account/model.js');
  const read = await readAccount(client, files, io, context);
  if (read === undefined) return undefined;
  const { desired, live } = read;
  // Each live object is typed once per run, and the plan made once.
  let account = accountOf(live);
  context.onAccount?.(account);
  const matched = await asUsage(() =>
    worded(() =>
      matchAccount(desired, account, io.now?.() ?? new Date(), {
        apiUrl: client.baseUrl,
        toolVersion: VERSION,
        files: context.files ?? desired.files.map((f) => relative(io.cwd, f.path).split(sep).join('/')),
        force: argv.force,
        maxDestroyPercent: percent,
        allowTakeover: argv['allow-takeover'],
        ...(selection ? { selection } : {}),
        ...(context.reportHeldSlots ? { reportHeldSlots: true } : {}),
      }),
    ),
  );
  // The planner asks for the TCP edges and endpoints when what the files do not name could change its result.
  if (matched.needsEdges || matched.needsEndpoints) {
    account = await withListedScopes(client, account, matched, live);
    context.onAccount?.(account);
  }
  const plan = await asUsage(() => worded(() => withWords(finishPlan(matched, account))));
  context.onPhase?.('plan');
  return { plan, live, account };
}

/**
 * The account with the TCP edges and endpoints the planner asked for, listed side by side (each kept in
 * `live` too, when given, for what reads the account as listed).
 */
export async function withListedScopes(
  client: ApiClient,
  account: Account,
  wanted: { needsEdges: boolean; needsEndpoints: boolean },
  live?: LiveState,
): Promise<Account> {
  const { readTcpEdges, readEndpoints } = await import('../account/read.js');
  const { liveEdges } = await import('../account/model.js');
  const { liveEndpoints } = await import('../account/endpoints.js');
  const [edges, endpoints] = await Promise.all([
    wanted.needsEdges ? readTcpEdges(client) : undefined,
    wanted.needsEndpoints ? readEndpoints(client) : undefined,
  ]);
  let listed = account;
  if (edges !== undefined) {
    if (live) live.tcpEdges = edges;
    listed = { ...listed, tcpEdges: liveEdges(edges) };
  }
  if (endpoints !== undefined) {
    if (live) live.endpoints = endpoints;
    listed = { ...listed, endpoints: liveEndpoints(endpoints) };
  }
  return listed;
}

/**
 * The files (once loaded) and the account's lists and named modules; undefined when the files have
 * problems. Ctrl-C meanwhile ends the run as before (exit 130), saying that nothing changed.
 */
async function readAccount(
  client: ApiClient,
  files: DesiredState | Promise<DesiredState | undefined>,
  io: PlanningIo,
  context: PlanningContext,
): Promise<{ desired: DesiredState; live: LiveState } | undefined> {
  const { listManaged, readModules } = await import('../account/read.js');
  const stopListening = io.onInterrupt?.(() => {
    io.stderr('\nInterrupted while reading the account; nothing was changed.\n');
    process.exit(EXIT_INTERRUPTED);
  });
  let read: { desired: DesiredState; live: LiveState };
  try {
    // Most lists need nothing of the files: they are read while the files load.
    const managed = listManaged(client, files);
    managed.catch(() => {}); // awaited below, or left unread with the files' problems
    const desired = await files;
    if (desired === undefined) return undefined;
    context.onPhase?.('file');
    read = { desired, live: { ...(await managed), modules: await readModules(client, desired) } };
  } finally {
    stopListening?.();
  }
  context.onPhase?.('live');
  return read;
}

/** `make()`, with --target/--exclude patterns that match no change of the plan a usage error. */
async function asUsage<T>(make: () => T): Promise<T> {
  const { UnmatchedSelection } = await import('../plan/select.js');
  try {
    return make();
  } catch (err) {
    if (err instanceof UnmatchedSelection)
      throw new PlanUsageError(unmatchedMessage(err.unmatched), { cause: err });
    throw err;
  }
}

type PlanningIo = Pick<Io, 'cwd' | 'now' | 'stderr' | 'onInterrupt'>;

/**
 * `io` whose stderr lines wait for the files: said once they load, dropped when they have problems, so
 * that what the account's reading said meanwhile (a retry, say) does not come before or beside them.
 */
export function heldUntilLoaded(io: Io, loading: Promise<DesiredState | undefined>): Io {
  let held: string[] | undefined = [];
  const settle = (say: boolean) => {
    const lines = held ?? [];
    held = undefined;
    if (say) for (const line of lines) io.stderr(line);
  };
  loading.then(
    (desired) => settle(desired !== undefined),
    () => settle(false),
  );
  return {
    ...io,
    stderr: (text) => {
      if (held) held.push(text);
      else io.stderr(text);
    },
  };
}

/** A plan with the account it was made against, as read and as typed once. */
export interface Planned {
  plan: Plan;
  live: LiveState;
  account: Account;
}

/** The usage error of `--target`/`--exclude` patterns that match no change of the plan. */
export function unmatchedMessage(unmatched: readonly UnmatchedPattern[]): string {
  const said = unmatched.map(({ flag, pattern, near }) =>
    near.length > 0 ? `${flag} ${pattern} (did you mean ${near.join(' or ')}?)` : `${flag} ${pattern}`,
  );
  const verb = unmatched.length === 1 ? 'matches' : 'match';
  return (
    `${said.join(', ')} ${verb} no change of the plan (no entry of the file, nor anything it deletes); ` +
    'nothing was planned. A pattern is an address as the plan shows it (ip_restrictions.office), a glob ' +
    '(ssh_host_certificates.web-*) or a section (certificate_authorities); run accord plan without ' +
    '--target/--exclude to see every address.'
  );
}
