// Runs a plan's changes as a DAG (DESIGN §4). A change's requests go in order (a replace's in its
// replace_order); its POST waits until the DELETE of every change in `depends_on` has succeeded. The
// graph is one of requests, not of changes: two replaces may each wait on the other's DELETE when one
// of them deletes first (the planner breaks such cycles only at that level). Up to `parallelism`
// requests run at once; a failed change skips those waiting on it; independent ones go on.

import { AccordError, errorReport } from '../errors.js';
import type { Plan, PlanChange, PlannedRequest } from '../plan/types.js';
import { descriptorFor, isManaged } from '../resources/index.js';
import { isRecord, type LiveObject } from '../resources/values.js';
import { createOnce } from './create.js';
import type { ApplyClient, ApplyOptions, ApplyResult, ApplySummary, ChangeResult } from './types.js';

interface Run {
  change: PlanChange;
  result: ChangeResult;
  /** Index of the next request to send. */
  next: number;
  /** The change's DELETE has succeeded (what dependents wait for). */
  deleted: boolean;
  startedAt?: number;
}

/** A change was skipped, or stopped half way, because one it depends on did not succeed. */
export class DependencyError extends AccordError {
  override name = 'DependencyError';
  static override readonly code = 'ACCORD_DEPENDENCY';
}

export async function applyPlan(
  plan: Plan,
  client: ApplyClient,
  options: ApplyOptions,
): Promise<ApplyResult> {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const createAttempts = options.createAttempts ?? 5;
  const responses = new Map<string, LiveObject>();
  const runs = plan.changes
    .filter((c) => c.action !== 'no-op' && c.requests.length > 0)
    .map<Run>((change) => ({
      change,
      result: {
        address: change.address,
        kind: change.kind,
        key: change.key,
        action: change.action,
        status: 'not_started',
        id: change.id,
        duration_ms: 0,
      },
      next: 0,
      deleted: false,
    }));
  const byAddress = new Map(runs.map((r) => [r.change.address, r]));
  // IDs that carried a marker when the plan was made: never taken for a newly created object.
  const knownIds = new Set(plan.changes.map((c) => c.id).filter((id): id is string => id !== null));
  const total = runs.length;
  let finished = 0;
  let running = 0;
  /** A change failed or was skipped since the last look: those waiting on it must be skipped too. */
  let blocked = false;

  const finish = (r: Run, status: ChangeResult['status'], error?: unknown) => {
    r.result.status = status;
    if (error !== undefined) r.result.error = errorReport(error);
    if (r.startedAt !== undefined) r.result.duration_ms = Math.round(now() - r.startedAt);
    finished++;
    if (status === 'failed' || status === 'skipped') blocked = true;
    if (status === 'done' || status === 'failed') notify(() => options.onChangeEnd?.(r.result, r.change));
  };
  // A throwing callback must not stall the run: the first error is rethrown once it is over.
  let callbackError: { error: unknown } | undefined;
  const notify = (fn: () => void) => {
    try {
      fn();
    } catch (error) {
      callbackError ??= { error };
    }
  };

  /** Why the run's next request cannot be sent yet: 'wait', 'blocked' (a dependency failed) or ready. */
  const readiness = (r: Run): 'ready' | 'wait' | { blockedBy: string } => {
    const request = r.change.requests[r.next]!;
    if (request.method !== 'POST') return 'ready';
    for (const address of r.change.depends_on) {
      const dep = byAddress.get(address);
      if (!dep) continue; // a no-op in the plan: nothing to wait for
      if (dep.deleted) continue;
      const hasDelete = dep.change.requests.some((q) => q.method === 'DELETE');
      if (!hasDelete && dep.result.status === 'done') continue;
      if (dep.result.status === 'failed' || dep.result.status === 'skipped') return { blockedBy: address };
      // Interrupted before it started, it never will: nothing frees what this change waits for.
      if (dep.result.status === 'not_started' && dep.startedAt === undefined && options.signal?.aborted) {
        return { blockedBy: address };
      }
      return 'wait';
    }
    return 'ready';
  };

  return new Promise<ApplyResult>((resolve, reject) => {
    // Bookkeeping that keeps each pump proportional to what can change, not to the plan's size:
    // runs[cursor..] have not been looked at; `deferred` were looked at and wait for a dependency;
    // `between` have sent some of their requests and wait for a slot or a dependency.
    let cursor = 0;
    const deferred = new Set<Run>();
    const between = new Set<Run>();
    const aborted = () => options.signal?.aborted ?? false;

    /** Ends a waiting run whose dependency failed, was skipped, or will not start; true if it did. */
    const endIfBlocked = (r: Run): boolean => {
      const state = readiness(r);
      if (typeof state !== 'object') return false;
      const dep = byAddress.get(state.blockedBy)!;
      const why =
        dep.result.status === 'not_started'
          ? `${state.blockedBy} was not started (interrupted)`
          : `${state.blockedBy} ${dep.result.status === 'failed' ? 'failed' : 'was skipped'}`;
      if (r.next === 0) finish(r, 'skipped', new DependencyError(`not started: it waits for ${why}`));
      else {
        finish(
          r,
          'failed',
          new DependencyError(`stopped half way (its DELETE is done, its POST not sent): ${why}`),
        );
      }
      return true;
    };

    const pump = () => {
      for (let again = true; again; ) {
        again = false;
        // Skips first: a skipped change may itself be waited on, so repeat until nothing changes.
        if (blocked || aborted()) {
          blocked = false;
          for (const set of [between, deferred]) {
            for (const r of set) {
              if (r.next === 0 && aborted()) continue; // stays not started
              if (endIfBlocked(r)) set.delete(r);
            }
          }
          again = blocked;
        }
        // Changes already under way first, so that a replace is not left half done; then plan order.
        for (const r of between) {
          if (running >= options.parallelism) break;
          if (readiness(r) === 'ready') {
            between.delete(r);
            void step(r);
          }
        }
        for (const r of deferred) {
          if (running >= options.parallelism || aborted()) break;
          if (readiness(r) === 'ready') {
            deferred.delete(r);
            void step(r);
          }
        }
        while (running < options.parallelism && cursor < runs.length && !aborted()) {
          const r = runs[cursor++]!;
          const state = readiness(r);
          if (state === 'ready') void step(r);
          else if (state === 'wait') deferred.add(r);
          else if (endIfBlocked(r)) again = true;
        }
      }
      notify(() => options.onProgress?.({ finished, running, total }));
      if (running > 0) return;
      // Nothing in flight and nothing startable: the run is over. What is left either was not started
      // because of an interrupt, or waits in a cycle the planner should have broken.
      for (const r of [...between, ...deferred]) {
        if (r.next > 0 || !aborted()) {
          finish(
            r,
            'failed',
            new Error('its dependencies cannot be ordered; this is a bug, please report it'),
          );
        }
      }
      if (callbackError) reject(callbackError.error);
      else resolve(result());
    };

    const step = async (r: Run) => {
      running++;
      r.startedAt ??= now();
      const request = r.change.requests[r.next]!;
      let failure: { error: unknown } | undefined;
      try {
        await send(r, request);
      } catch (error) {
        failure = { error };
      }
      running--;
      if (failure) {
        finish(r, 'failed', failure.error);
      } else {
        r.next++;
        if (request.method === 'DELETE') r.deleted = true;
        if (r.next >= r.change.requests.length) finish(r, 'done');
        else between.add(r);
      }
      pump();
    };

    const send = async (r: Run, request: PlannedRequest) => {
      const { change } = r;
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

    const result = (): ApplyResult => {
      const changes = runs.map((r) => r.result);
      const summary = summarize(changes);
      const status =
        summary.not_started > 0 || (options.signal?.aborted ?? false)
          ? 'interrupted'
          : summary.failed + summary.skipped > 0
            ? 'failed'
            : 'complete';
      return { status, summary, changes, duration_ms: Math.round(now() - started), responses };
    };

    pump();
  });
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
