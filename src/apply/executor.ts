// Applies a plan (DESIGN §4): its changes, no-ops left out, as the nodes of a DAG (src/apply/dag.ts)
// whose edges are depends_on, each sending its requests (src/apply/send.ts). A change depends on
// another when it names the ID that one makes (known after apply, filled in from its answer),
// or when the order keeps traffic between what the old and the new files let through. A running change
// holds its slot until its last request has answered, so at most `parallelism` requests are in flight
// and a replace is never left half done for want of a slot.
import { AccordError, errorReport } from '../errors.js';
import type { Plan, PlanChange } from '../plan/types.js';
import { type NodeEnd, runDag } from './dag.js';
import { RequestSender } from './send.js';
import type { ApplyClient, ApplyOptions, ApplyResult, ApplySummary, ChangeResult } from './types.js';

/** A change was skipped because one it depends on did not succeed. */
export class DependencyError extends AccordError {
  override name = 'DependencyError';
  static override readonly code = 'ACCORD_DEPENDENCY';
}

interface Run {
  change: PlanChange;
  result: ChangeResult;
  startedAt?: number;
}

export async function applyPlan(
  plan: Plan,
  client: ApplyClient,
  options: ApplyOptions,
): Promise<ApplyResult> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const sender = new RequestSender(client, plan, options.createAttempts ?? 5);
  const runs = plan.changes
    .filter((c) => c.action !== 'no-op' && c.requests.length > 0)
    .map<Run>((change) => ({ change, result: resultOf(change) }));
  const aborted = () => options.signal?.aborted ?? false;
  let finished = 0;
  let running = 0;

  // A throwing callback must not stall the run: the first error is rethrown once it is over.
  let callbackError: { error: unknown } | undefined;
  const notify = (fn: () => void) => {
    try {
      fn();
    } catch (error) {
      callbackError ??= { error };
    }
  };
  const progress = () => notify(() => options.onProgress?.({ finished, running, total: runs.length }));

  await runDag(
    runs.map((r) => ({ id: r.change.address, dependsOn: r.change.depends_on, item: r })),
    {
      parallelism: options.parallelism,
      aborted,
      work: (r) => sender.sendChange(r.change, r.result),
      onStart: (r) => {
        r.startedAt = now();
        running++;
        progress();
      },
      onEnd: (r, end, ran) => {
        if (ran) running--;
        recordEnd(r, end, now);
        if (end.state !== 'not_started') finished++;
        if (end.state === 'done' || end.state === 'failed')
          notify(() => options.onChangeEnd?.(r.result, r.change));
        if (ran) progress();
      },
    },
  );
  if (callbackError) throw callbackError.error;
  const changes = runs.map((r) => r.result);
  const summary = summarize(changes);
  const status = runStatus(summary, aborted());
  const responses = sender.responses;
  return { status, summary, changes, duration_ms: Math.round(now() - started), responses };
}

/** A change's end, in its result: its state, its error and how long it ran. */
function recordEnd(r: Run, end: NodeEnd, now: () => number): void {
  r.result.status = end.state;
  const error = endError(end);
  if (error !== undefined) r.result.error = errorReport(error);
  if (r.startedAt !== undefined) r.result.duration_ms = Math.round(now() - r.startedAt);
}

/**
 * How the run ended. Interrupted only when something was left undone: a Ctrl-C after the last change
 * started, with every change done, is a complete apply (nothing is left to run again).
 */
function runStatus(summary: ApplySummary, aborted: boolean): ApplyResult['status'] {
  const left = summary.not_started + summary.failed + summary.skipped;
  if (summary.not_started > 0 || (aborted && left > 0)) return 'interrupted';
  return summary.failed + summary.skipped > 0 ? 'failed' : 'complete';
}

function resultOf(change: PlanChange): ChangeResult {
  const { address, kind, key, action, id } = change;
  return { address, kind, key, action, status: 'not_started', id, duration_ms: 0 };
}

/** What a change that did not succeed reports as its error. */
function endError(end: NodeEnd): unknown {
  if (end.state === 'skipped') {
    const { id, state } = end.blockedBy;
    return new DependencyError(`it waits for ${id}, which ${state === 'failed' ? 'failed' : 'was skipped'}`);
  }
  if (end.state !== 'failed') return undefined;
  return 'cycle' in end
    ? new Error('its dependencies form a cycle; this is a bug, please report it')
    : end.error;
}

export function summarize(changes: readonly ChangeResult[]): ApplySummary {
  const s: ApplySummary = {
    created: 0,
    patched: 0,
    put: 0,
    replaced: 0,
    deleted: 0,
    adopted: 0,
    failed: 0,
    skipped: 0,
    not_started: 0,
  };
  const done: Partial<Record<ChangeResult['action'], keyof ApplySummary>> = {
    create: 'created',
    patch: 'patched',
    put: 'put',
    replace: 'replaced',
    delete: 'deleted',
    adopt: 'adopted',
  };
  for (const c of changes) {
    if (c.status === 'done') {
      const field = done[c.action];
      if (field) s[field]++;
    } else s[c.status]++;
  }
  return s;
}
