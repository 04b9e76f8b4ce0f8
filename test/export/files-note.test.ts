// The line `accord export` ends with says what it wrote beside the YAML from the files themselves, so a
// kind whose descriptor writes files of its own (keys/, not certs/) is counted and placed right.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { filesNote } from '../../src/export/write.js';

const file = (path: string) => ({ path, content: 'x' });

describe('filesNote', () => {
  it.each([
    [[], ''],
    [['certs/root.pem'], ' and 1 file under certs/'],
    [['certs/a.pem', 'certs/b.pem'], ' and 2 files under certs/'],
    [['keys/users.pub', 'certs/root.pem', 'keys/ops.pub'], ' and 3 files under certs/ and keys/'],
    [['root.pem'], ' and 1 file beside it'],
    [['a/b/c.pem'], ' and 1 file under a/b/'],
    [['keys/k.pub', 'root.pem'], ' and 2 files beside it and under keys/'],
  ])('%j: %j', (paths, note) => {
    expect(filesNote(paths.map(file))).toBe(note);
  });

  it('counts every file and names each directory once, whatever the order', () => {
    const path = fc
      .tuple(fc.constantFrom('certs', 'keys', 'x/y'), fc.stringMatching(/^[a-z]{1,8}$/))
      .map(([dir, name]) => `${dir}/${name}`);
    fc.assert(
      fc.property(fc.array(path, { minLength: 1, maxLength: 20 }), (paths) => {
        const note = filesNote(paths.map(file));
        expect(note).toMatch(new RegExp(`^ and ${paths.length} files? under `));
        const dirs = new Set(paths.map((p) => p.slice(0, p.lastIndexOf('/'))));
        for (const d of dirs) expect(note.split(`${d}/`)).toHaveLength(2);
        expect(filesNote([...paths].reverse().map(file))).toBe(note);
      }),
    );
  });
});
