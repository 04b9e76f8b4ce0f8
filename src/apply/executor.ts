// Runs a plan's changes as a DAG (DESIGN §4), as a small scheduler. Each change moves through named
// states:
//
//   waiting --(every change in depends_on done)--> queued --(a slot of `parallelism`)--> running
//   running --> done | failed
//   waiting --(a dependency failed or was skipped)--> skipped
//   queued  --(interrupted before it got a slot)--> not_started
//
// A running change holds its slot until its last request has answered, so at most `parallelism`
// requests are in flight and a replace is never left half done for want of a slot. Slots are handed
// out first come, first served, which is plan order among changes that are ready. A change depends on
// another when it names the ID that one makes (`(known after apply: ...)`, filled in here from its
// answer), or when the order keeps traffic between what the old and the new files let through.
import { Semaphore } from '../api/semaphore.js';
import { AccordError, errorReport } from '../errors.js';
import { fillKnownAfterApply } from '../plan/references.js';
import type { Plan, PlanChange, PlannedRequest } from '../plan/types.js';
import { descriptorFor, isManaged } from '../resources/index.js';
import { isRecord, type LiveObject } from '../resources/values.js';
import { createOnce } from './create.js';
import type { ApplyClient, ApplyOptions, ApplyResult, ApplySummary, ChangeResult } from './types.js';

/** A change was skipped because one it depends on did not succeed. */
export class DependencyError extends AccordError {
  override name = 'DependencyError';
  static override readonly code = 'ACCORD_DEPENDENCY';
}

type State = 'waiting' | 'queued' | 'running' | ChangeResult['status'];

interface Run {
  change: PlanChange;
  state: State;
  result: ChangeResult;
  /** Settles when the run has reached a final state; made on first demand, so each run starts once. */
  settled?: Promise<void>;
  startedAt?: number;
}

export async function applyPlan(
  plan: Plan,
  client: ApplyClient,
  options: ApplyOptions,
): Promise<ApplyResult> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const createAttempts = options.createAttempts ?? 5;
  const slots = new Semaphore(options.parallelism);
  const responses = new Map<string, LiveObject>();
  // IDs that carried a marker when the plan was made: never taken for a newly created object.
  const knownIds = new Set(plan.changes.map((c) => c.id).filter((id): id is string => id !== null));
  const runs = plan.changes
    .filter((c) => c.action !== 'no-op' && c.requests.length > 0)
    .map<Run>((change) => ({
      change,
      state: 'waiting',
      result: {
        address: change.address,
        kind: change.kind,
        key: change.key,
        action: change.action,
        status: 'not_started',
        id: change.id,
        duration_ms: 0,
      },
    }));
  const byAddress = new Map(runs.map((r) => [r.change.address, r]));
  const cyclic = inCycles(runs, byAddress);
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

  const end = (r: Run, state: ChangeResult['status'], error?: unknown) => {
    r.state = state;
    r.result.status = state;
    if (error !== undefined) r.result.error = errorReport(error);
    if (r.startedAt !== undefined) r.result.duration_ms = Math.round(now() - r.startedAt);
    if (state === 'not_started') return;
    finished++;
    if (state === 'done' || state === 'failed') notify(() => options.onChangeEnd?.(r.result, r.change));
  };

  // IDs made by this apply, by the address of the change that made them: a later change's requests
  // name them as `(known after apply: ADDRESS)` (src/plan/references.ts).
  const made = new Map<string, string>();
  const send = async (r: Run, planned: PlannedRequest) => {
    const { change } = r;
    const request = fillKnownAfterApply(planned, (address) => made.get(address)) as PlannedRequest;
    const descriptor = descriptorFor(change.kind);
    if (request.method === 'POST' && isManaged(descriptor)) {
      const { object, recovered } = await createOnce(
        client,
        descriptor,
        request.body ?? {},
        knownIds,
        createAttempts,
      );
      const id = String(object['id']);
      responses.set(id, object);
      made.set(change.address, id);
      if (change.action === 'replace' && change.id !== null) r.result.replaced_id = change.id;
      r.result.id = id;
      if (recovered) r.result.recovered = true;
      return;
    }
    let answer: unknown;
    if (request.method === 'POST') answer = await client.post(request.path, request.body ?? {});
    else if (request.method === 'PATCH') answer = await client.patch(request.path, request.body ?? {});
    else if (request.method === 'PUT') answer = await client.put(request.path, request.body ?? {});
    else await client.delete(request.path);
    if (isRecord(answer) && typeof answer['id'] === 'string') responses.set(answer['id'], answer);
  };

  /** waiting -> queued -> running -> done | failed, or skipped, or not_started. */
  const settle = (r: Run): Promise<void> => {
    r.settled ??= (async () => {
      if (cyclic.has(r)) {
        end(r, 'failed', new Error('its dependencies form a cycle; this is a bug, please report it'));
        return;
      }
      for (const address of r.change.depends_on) {
        const dep = byAddress.get(address);
        if (!dep) continue; // a no-op in the plan: nothing to wait for
        await settle(dep);
        if (dep.state === 'done') continue;
        if (dep.state === 'not_started') return; // interrupted: neither will this one start
        const which = dep.state === 'failed' ? 'failed' : 'was skipped';
        end(r, 'skipped', new DependencyError(`it waits for ${address}, which ${which}`));
        return;
      }
      r.state = 'queued';
      const release = await slots.acquire();
      try {
        if (aborted()) {
          end(r, 'not_started');
          return;
        }
        r.state = 'running';
        r.startedAt = now();
        running++;
        progress();
        try {
          for (const request of r.change.requests) await send(r, request);
          running--;
          end(r, 'done');
        } catch (error) {
          running--;
          end(r, 'failed', error);
        }
        progress();
      } finally {
        release();
      }
    })();
    return r.settled;
  };

  await Promise.all(runs.map(settle));
  if (callbackError) throw callbackError.error;
  const changes = runs.map((r) => r.result);
  const summary = summarize(changes);
  const status =
    summary.not_started > 0 || aborted()
      ? 'interrupted'
      : summary.failed + summary.skipped > 0
        ? 'failed'
        : 'complete';
  return { status, summary, changes, duration_ms: Math.round(now() - started), responses };
}

/** The runs on a cycle of depends_on, or waiting on one: a saved plan is checked for none. */
function inCycles(runs: readonly Run[], byAddress: ReadonlyMap<string, Run>): Set<Run> {
  const bad = new Set<Run>();
  const state = new Map<Run, 'open' | 'closed'>();
  const visit = (r: Run): boolean => {
    const seen = state.get(r);
    if (seen === 'open') return true;
    if (seen === 'closed') return bad.has(r);
    state.set(r, 'open');
    let cyclic = false;
    for (const address of r.change.depends_on) {
      const dep = byAddress.get(address);
      if (dep && visit(dep)) cyclic = true;
    }
    state.set(r, 'closed');
    if (cyclic) bad.add(r);
    return cyclic;
  };
  for (const r of runs) visit(r);
  return bad;
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
