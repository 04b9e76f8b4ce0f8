// --target and --exclude end to end: accord plan and accord apply in-process against the local service
// over real HTTP.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/types.js';
import { accord, accordFile, byKey, listAll } from '../apply/helpers.js';
import { useSeededService } from '../support/server.js';

const KEY = 'test-key-apply-target-0123456789';
const WARNING =
  /^Warning: planned only the part of the file chosen by .+ \(\d+ changes? left out\); the account may still differ from the file: accord plan without them \(or accord drift\) shows the rest\.$/m;

describe('accord plan and apply with --target and --exclude', () => {
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-target-'));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  // In the files' directory, as CI runs: a saved plan names its files relative to it.
  const run = (args: string[]) => accord(server.url, KEY, args, { cwd: dir });
  const keys = async (owner: string) =>
    [
      ...byKey(
        await listAll(server.url, KEY, '/ssh_host_certificates', 'ssh_host_certificates'),
        owner,
      ).keys(),
    ].sort();

  it('apply --target of one of three pending changes makes exactly that one; the next plan shows the other two', async () => {
    const f = file('three.yaml', accordFile('three', ['a', 'b', 'c']));
    const applied = await run(['apply', '-f', f, '--target', 'ssh_host_certificates.b', '--auto-approve']);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out).toContain(
      'Plan: 1 to create, 0 to patch, 0 to put, 0 to replace, 0 to delete, 0 to adopt. 0 unchanged, 2 unmanaged left alone.\n2 changes left out by --target/--exclude.\n',
    );
    expect(applied.out).toMatch(/^\+ ssh_host_certificates\.b \(shcrt_\w+\) \d+ ms$/m);
    expect(applied.out).toMatch(/^Apply complete: 1 created, 0 patched/m);
    expect(applied.err.match(new RegExp(WARNING, 'gm'))).toHaveLength(1);
    expect(applied.err).toContain('chosen by --target ssh_host_certificates.b (2 changes left out)');
    expect(await keys('three')).toEqual(['b']);

    const next = await run(['plan', '-f', f, '--detailed-exitcode', '--json']);
    expect(next.code).toBe(2);
    const full = JSON.parse(next.out) as Plan;
    expect(full.selection).toBeUndefined();
    expect(full.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'create ssh_host_certificates.a',
      'no-op ssh_host_certificates.b',
      'create ssh_host_certificates.c',
    ]);
    expect(next.err).not.toMatch(WARNING);
  });

  it('--detailed-exitcode counts only the part kept, and the outputs say what was left out', async () => {
    const f = file('partial.yaml', accordFile('partial', ['done', 'todo-1', 'todo-2']));
    expect(
      (await run(['apply', '-f', f, '--target', 'ssh_host_certificates.done', '--auto-approve'])).code,
    ).toBe(0);

    const unchanged = await run([
      'plan',
      '-f',
      f,
      '--target',
      'ssh_host_certificates.done',
      '--detailed-exitcode',
    ]);
    expect(unchanged.code, unchanged.err).toBe(0);
    expect(unchanged.out).toContain('No changes in the part of the file chosen by --target/--exclude.');
    expect(unchanged.out.trimEnd().split('\n').at(-1)).toBe('2 changes left out by --target/--exclude.');
    expect(unchanged.err).toMatch(WARNING);

    const excluded = await run([
      'plan',
      '-f',
      f,
      '--exclude',
      'ssh_host_certificates.todo-*',
      '--detailed-exitcode',
    ]);
    expect(excluded.code).toBe(0);
    const pending = await run([
      'plan',
      '-f',
      f,
      '--target',
      'ssh_host_certificates.todo-*',
      '--detailed-exitcode',
    ]);
    expect(pending.code).toBe(2);
    expect(pending.out.trimEnd().split('\n').at(-1)).toBe('0 changes left out by --target/--exclude.');

    const md = await run(['plan', '-f', f, '--markdown', '--exclude', 'ssh_host_certificates.todo-2']);
    expect(md.code).toBe(0);
    expect(md.out).toContain('Only part of the file was planned (`--exclude ssh_host_certificates.todo-2`)');
    expect(md.out.trimEnd().split('\n').at(-1)).toBe('1 change left out by --target/--exclude.');
    expect(md.out).toContain('`ssh_host_certificates.todo-1`');
    expect(md.out).not.toContain('`ssh_host_certificates.todo-2`');
  });

  it('a saved targeted plan holds and applies only its part; a change to what it left out does not make it stale', async () => {
    const f = file('saved.yaml', accordFile('saved-part', ['keep', 'gone']));
    expect((await run(['apply', '-f', f, '--auto-approve'])).code).toBe(0);
    // The file now drops `gone`, renames nothing, and adds `new-1` and `new-2`.
    const edited = file('saved-2.yaml', accordFile('saved-part', ['keep', 'new-1', 'new-2']));
    const planFile = join(dir, 'part.json');
    const planned = await run([
      'plan',
      '-f',
      edited,
      '--exclude',
      'ssh_host_certificates.gone',
      '--out',
      planFile,
    ]);
    expect(planned.code, planned.err).toBe(0);
    const saved = JSON.parse(readFileSync(planFile, 'utf8')) as Plan;
    expect(saved.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'no-op ssh_host_certificates.keep',
      'create ssh_host_certificates.new-1',
      'create ssh_host_certificates.new-2',
    ]);
    expect(saved.selection).toEqual({
      target: [],
      exclude: ['ssh_host_certificates.gone'],
      left_out: ['ssh_host_certificates.gone'],
    });

    // Someone edits `gone`, which the plan leaves out: the plan is still current for what it does.
    const gone = byKey(
      await listAll(server.url, KEY, '/ssh_host_certificates', 'ssh_host_certificates'),
      'saved-part',
    ).get('gone')![0]!;
    const res = await fetch(`${server.url}/ssh_host_certificates/${String(gone['id'])}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${KEY}`, 'service-version': '2', 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'touched by hand' }),
    });
    expect(res.status).toBe(200);

    const applied = await run(['apply', planFile, '-f', edited]);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.err).toMatch(WARNING);
    expect(applied.err).toContain('chosen by --exclude ssh_host_certificates.gone (1 change left out)');
    expect(await keys('saved-part')).toEqual(['gone', 'keep', 'new-1', 'new-2']);

    const narrowed = await run(['apply', planFile, '-f', edited, '--target', 'ssh_host_certificates.keep']);
    expect(narrowed.code).toBe(1);
    expect(narrowed.err).toContain(
      'a saved plan is applied exactly as it was reviewed, so --target/--exclude cannot narrow it',
    );
  });

  it('a pattern that matches nothing is an error that names it and changes nothing', async () => {
    const f = file('typo.yaml', accordFile('typo', ['web-1', 'web-2']));
    const r = await run(['apply', '-f', f, '--target', 'ssh_host_certificates.web1', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^Error: --target ssh_host_certificates\.web1 \(did you mean ssh_host_certificates\.web-1\?\) matches no change of the plan/,
    );
    expect(r.out).toBe('');
    expect(await keys('typo')).toEqual([]);

    const empty = await run(['plan', '-f', f, '--exclude', '']);
    expect(empty.code).toBe(1);
    expect(empty.err).toContain('--exclude was given an empty pattern');
  });
});
