// One endpoint judged by two guards, which only the account shows: a guard by the URL a plan moves
// the endpoint away from still judges it (an endpoint keeps every name it has on either side of the
// plan), so beside a guard by its address (which the files resolve to the new URL) or by its new URL
// it is guarded twice. The plan is refused at the later guard, naming the first, before any request;
// guards that each judge one endpoint, or `all` beside one, are no problem.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import type { DesiredGuard } from '../../src/config/guard-model.js';
import { PlanError } from '../../src/plan/planner.js';
import type { DesiredCloudEndpoint } from '../../src/resources/cloud_endpoint.js';
import type { LiveObject } from '../../src/resources/values.js';
import { desiredState, liveState, marker, NOW, OPTIONS } from './fixtures.js';

const OLD = 'https://old.example.com';
const NEW = 'https://new.example.com';
const OTHER = 'https://other.example.com';
const POLICY = {
  on_http_request: [{ actions: [{ type: 'restrict-ips', config: { allow: ['10.0.0.0/8'] } }] }],
};

function liveEndpoint(id: string, url: string, key?: string): LiveObject {
  return {
    id,
    type: 'cloud',
    url,
    created_at: '2026-01-01T00:00:00Z',
    description: '',
    metadata: key !== undefined ? marker(key) : '',
    pooling_enabled: false,
    traffic_policy: JSON.stringify(POLICY),
  };
}

function entry(key: string, url: string, line: number): DesiredCloudEndpoint {
  return {
    kind: 'cloud_endpoint',
    key,
    description: '',
    protect: false,
    loc: { file: '/w/accord.yaml', line, col: 3 },
    url,
    pooling_enabled: false,
    traffic_policy: POLICY,
  } as unknown as DesiredCloudEndpoint;
}

/** A guard that holds for every scope either side: what is judged is only who judges. */
const guard = (scope: string, line: number): DesiredGuard => ({
  scope,
  enforced: false,
  always_let_in: ['10.0.0.0/8'],
  loc: { file: 'guards.yaml', line, col: 3 },
});

const planOf = (entries: DesiredCloudEndpoint[], live: LiveObject[], guards: DesiredGuard[]) =>
  plan(
    desiredState({ cloud_endpoints: entries, guards }),
    { ...liveState({ cloud_endpoint: live }), endpoints: live },
    NOW,
    OPTIONS,
  );

function refusal(...args: Parameters<typeof planOf>): PlanError {
  try {
    planOf(...args);
  } catch (err) {
    if (err instanceof PlanError) return err;
    throw err;
  }
  throw new Error('the plan was made');
}

describe('an endpoint whose url the plan changes, judged by two guards', () => {
  const moved = [entry('admin', NEW, 4)];
  const live = [liveEndpoint('ep_1', OLD, 'admin')];

  it('by its old URL and by its address: refused at the later guard, naming the first', () => {
    const err = refusal(moved, live, [guard(OLD, 3), guard('cloud_endpoints.admin', 6)]);
    expect(err.problems).toEqual([
      {
        code: 'guarded_twice',
        scope: OLD,
        address: 'cloud_endpoints.admin',
        before: OLD,
        after: NEW,
        guard: {
          guard: 'cloud_endpoints.admin',
          at: { file: 'guards.yaml', line: 6, col: 3 },
          by: 'address',
        },
        first: { guard: OLD, at: { file: 'guards.yaml', line: 3, col: 3 }, by: 'url_before' },
      },
    ]);
    expect(err.messages).toEqual([
      'guards.cloud_endpoints.admin (guards.yaml:6:3): judges the endpoint https://old.example.com (cloud_endpoints.admin) by its address, as guards.https://old.example.com (guards.yaml:3:3) does by its URL before this plan; this plan changes its url from https://old.example.com to https://new.example.com, and a guard by either URL judges it; an endpoint is guarded once (guards never merge): keep one of them (one by its address, cloud_endpoints.admin, follows it whatever its url)',
    ]);
  });

  it.each([
    [
      'the address first, then the old URL',
      [guard('cloud_endpoints.admin', 3), guard(OLD, 6)],
      OLD,
      'url_before',
    ],
    ['its new URL first, then its old URL', [guard(NEW, 3), guard(OLD, 6)], OLD, 'url_before'],
    ['its old URL first, then its new URL', [guard(OLD, 3), guard(NEW, 6)], NEW, 'url_after'],
  ])('by %s: refused at the later', (_, guards, later, by) => {
    const err = refusal(moved, live, guards);
    expect(err.problems).toEqual([
      expect.objectContaining({
        code: 'guarded_twice',
        guard: expect.objectContaining({ guard: later, by }),
      }),
    ]);
  });

  it('a new endpoint at the URL it leaves: the guard of that URL judges both; guards by address judge one each', () => {
    // Without id:, the entry at the old URL would be matched to the endpoint there (a rename).
    const entries = [{ ...entry('admin', NEW, 4), id: 'ep_1' }, entry('n', OLD, 8)];
    const err = refusal(entries, live, [guard(OLD, 3), guard('cloud_endpoints.admin', 6)]);
    expect(err.problems).toEqual([
      expect.objectContaining({ code: 'guarded_twice', address: 'cloud_endpoints.admin' }),
    ]);
    const p = planOf(entries, live, [guard('cloud_endpoints.n', 3), guard('cloud_endpoints.admin', 6)]);
    expect(p.changes.map((c) => [c.address, c.action, c.depends_on])).toEqual([
      ['cloud_endpoints.admin', 'patch', []],
      ['cloud_endpoints.n', 'create', ['cloud_endpoints.admin']],
    ]);
    expect(p.unsafe_reasons).toEqual([]);
  });

  it('one guard by its old URL alone judges it after the move, as before: no problem', () => {
    const p = planOf(moved, live, [guard(OLD, 3)]);
    expect(p.changes.map((c) => c.action)).toEqual(['patch']);
    expect(p.unsafe_reasons).toEqual([]);
  });

  it('guards that each judge another endpoint, or all beside one, are no problem', () => {
    const both = [...live, liveEndpoint('ep_2', OTHER)];
    const p = planOf(moved, both, [guard('all', 2), guard('cloud_endpoints.admin', 3), guard(OTHER, 6)]);
    expect(p.unsafe_reasons).toEqual([]);
  });
});
