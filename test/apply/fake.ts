// A scripted in-memory API client and plan builders for executor tests.
import { ApiError, OutcomeUnknownError } from '../../src/api/errors.js';
import type { ApplyClient } from '../../src/apply/types.js';
import { summarizePlan } from '../../src/plan/planner.js';
import type { Plan, PlanChange, PlannedRequest } from '../../src/plan/types.js';
import { encodeMarker } from '../../src/resources/marker.js';

export type Obj = Record<string, unknown>;

/** Answers after a macrotask so that requests overlap; `fail` decides a request's fate. */
export class FakeClient implements ApplyClient {
  readonly log: string[] = [];
  readonly objects: Obj[] = [];
  inFlight = 0;
  maxInFlight = 0;
  #next = 0;
  constructor(
    readonly fail: (
      method: string,
      path: string,
      body?: unknown,
    ) => 'ok' | 'error' | 'unknown-committed' | 'unknown' = () => 'ok',
    /** How long a request takes: by default one timer tick, so that requests overlap. */
    readonly delay: () => Promise<void> = () => new Promise((r) => setTimeout(r, 1)),
  ) {}

  async #call(method: string, path: string, body?: unknown): Promise<unknown> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await this.delay();
    this.inFlight--;
    const key = method === 'POST' ? ` ${JSON.parse(String((body as Obj)['metadata'])).accord.key}` : '';
    this.log.push(`${method} ${path}${key}`);
    const fate = this.fail(method, path, body);
    if (fate === 'error') throw new ApiError({ status: 409, method, path, msg: 'conflict' });
    if (method === 'POST' && fate !== 'unknown') {
      const obj = { id: `ipx_${++this.#next}`, ...(body as Obj) };
      this.objects.unshift(obj);
      if (fate === 'unknown-committed')
        throw new OutcomeUnknownError(method, path, 'UND_ERR_SOCKET', 'closed');
      return obj;
    }
    if (fate === 'unknown')
      throw new ApiError({ status: 500, method, path, msg: 'boom', outcomeUnknown: true });
    if (method === 'DELETE') {
      const i = this.objects.findIndex((o) => path.endsWith(`/${String(o['id'])}`));
      if (i >= 0) this.objects.splice(i, 1);
    }
    return {};
  }
  post<T>(path: string, body: unknown) {
    return this.#call('POST', path, body) as Promise<T>;
  }
  patch<T>(path: string, body: unknown) {
    return this.#call('PATCH', path, body) as Promise<T>;
  }
  put<T>(path: string, body: unknown) {
    return this.#call('PUT', path, body) as Promise<T>;
  }
  async delete(path: string) {
    await this.#call('DELETE', path);
  }
  async *listAll<T>(path: string): AsyncIterable<T> {
    this.log.push(`GET ${path}`);
    for (const o of [...this.objects]) yield o as T;
  }
}

export const post = (key: string): PlannedRequest => ({
  method: 'POST',
  path: '/ip_restrictions',
  body: { type: 'api', metadata: encodeMarker('o', key, false) },
});
export const del = (id: string): PlannedRequest => ({ method: 'DELETE', path: `/ip_restrictions/${id}` });

export function change(
  key: string,
  action: PlanChange['action'],
  requests: PlannedRequest[],
  extra: Partial<PlanChange> = {},
): PlanChange {
  return {
    address: `ip_restrictions.${key}`,
    kind: 'ip_restriction',
    key,
    id: action === 'create' ? null : `ipx_old_${key}`,
    action,
    reasons: ['test'],
    reason_codes: [],
    before: null,
    after: null,
    changed_fields: [],
    drift: {},
    depends_on: [],
    requests,
    ...extra,
  };
}

export function planOf(changes: PlanChange[]): Plan {
  return {
    format_version: 5,
    tool_version: 't',
    api_url: 'http://x',
    owner: 'o',
    created_at: new Date(0).toISOString(),
    files: ['accord.yaml'],
    config_digest: '0'.repeat(64),
    safe: true,
    unsafe_reasons: [],
    safety: {
      managed: 0,
      destroyed: 0,
      max_destroy_percent: 30,
      threshold_exceeded: false,
      forced: false,
      protected: [],
    },
    summary: summarizePlan(changes, 0, 0),
    changes,
    warnings: [],
    reach: [],
    reach_unchanged: [],
  };
}
