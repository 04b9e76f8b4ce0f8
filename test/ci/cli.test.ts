// The CLI's CI-facing pieces in-process: the GitHub step summary written by plan, and shell completion.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIo, runMain } from '../support/cli.js';
import { EXAMPLE, ROOT, useSeededService } from '../support/server.js';

const KEY = 'test-key-ci-cli-0123456789';
const capture = (env: Record<string, string> = {}) => captureIo(env, { cwd: ROOT });

describe('GITHUB_STEP_SUMMARY', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accord-summary-'));
  const server = useSeededService(KEY);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const plan = (env: Record<string, string>, ...args: string[]) =>
    runMain(
      ['plan', '-f', EXAMPLE, ...args],
      { ACCORD_API_URL: server.url, ACCORD_API_KEY: KEY, ...env },
      { cwd: ROOT },
    );

  it('plan appends its markdown to the file when the variable is set, whatever it prints', async () => {
    const file = join(dir, 'summary.md');
    writeFileSync(file, '## earlier step\n');
    const text = await plan({ GITHUB_STEP_SUMMARY: file });
    expect(text.code, text.err).toBe(0);
    const markdown = await plan({}, '--markdown');
    const after = readFileSync(file, 'utf8');
    expect(after.startsWith('## earlier step\n### accord plan')).toBe(true);
    expect(after).toContain(markdown.out.trim());
    expect(text.out).toMatch(/^accord will make these changes/);

    await plan({ GITHUB_STEP_SUMMARY: file }, '--json');
    expect(readFileSync(file, 'utf8').split('### accord plan')).toHaveLength(3);
  });

  it('only warns when the file cannot be written: the plan and its exit code stand', async () => {
    const bad = join(dir, 'no-such-dir', 'summary.md');
    const failed = await plan({ GITHUB_STEP_SUMMARY: bad }, '--detailed-exitcode');
    expect(failed.code).toBe(2);
    expect(failed.err).toContain(`Warning: could not append to GITHUB_STEP_SUMMARY file ${bad} (ENOENT)`);
    expect(failed.out).toMatch(/^accord will make these changes/);
  });
});

describe('accord completion', () => {
  it('prints a bash completion script that asks accord for its completions', async () => {
    const io = capture();
    expect(await main(['completion'], io)).toBe(0);
    expect(io.out).toContain('###-begin-accord-completions-###');
    expect(io.out).toContain('accord --get-yargs-completions');
    expect(io.out).toContain('complete -o bashdefault -o default -F _accord_yargs_completions accord');
  });

  it('completes command names and a command’s options', async () => {
    const commands = capture();
    expect(await main(['--get-yargs-completions', 'accord', ''], commands)).toBe(0);
    expect(commands.out.split('\n')).toEqual(
      expect.arrayContaining(['validate', 'plan', 'serve', 'completion']),
    );
    const options = capture();
    expect(await main(['--get-yargs-completions', 'accord', 'plan', '--'], options)).toBe(0);
    expect(options.out.split('\n')).toEqual(
      expect.arrayContaining(['--markdown', '--out', '--detailed-exitcode', '--api-url']),
    );
  });
});

describe('GITHUB_STEP_SUMMARY from apply', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accord-summary-apply-'));
  const server = useSeededService(KEY);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('appends its result, with a table of what did not get done when something failed', async () => {
    const file = join(dir, 'summary.md');
    const env = { ACCORD_API_URL: server.url, ACCORD_API_KEY: KEY, GITHUB_STEP_SUMMARY: file };
    const first = capture(env);
    expect(await main(['apply', '-f', EXAMPLE, '--auto-approve'], first), first.err).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(
      /^### accord apply: complete\n\nApply complete: 13 created, 0 patched, 2 put, 0 replaced, 0 deleted, 0 adopted in (\d+ ms|\d+\.\d s)\.\n/,
    );
    expect(text).not.toContain('| change | status | why |');

    const second = capture(env);
    expect(await main(['apply', '-f', EXAMPLE, '--auto-approve'], second), second.err).toBe(0);
    expect(readFileSync(file, 'utf8').slice(text.length)).toMatch(/^### accord apply: complete\n/);
  });
});

describe('--help', () => {
  it('lists every command, and every command shows at least one example', async () => {
    const top = capture();
    expect(await main(['--help'], top)).toBe(0);
    const list = top.out.split('\nCommands:\n')[1]?.split('\n\n')[0] ?? '';
    const commands = [...list.matchAll(/^ {2}accord (\w+)/gm)].map((m) => m[1] ?? '');
    expect(commands).toEqual([
      'init',
      'validate',
      'plan',
      'apply',
      'export',
      'drift',
      'reach',
      'schema',
      'serve',
      'completion',
    ]);
    expect(top.out).toContain('Examples:');
    for (const command of commands) {
      const io = capture();
      expect(await main([command, '--help'], io), command).toBe(0);
      const examples = io.out.split('\nExamples:\n')[1] ?? '';
      expect(examples, `accord ${command} --help`).toMatch(new RegExp(`^ {2}accord ${command}\\b`, 'm'));
    }
  });
});
