// The built CLI as a process (npm test builds dist/ first): exit codes, colour rules, no key in output.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { savedText, useColor } from '../../src/cli/commands/plan.js';
import type { Io } from '../../src/cli/io.js';
import type { Plan } from '../../src/plan/types.js';
import type { RunningServer } from '../../src/server/index.js';
import { serveSeeded } from '../support/server.js';

const run = promisify(execFile);
const KEY = 'process-test-key-abcdef0123456789';
const CLI = resolve('bin/accord.js');
const EXAMPLE = resolve('examples/accord.yaml');

async function accord(env: Record<string, string>, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: { PATH: process.env['PATH'] ?? '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('accord plan (process)', () => {
  let server: RunningServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await serveSeeded(KEY);
    env = { ACCORD_API_KEY: KEY, ACCORD_API_URL: server.url };
  });
  afterAll(async () => {
    await server?.close();
  });

  it('exits 2 with --detailed-exitcode when there are changes, 0 without', async () => {
    const detailed = await accord(env, 'plan', '-f', EXAMPLE, '--detailed-exitcode');
    expect(detailed.code, detailed.stderr).toBe(2);
    expect(detailed.stdout).toMatch(/Plan: 13 to create, .*\n$/);
    expect(detailed.stdout + detailed.stderr).not.toContain(KEY);
    const plain = await accord(env, 'plan', '-f', EXAMPLE);
    expect(plain.code).toBe(0);
  });

  it('--out creates missing directories, and a path it cannot write is an error without a stack', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'accord-plan-out-'));
    const nested = join(dir, 'new', 'dir', 'plan.json');
    const saved = await accord(env, 'plan', '-f', EXAMPLE, '--out', nested);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stderr).toBe(
      `Saved the plan to ${nested}; review it, then apply exactly it with accord apply ${nested} -f ${EXAMPLE}.\n`,
    );
    expect(JSON.parse(readFileSync(nested, 'utf8')).format_version).toBe(5);
    const onDir = await accord(env, 'plan', '-f', EXAMPLE, '--out', dir);
    expect(onDir.code).toBe(1);
    // Said before anything is planned: no plan is printed that could not be saved.
    expect(onDir.stdout).toBe('');
    expect(onDir.stderr).toBe(
      `Error: cannot save the plan to --out ${dir}: it is a directory; nothing was planned. ` +
        'Give a file path in a writable directory.\n',
    );
  });

  it('colours only when forced, never with NO_COLOR or when piped', async () => {
    const piped = await accord(env, 'plan', '-f', EXAMPLE);
    expect(piped.stdout).not.toContain('\u001b[');
    const forced = await accord({ ...env, FORCE_COLOR: '1' }, 'plan', '-f', EXAMPLE);
    expect(forced.stdout).toContain('\u001b[32m');
  });
});

describe('useColor', () => {
  const io = (env: Record<string, string>, isTty: boolean) => ({ env, isTty }) as unknown as Io;
  it.each([
    [{}, true, true],
    [{}, false, false],
    [{ NO_COLOR: '1' }, true, false],
    [{ NO_COLOR: '' }, true, true],
    [{ FORCE_COLOR: '1' }, false, true],
    [{ FORCE_COLOR: '0' }, true, false],
    [{ FORCE_COLOR: '1', NO_COLOR: '1' }, false, true],
  ])('%j on a TTY=%s -> %s', (env, tty, want) => {
    expect(useColor(io(env, tty))).toBe(want);
  });
});

describe('savedText', () => {
  const plan = (actions: string[], safe = true) =>
    ({ safe, changes: actions.map((action) => ({ action })) }) as unknown as Plan;
  it.each([
    [
      plan(['create']),
      'p.json',
      undefined,
      'Saved the plan to p.json; review it, then apply exactly it with accord apply p.json.\n',
    ],
    [
      plan(['no-op', 'delete']),
      'my plan.json',
      ['accord/shared', "it's.yaml"],
      "Saved the plan to my plan.json; review it, then apply exactly it with accord apply 'my plan.json' -f accord/shared -f 'it'\\''s.yaml'.\n",
    ],
    [plan(['no-op']), 'p.json', ['a.yaml'], 'Saved the plan to p.json; it has no changes to apply.\n'],
    [
      plan(['delete'], false),
      'p.json',
      ['a.yaml'],
      'Saved the plan to p.json; it is refused as it stands (above), and accord apply p.json -f a.yaml refuses it too.\n',
    ],
  ])('%#: %s', (p, out, files, text) => {
    expect(savedText(p, out, files)).toBe(text);
  });
});
