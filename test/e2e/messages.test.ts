// What apply says: about one thing in the singular ("1 change", "1 SSH host certificate"), and about
// certificates left in --cert-dir for keys the file no longer has.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { accord, accordFile } from '../apply/helpers.js';
import { useSeededService } from '../support/server.js';

const KEY = 'test-key-apply-counts-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'accord-counts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('apply counts in the singular for one', () => {
  const server = useSeededService(KEY);

  it('Applying plan.json: 1 change; Wrote 1 SSH host certificate', async () => {
    const file = join(dir, 'one.yaml');
    writeFileSync(file, accordFile('counts', ['solo']));
    const planFile = join(dir, 'plan.json');
    const plan = await accord(server.url, KEY, ['plan', '-f', file, '--out', planFile], { cwd: dir });
    expect(plan.code, plan.err).toBe(0);
    const r = await accord(
      server.url,
      KEY,
      ['apply', planFile, '-f', file, '--cert-dir', join(dir, 'certs')],
      {
        cwd: dir,
      },
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`Applying ${planFile}: 1 change to ${server.url}\n`);
    expect(r.out).toContain(`Wrote 1 SSH host certificate to ${join(dir, 'certs')}.\n`);
  });
});

describe('--cert-dir and keys that left the file', () => {
  const server = useSeededService(KEY);

  it('names each certificate file of a key no longer managed, and deletes nothing', async () => {
    const certs = join(dir, 'stale-certs');
    const file = join(dir, 'stale.yaml');
    writeFileSync(file, accordFile('stale', ['jump', 'web']));
    const first = await accord(server.url, KEY, ['apply', '-f', file, '--auto-approve', '--cert-dir', certs]);
    expect(first.code, first.err).toBe(0);
    expect(first.err).not.toContain('no longer managed');
    writeFileSync(join(certs, 'notes.txt'), 'mine');

    writeFileSync(file, accordFile('stale', ['web']));
    const r = await accord(server.url, KEY, ['apply', '-f', file, '--auto-approve', '--cert-dir', certs]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`Wrote 1 SSH host certificate to ${certs}.`);
    expect(r.err).toContain(`Note: ${join(certs, 'jump-cert.pub')} is no longer managed; remove it.\n`);
    expect(r.err).not.toMatch(/web-cert\.pub|notes\.txt/);
    expect(existsSync(join(certs, 'jump-cert.pub'))).toBe(true);
    expect(readFileSync(join(certs, 'notes.txt'), 'utf8')).toBe('mine');
  });
});
