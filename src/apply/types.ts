// What an apply reports: per change and in total. Plain data, rendered by the CLI as text or JSON.
import type { ErrorReport } from '../errors.js';
import type { Action, PlanChange, ResourceKind } from '../plan/types.js';
import type { LiveObject } from '../resources/values.js';

/** The part of ApiClient (src/api/client.ts) the applier uses. */
export interface ApplyClient {
  post<T = unknown>(path: string, body: unknown): Promise<T>;
  patch<T = unknown>(path: string, body: unknown): Promise<T>;
  put<T = unknown>(path: string, body: unknown): Promise<T>;
  delete(path: string): Promise<void>;
  listAll<T = unknown>(path: string, listKey: string): AsyncIterable<T>;
}

/**
 * `done`: every request succeeded. `failed`: a request failed (a replace whose DELETE failed has
 * created the new object and left the old one, which the next plan deletes). `skipped`: a change it
 * depends on did not succeed. `not_started`: the run was interrupted before it began.
 */
export type ChangeStatus = 'done' | 'failed' | 'skipped' | 'not_started';

export interface ChangeResult {
  address: string;
  kind: ResourceKind;
  key: string;
  action: Action;
  status: ChangeStatus;
  /** The live ID acted on (the plan's), for a create or replace the new one once made. */
  id: string | null;
  /** For a replace: the ID of the object it replaced. */
  replaced_id?: string;
  /** From the first request sent to the last answer; 0 when nothing was sent. */
  duration_ms: number;
  /** Why it failed or was skipped: `code` says which error it is, `message` says it for people. */
  error?: ErrorReport;
  /** A create whose outcome was unknown and that was found by its marker instead of sent again. */
  recovered?: boolean;
}

export interface ApplySummary {
  created: number;
  patched: number;
  put: number;
  replaced: number;
  deleted: number;
  adopted: number;
  failed: number;
  skipped: number;
  not_started: number;
}

export interface ApplyResult {
  status: 'complete' | 'failed' | 'interrupted';
  summary: ApplySummary;
  /** In plan order; no-ops left out. */
  changes: ChangeResult[];
  duration_ms: number;
  /** The last object the API returned per ID (POST and PATCH answers), for --cert-dir. */
  responses: Map<string, LiveObject>;
}

export interface ApplyOptions {
  /** Requests in flight at once; the client's own semaphore enforces the same bound. */
  parallelism: number;
  /** Once aborted, no change starts; changes already started run to their end. */
  signal?: AbortSignal;
  /** Called as each change ends (done or failed; skipped ones only at the end). */
  onChangeEnd?: (result: ChangeResult, change: PlanChange) => void;
  /** Called whenever a change starts or ends: for a live counter. */
  onProgress?: (progress: { finished: number; running: number; total: number }) => void;
  /** Attempts of one create whose outcome stays unknown (default 5). */
  createAttempts?: number;
  /** Milliseconds, monotonic (default performance.now). */
  now?: () => number;
}
