import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startApi } from './helpers.js';

// While a client pages through a list, others create and delete objects. Whatever they do, the pages
// are strictly newest-first, never repeat an item, and hold every item that existed when paging began
// and was not deleted before its page was read.
describe('list paging under concurrent changes', () => {
  it('never loses or repeats an item', async () => {
    const api = await startApi({ seed: undefined });
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 20 }),
          fc.integer({ min: 1, max: 7 }),
          fc.array(fc.record({ creates: fc.nat(3), deletes: fc.nat(2) }), { maxLength: 12 }),
          async (initial, limit, between) => {
            for (const e of (await api.call('GET', '/edges/tcp')).body.tcp_edges) {
              await api.call('DELETE', `/edges/tcp/${e.id}`);
            }
            const live = new Set<string>();
            for (let i = 0; i < initial; i++) live.add((await api.call('POST', '/edges/tcp', {})).body.id);
            const atStart = new Set(live);
            const deleted = new Set<string>();
            const seen: string[] = [];
            let next: string | null = `/edges/tcp?limit=${limit}`;
            let step = 0;
            while (next) {
              const page = await api.call('GET', next);
              expect(page.body.tcp_edges.length).toBeLessThanOrEqual(limit);
              seen.push(...page.body.tcp_edges.map((e: { id: string }) => e.id));
              next = page.body.next_page_uri;
              const change = between[step++];
              if (!change) continue;
              for (let i = 0; i < change.creates; i++)
                live.add((await api.call('POST', '/edges/tcp', {})).body.id);
              for (const id of [...live].slice(0, change.deletes)) {
                await api.call('DELETE', `/edges/tcp/${id}`);
                live.delete(id);
                deleted.add(id);
              }
            }
            expect(new Set(seen).size).toBe(seen.length);
            expect([...seen].sort().reverse()).toEqual(seen);
            for (const id of atStart) if (!deleted.has(id)) expect(seen).toContain(id);
          },
        ),
        { numRuns: 15 },
      );
    } finally {
      await api.server.close();
    }
  });
});
