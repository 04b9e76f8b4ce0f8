// Properties of the executor over random plans, failures and parallelism (fast-check): requests in
// order, a change starts only after every change it depends on is done, failures skip exactly what
// waits on them, a failed create never deletes what it replaces, and never more than `parallelism`
// requests in flight.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/executor.js';
import type { PlanChange } from '../../src/plan/types.js';
import { change, del, FakeClient, planOf, post } from './fake.js';

type Shape = 'create' | 'delete' | 'replace' | 'patch';

const arbitraryPlan = fc
  .array(
    fc.record({
      shape: fc.constantFrom<Shape>('create', 'delete', 'replace', 'patch'),
      deps: fc.array(fc.nat(20), { maxLength: 3 }),
      // 0..9: below 2 (a fifth of the time) the request fails.
      failPost: fc.nat(9),
      failOther: fc.nat(9),
    }),
    { minLength: 1, maxLength: 14 },
  )
  .chain((specs) =>
    fc.record({
      specs: fc.constant(specs),
      parallelism: fc.integer({ min: 1, max: 6 }),
      ticks: fc.array(fc.nat(2), { minLength: 1, maxLength: 8 }),
    }),
  );

function build(specs: { shape: Shape; deps: number[] }[]): PlanChange[] {
  const changes: PlanChange[] = [];
  specs.forEach((s, i) => {
    const key = `k${i}`;
    const requests =
      s.shape === 'create'
        ? [post(key)]
        : s.shape === 'delete'
          ? [del(`ipx_old_${key}`)]
          : s.shape === 'replace'
            ? [post(key), del(`ipx_old_${key}`)]
            : [{ method: 'PATCH' as const, path: `/ip_restrictions/ipx_old_${key}`, body: {} }];
    // Dependencies only on earlier changes: acyclic.
    const depends_on = [...new Set(s.deps.filter((d) => d < i).map((d) => changes[d]!.address))];
    changes.push(
      change(key, s.shape, requests, {
        ...(s.shape === 'replace' ? { replace_order: 'create_before_delete' as const } : {}),
        depends_on,
      }),
    );
  });
  return changes;
}

describe('applyPlan (properties)', () => {
  it('keeps order, dependencies, failure propagation and the parallelism bound', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryPlan, async ({ specs, parallelism, ticks }) => {
        const changes = build(specs);
        const failing = new Set<string>();
        specs.forEach((s, i) => {
          if (s.failPost < 2) failing.add(`POST k${i}`);
          if (s.failOther < 2) failing.add(`OTHER k${i}`);
        });
        let t = 0;
        const client = new FakeClient(
          (method, path, body) => {
            const key =
              method === 'POST'
                ? JSON.parse(String((body as Record<string, unknown>)['metadata'])).accord.key
                : path.replace(/.*ipx_old_/, '');
            return failing.has(`${method === 'POST' ? 'POST' : 'OTHER'} ${key}`) ? 'error' : 'ok';
          },
          () => {
            const n = ticks[t++ % ticks.length]!;
            return n === 0
              ? Promise.resolve()
              : new Promise((r) => (n === 1 ? setImmediate(r) : setTimeout(r, 0)));
          },
        );
        const result = await applyPlan(planOf(changes), client, { parallelism });
        expect(client.maxInFlight).toBeLessThanOrEqual(parallelism);
        const line = (r: PlanChange['requests'][number], c: PlanChange) =>
          r.method === 'POST' ? `POST ${r.path} ${c.key}` : `${r.method} ${r.path}`;
        const at = (s: string) => client.log.indexOf(s);
        const byAddress = new Map(result.changes.map((r) => [r.address, r]));
        for (const c of changes) {
          const r = byAddress.get(c.address)!;
          expect(['done', 'failed', 'skipped']).toContain(r.status);
          const sent = c.requests.map((q) => at(line(q, c)));
          // In order: once one is missing, the rest are too.
          const firstMissing = sent.indexOf(-1);
          if (firstMissing >= 0) expect(sent.slice(firstMissing).every((i) => i === -1)).toBe(true);
          for (let i = 1; i < sent.length; i++)
            if (sent[i]! >= 0) expect(sent[i]!).toBeGreaterThan(sent[i - 1]!);
          if (r.status === 'done') expect(sent.every((i) => i >= 0)).toBe(true);
          if (r.status === 'skipped') expect(sent.every((i) => i === -1)).toBe(true);
          if (sent[0]! >= 0) {
            // It started only after every change it depends on was done, last request included.
            for (const d of c.depends_on) {
              const dep = changes.find((x) => x.address === d)!;
              expect(byAddress.get(d)!.status).toBe('done');
              expect(at(line(dep.requests.at(-1)!, dep))).toBeLessThan(sent[0]!);
            }
          }
          // Skipped only because of a dependency; done whenever nothing of its own or upstream failed.
          const deps = c.depends_on.map((d) => byAddress.get(d)!.status);
          if (r.status === 'skipped')
            expect(deps.some((st) => st === 'failed' || st === 'skipped')).toBe(true);
          const ownFailure = c.requests.some((q) =>
            failing.has(`${q.method === 'POST' ? 'POST' : 'OTHER'} ${c.key}`),
          );
          if (!ownFailure && deps.every((st) => st === 'done')) expect(r.status).toBe('done');
          // A replace never deletes after a failed POST.
          if (c.requests[0]!.method === 'POST' && c.requests.length === 2 && failing.has(`POST ${c.key}`)) {
            expect(sent[1]).toBe(-1);
          }
        }
        const bad = result.summary.failed + result.summary.skipped;
        expect(result.status).toBe(bad > 0 ? 'failed' : 'complete');
      }),
      { numRuns: 150 },
    );
  });
});
