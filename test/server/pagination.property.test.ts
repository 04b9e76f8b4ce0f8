import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { Store } from '../../src/server/store.js';
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
              // A page rendered ahead of its request is never served once the store has changed.
              for (const e of page.body.tcp_edges) expect(deleted.has(e.id)).toBe(false);
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

describe('rendering the next page ahead', () => {
  it('renders each next page while the client reads the one before, and reads the store once per page', async () => {
    const api = await startApi({ seed: undefined });
    try {
      for (let i = 0; i < 5; i++) await api.call('POST', '/edges/tcp', {});
      const list = vi.spyOn(Store.prototype, 'list');
      const first = await api.call('GET', '/edges/tcp?limit=2');
      // The second page is rendered after the first answer went out, before anyone asks for it.
      await vi.waitFor(() => expect(list).toHaveBeenCalledTimes(2), { timeout: 5000 });
      const second = await api.call('GET', first.body.next_page_uri);
      await vi.waitFor(() => expect(list).toHaveBeenCalledTimes(3), { timeout: 5000 });
      const third = await api.call('GET', second.body.next_page_uri);
      const ids = [first, second, third].flatMap((p) => p.body.tcp_edges.map((e: { id: string }) => e.id));
      expect(new Set(ids).size).toBe(5);
      expect(third.body.next_page_uri).toBeNull();
      // The last page has no next page: nothing more is rendered.
      expect(list).toHaveBeenCalledTimes(3);
      // A page again, after a write: read afresh, and its next page rendered ahead.
      await api.call('POST', '/edges/tcp', {});
      const again = await api.call('GET', '/edges/tcp?limit=2');
      await vi.waitFor(() => expect(list).toHaveBeenCalledTimes(5), { timeout: 5000 });
      // A write between two pages drops the page rendered ahead: the next page is read afresh.
      const onFirst = new Set(again.body.tcp_edges.map((e: { id: string }) => e.id));
      for (const id of ids) if (!onFirst.has(id)) await api.call('DELETE', `/edges/tcp/${id}`);
      const after = await api.call('GET', again.body.next_page_uri);
      expect(list).toHaveBeenCalledTimes(6);
      expect(after.body.tcp_edges).toEqual([]);
      list.mockRestore();
    } finally {
      await api.server.close();
    }
  });
});
