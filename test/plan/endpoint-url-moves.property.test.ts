// Cloud endpoints moving between URLs, at random: this owner's endpoints kept, renamed by URL, moved
// or deleted, endpoints accord does not manage left alone or adopted by id and moved, new entries
// created at any URL, one another endpoint leaves in the plan included. A plan that is made keeps one
// cloud endpoint per URL after every request, in every order its depends_on allows (the service
// answers 409 otherwise), and ends with the file's URLs; a plan that is refused says why (a URL held
// by an endpoint no change frees, or moves that wait on one another round a cycle).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LiveState } from '../../src/account/model.js';
import { plan } from '../../src/cli/worded-plan.js';
import { PlanError } from '../../src/plan/planner.js';
import type { Plan } from '../../src/plan/types.js';
import type { DesiredCloudEndpoint } from '../../src/resources/cloud_endpoint.js';
import type { LiveObject } from '../../src/resources/values.js';
import { desiredState, liveState, marker, NOW, OPTIONS } from './fixtures.js';

const URLS = [0, 1, 2, 3, 4, 5].map((i) => `https://u${i}.example.com`);
const POLICY = { on_http_request: [{ actions: [{ type: 'add-headers', config: { headers: { x: 'y' } } }] }] };

/** Live endpoints: `managed[i]` is key k{i}'s URL index, `unmanaged[j]` endpoint n{j}'s; all distinct. */
const worldArb = fc.uniqueArray(fc.nat(URLS.length - 1), { minLength: 2, maxLength: 5 }).chain((live) =>
  fc.record({
    live: fc.constant(live),
    managedCount: fc.integer({ min: 1, max: live.length }),
    // Per live endpoint: its entry's URL index, or null (no entry: deleted, or left alone).
    wanted: fc.array(fc.option(fc.nat(URLS.length - 1), { nil: null }), {
      minLength: live.length,
      maxLength: live.length,
    }),
    // New entries (keys c0, c1): the URL index each is created at.
    created: fc.array(fc.nat(URLS.length - 1), { maxLength: 2 }),
    priorities: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 8, maxLength: 8 }),
  }),
);
type World = typeof worldArb extends fc.Arbitrary<infer T> ? T : never;

function liveEndpoint(id: string, url: string, key: string | undefined): LiveObject {
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

function setUp(w: World): { live: LiveState; entries: DesiredCloudEndpoint[] } | undefined {
  const objects = w.live.map((u, i) =>
    liveEndpoint(`ep_${i}`, URLS[u]!, i < w.managedCount ? `k${i}` : undefined),
  );
  const entries: DesiredCloudEndpoint[] = [];
  w.live.forEach((_, i) => {
    const u = w.wanted[i];
    if (u === null || u === undefined) return;
    const managed = i < w.managedCount;
    entries.push({
      kind: 'cloud_endpoint',
      key: managed ? `k${i}` : `n${i}`,
      ...(managed ? {} : { id: `ep_${i}` }),
      description: '',
      protect: false,
      loc: { file: '/w/accord.yaml', line: 1 + i, col: 3 },
      url: URLS[u]!,
      pooling_enabled: false,
      traffic_policy: POLICY,
    } as unknown as DesiredCloudEndpoint);
  });
  w.created.forEach((u, j) => {
    entries.push({
      kind: 'cloud_endpoint',
      key: `c${j}`,
      description: '',
      protect: false,
      loc: { file: '/w/accord.yaml', line: 20 + j, col: 3 },
      url: URLS[u]!,
      pooling_enabled: false,
      traffic_policy: POLICY,
    } as unknown as DesiredCloudEndpoint);
  });
  // The files allow one entry per URL (a config error otherwise).
  if (new Set(entries.map((e) => e.url)).size < entries.length) return undefined;
  return { live: { ...liveState({ cloud_endpoint: objects }), endpoints: objects }, entries };
}

/** The plan's changes in an order its depends_on allows, the ready change of least priority first. */
function schedule(p: Plan, priorities: readonly number[]) {
  const left = [...p.changes];
  const done = new Set<string>();
  const order = [];
  while (left.length > 0) {
    const ready = left
      .map((c, i) => ({ c, i }))
      .filter(({ c }) => c.depends_on.every((a) => done.has(a) || !p.changes.some((o) => o.address === a)));
    expect(ready.length).toBeGreaterThan(0);
    const pick = ready.reduce((a, b) =>
      (priorities[p.changes.indexOf(b.c) % priorities.length] ?? 0) <
      (priorities[p.changes.indexOf(a.c) % priorities.length] ?? 0)
        ? b
        : a,
    );
    order.push(pick.c);
    done.add(pick.c.address);
    left.splice(pick.i, 1);
  }
  return order;
}

/** Runs the requests in `order` on a model of the account's cloud endpoints: one per URL, always. */
function runOn(live: LiveState, order: Plan['changes']): Map<string, string> {
  const urls = new Map((live.endpoints as LiveObject[]).map((e) => [String(e['id']), String(e['url'])]));
  for (const c of order) {
    for (const r of c.requests) {
      const id = decodeURIComponent(r.path.split('/')[2] ?? '');
      if (r.method === 'DELETE') urls.delete(id);
      else if (r.method === 'POST') urls.set(`new:${c.address}`, String(r.body?.['url']));
      else if (r.body?.['url'] !== undefined) urls.set(id, String(r.body['url']));
      const held = [...urls.values()];
      expect(new Set(held).size, `after ${r.method} ${r.path}: ${held.join(' ')}`).toBe(held.length);
    }
  }
  return urls;
}

describe('cloud endpoints moving between URLs', () => {
  it('keep one endpoint per URL at every step of any allowed order, or are refused saying why', () => {
    let made = 0;
    let cycles = 0;
    let waitingCreates = 0;
    fc.assert(
      fc.property(worldArb, (w) => {
        const world = setUp(w);
        if (!world) return;
        let p: Plan;
        try {
          p = plan(desiredState({ cloud_endpoints: world.entries }), world.live, NOW, OPTIONS);
        } catch (err) {
          if (!(err instanceof PlanError)) throw err;
          for (const problem of err.problems) {
            expect(['slot_held', 'slot_cycle']).toContain(problem.code);
            if (problem.code === 'slot_held') {
              // Held by an endpoint no change moves: an endpoint accord does not manage that no entry
              // adopts to another URL (an adopted one moving elsewhere is waited for, not refused).
              expect(world.entries.find((e) => e.id === problem.id)).toBeUndefined();
            }
            if (problem.code !== 'slot_cycle') continue;
            cycles++;
            // Each move takes the URL the next one's object holds today, round to the first.
            const objectOf = (address: string) => {
              const key = address.slice('cloud_endpoints.'.length);
              return world.entries.find((e) => e.key === key)?.id ?? `ep_${key.slice(1)}`;
            };
            problem.cycle.forEach((step, i) => {
              const next = problem.cycle[(i + 1) % problem.cycle.length]!;
              const entry = world.entries.find((e) => `cloud_endpoints.${e.key}` === step.address)!;
              expect(step.slot).toBe(`URL ${entry.url} of a cloud endpoint`);
              const holder = (world.live.endpoints as LiveObject[]).find((o) => o['url'] === entry.url);
              expect(holder?.['id']).toBe(objectOf(next.address));
            });
          }
          return;
        }
        made++;
        if (p.changes.some((c) => c.action === 'create' && c.depends_on.length > 0)) waitingCreates++;
        const urls = runOn(world.live, schedule(p, w.priorities));
        for (const e of world.entries) expect([...urls.values()]).toContain(e.url);
      }),
      { numRuns: 600 },
    );
    expect(made).toBeGreaterThan(50);
    expect(cycles).toBeGreaterThan(0);
    expect(waitingCreates).toBeGreaterThan(0);
  });
});
