// SQLite storage of the local service. Objects are kept as their response JSON with relative `uri`s
// (made absolute per request), so a GET is one indexed read and no re-serialization.
// better-sqlite3 is an optional dependency (a compiled module that only `accord serve` needs): it is
// required when a store opens, so that importing the service, or anything else, works without it.
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';

const require = createRequire(import.meta.url);

export interface StoredRow {
  data: string;
  secret: string | null;
}

/** The tables and their indexes, made unless the file has them. */
const TABLES = `
  CREATE TABLE IF NOT EXISTS objects (
    id TEXT PRIMARY KEY NOT NULL, kind TEXT NOT NULL, parent TEXT NOT NULL, data TEXT NOT NULL, secret TEXT
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS objects_by_kind ON objects (kind, parent, id);
  CREATE INDEX IF NOT EXISTS objects_by_kind_id ON objects (kind, id);
  -- A delete takes its object's children (a policy's rules) and their modules with it: without this
  -- index each delete read the whole table, twice.
  CREATE INDEX IF NOT EXISTS objects_by_parent ON objects (parent);
  CREATE TABLE IF NOT EXISTS modules (
    key TEXT PRIMARY KEY NOT NULL, owner TEXT NOT NULL, data TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS modules_by_owner ON modules (owner);
`;

/** Every statement the store runs, prepared once. */
function prepareStatements(db: Database.Database) {
  return {
    get: db.prepare<[string, string], StoredRow>(
      'SELECT data, secret FROM objects WHERE id = ? AND kind = ?',
    ),
    parentOf: db.prepare<[string, string], { parent: string }>(
      'SELECT parent FROM objects WHERE id = ? AND kind = ?',
    ),
    list: db
      .prepare<[string, string, string, number], string>(
        'SELECT data FROM objects WHERE kind = ? AND parent = ? AND id < ? ORDER BY id DESC LIMIT ?',
      )
      .pluck(),
    listAny: db
      .prepare<[string, string, number], string>(
        'SELECT data FROM objects WHERE kind = ? AND id < ? ORDER BY id DESC LIMIT ?',
      )
      .pluck(),
    all: db.prepare<[string], string>('SELECT data FROM objects WHERE kind = ?').pluck(),
    children: db
      .prepare<[string, string], string>('SELECT data FROM objects WHERE kind = ? AND parent = ?')
      .pluck(),
    insert: db.prepare<[string, string, string, string, string | null]>(
      'INSERT INTO objects (id, kind, parent, data, secret) VALUES (?, ?, ?, ?, ?)',
    ),
    update: db.prepare<[string, string, string]>('UPDATE objects SET data = ? WHERE id = ? AND kind = ?'),
    delete: db.prepare<[string, string]>('DELETE FROM objects WHERE id = ? AND kind = ?'),
    deleteChildModules: db.prepare<[string]>(
      'DELETE FROM modules WHERE owner IN (SELECT id FROM objects WHERE parent = ?)',
    ),
    deleteChildren: db.prepare<[string]>('DELETE FROM objects WHERE parent = ?'),
    moduleGet: db.prepare<[string], string>('SELECT data FROM modules WHERE key = ?').pluck(),
    modulePut: db.prepare<[string, string, string]>(
      'INSERT INTO modules (key, owner, data) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET data = excluded.data',
    ),
    moduleDelete: db.prepare<[string]>('DELETE FROM modules WHERE key = ?'),
    moduleDeleteOwned: db.prepare<[string]>('DELETE FROM modules WHERE owner = ?'),
  };
}

/** A database in `file` (kept, and every commit fsynced), or in memory. */
function openDatabase(file: string | undefined): Database.Database {
  const open = require('better-sqlite3') as typeof Database;
  const db = new open(file ?? ':memory:');
  if (file) {
    // exec, not pragma(): pragma() prepares a statement and drops it (see Store).
    db.exec('PRAGMA journal_mode = WAL');
    // FULL: every commit is fsynced before the response goes out, so nothing acknowledged is lost
    // even to a power cut, not only to kill -9.
    db.exec('PRAGMA synchronous = FULL');
  }
  db.exec(TABLES);
  return db;
}

/**
 * One table for every kind of object, one for edge modules; prepared statements only, each prepared once
 * here and kept as long as the store. No statement is ever dropped while the service runs: better-sqlite3
 * compiled from source against Node.js 24.19 or later's headers aborts the process when the garbage
 * collector frees a statement outside JavaScript (`Assertion failed: (env) != nullptr`).
 */
export class Store {
  private readonly db: Database.Database;
  /** Bumped by every write, so derived values (rendered list pages) know when they are stale. */
  version = 0;
  private readonly stmts: ReturnType<typeof prepareStatements>;

  constructor(file?: string) {
    this.db = openDatabase(file);
    this.stmts = prepareStatements(this.db);
  }

  get(kind: string, id: string): StoredRow | undefined {
    return this.stmts.get.get(id, kind);
  }

  parentOf(kind: string, id: string): string | undefined {
    return this.stmts.parentOf.get(id, kind)?.parent;
  }

  /**
   * Newest first, strictly before `beforeId` (keyset pagination: stable while items are added); under
   * `parent`, or under any parent when it is undefined.
   */
  list(kind: string, parent: string | undefined, beforeId: string | undefined, limit: number): string[] {
    const before = beforeId ?? '\u{10ffff}';
    return parent === undefined
      ? this.stmts.listAny.all(kind, before, limit)
      : this.stmts.list.all(kind, parent, before, limit);
  }

  all(kind: string): string[] {
    return this.stmts.all.all(kind);
  }

  /** Every object of `kind` under `parent`, in no particular order. */
  children(kind: string, parent: string): string[] {
    return this.stmts.children.all(kind, parent);
  }

  insert(kind: string, id: string, parent: string, data: string, secret?: string): void {
    this.stmts.insert.run(id, kind, parent, data, secret ?? null);
    this.version++;
  }

  update(kind: string, id: string, data: string): void {
    this.stmts.update.run(data, id, kind);
    this.version++;
  }

  /** Deletes an object, its children and the modules it owns. */
  delete(kind: string, id: string): boolean {
    return this.db.transaction(() => {
      const deleted = this.stmts.delete.run(id, kind).changes > 0;
      this.version++;
      if (deleted) {
        this.stmts.moduleDeleteOwned.run(id);
        this.stmts.deleteChildModules.run(id);
        this.stmts.deleteChildren.run(id);
      }
      return deleted;
    })();
  }

  moduleGet(key: string): string | undefined {
    return this.stmts.moduleGet.get(key);
  }

  modulePut(key: string, owner: string, data: string): void {
    this.stmts.modulePut.run(key, owner, data);
    this.version++;
  }

  moduleDelete(key: string): boolean {
    this.version++;
    return this.stmts.moduleDelete.run(key).changes > 0;
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  close(): void {
    this.db.close();
  }
}
