// The store's SQLite connection: a --data file is in WAL mode with every commit fsynced, and the store
// never drops a statement while it is used. better-sqlite3 compiled from source against the headers of
// Node.js 24.19 to 24.x aborts the process when the garbage collector frees a statement outside
// JavaScript; `.ci/run` runs on 22 and 26, so a dropped statement shows here, not on a user's Node.js 24.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Store } from '../../src/server/store.js';

/** Every store operation once, under a transaction as the service makes them. */
function use(store: Store, n: number): void {
  store.transaction(() => {
    store.insert('ip_restrictions', `ipx_${n}`, '', `{"id":"ipx_${n}"}`, `secret${n}`);
    store.update('ip_restrictions', `ipx_${n}`, `{"id":"ipx_${n}","description":"x"}`);
    store.modulePut(`edgtcp_${n}/ip_restriction`, `edgtcp_${n}`, `{"ip_policies":["ipx_${n}"]}`);
  });
  store.get('ip_restrictions', `ipx_${n}`);
  store.parentOf('ip_restrictions', `ipx_${n}`);
  store.list('ip_restrictions', '', 'ipx_~', 10);
  store.all('ip_restrictions');
  store.list('ip_restrictions', undefined, 'ipx_~', 10);
  store.children('ip_restrictions', '');
  store.moduleGet(`edgtcp_${n}/ip_restriction`);
  store.moduleDelete(`edgtcp_${n}/ip_restriction`);
  store.delete('ip_restrictions', `ipx_${n}`);
}

describe('the store', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  for (const [what, file] of [
    ['in memory', undefined],
    ['in a --data file', () => join(mkdtempSync(join(tmpdir(), 'accord-store-')), 'accord.db')],
  ] as const) {
    it(`${what}: prepares its statements once and drops none, however much it is used`, () => {
      const prepare = vi.spyOn(Database.prototype, 'prepare');
      // pragma() prepares a statement of its own (not through prepare()) and drops it.
      const pragma = vi.spyOn(Database.prototype, 'pragma');
      const store = new Store(file?.());
      use(store, 0);
      const prepared = prepare.mock.calls.length;
      for (let n = 1; n <= 50; n++) use(store, n);
      expect(prepare.mock.calls.length).toBe(prepared);
      expect(pragma).not.toHaveBeenCalled();
      store.close();
    });
  }

  it('keeps a --data file in WAL mode and fsyncs every commit', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'accord-store-')), 'accord.db');
    const store = new Store(file);
    const db = (store as unknown as { db: Database.Database }).db;
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    store.close();
    const other = new Database(file, { readonly: true });
    expect(other.pragma('journal_mode', { simple: true })).toBe('wal');
    other.close();
  });

  it('finds what a delete takes with it by index, not by reading every object', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'accord-store-')), 'accord.db');
    new Store(file).close();
    const db = new Database(file, { readonly: true });
    // The statements delete() runs after the object itself: its children, and their modules.
    for (const sql of [
      'DELETE FROM objects WHERE parent = ?',
      'DELETE FROM modules WHERE owner IN (SELECT id FROM objects WHERE parent = ?)',
    ]) {
      const plan = db
        .prepare<[string], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
        .all('ipp_x')
        .map((r) => r.detail);
      expect(plan.join(' | '), sql).not.toMatch(/\bSCAN objects\b/);
      expect(plan.join(' | '), sql).toMatch(/SEARCH objects USING (COVERING )?INDEX objects_by_parent/);
    }
    db.close();
  });
});
