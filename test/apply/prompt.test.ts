// The approval prompt of accord apply, driven as a person would: the built CLI in a real terminal
// (a pseudo-terminal made by util-linux's `script`), answered with Ctrl-C, Ctrl-D or a line.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useSeededService } from '../support/server.js';
import { accordFile, byKey, listAll } from './helpers.js';

const KEY = 'test-key-prompt-0123456789';
const BIN = resolve('bin/accord.js');
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'accord-prompt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const QUESTION = 'Only "yes" will be accepted: ';

/**
 * Runs `accord apply -f FILE` on a terminal; once it asks, types `keys`. Resolves with everything
 * the terminal showed and the exit code.
 */
function applyOnTerminal(
  url: string,
  file: string,
  keys: string,
): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, BIN, 'apply', '-f', file].map((a) => `'${a}'`).join(' ');
  return new Promise((resolvePromise, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: {
        PATH: process.env.PATH ?? '',
        ACCORD_API_URL: url,
        ACCORD_API_KEY: KEY,
        NO_COLOR: '1',
        TERM: 'dumb',
      },
    });
    let screen = '';
    let typed = false;
    // A terminal that has closed before the keys reach it refuses them (EPIPE): the screen says why.
    child.stdin.on('error', () => {});
    child.stdout.on('data', (d) => {
      screen += d;
      if (!typed && screen.includes(QUESTION)) {
        typed = true;
        child.stdin.write(keys);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      child.stdin.destroy();
      resolvePromise({ code, screen: screen.replaceAll('\r', '') });
    });
  });
}

describe.skipIf(!hasScript)('the approval prompt on a terminal', () => {
  const server = useSeededService(KEY);
  const hosts = async (owner: string) =>
    byKey(await listAll(server.url, KEY, '/ssh_host_certificates', 'ssh_host_certificates'), owner).size;

  it.each([
    { name: 'Ctrl-C', keys: '\u0003', exit: 130 },
    { name: 'Ctrl-D', keys: '\u0004', exit: 1 },
  ])(
    '$name: "Apply cancelled; nothing was changed.", exit $exit, no stack, nothing changed',
    async ({ keys, exit }) => {
      const owner = `prompt${exit}`;
      const file = join(dir, `${owner}.yaml`);
      writeFileSync(file, accordFile(owner, ['h1']));
      const { code, screen } = await applyOnTerminal(server.url, file, keys);
      expect(screen).toContain(`Do you want to make this change to ${server.url}? ${QUESTION}`);
      expect(screen).toMatch(/\nApply cancelled; nothing was changed\.\n/);
      expect(screen).not.toMatch(/unexpected error|AbortError|^\s+at /m);
      expect(code).toBe(exit);
      expect(await hosts(owner)).toBe(0);
    },
  );

  it('"yes" applies', async () => {
    const file = join(dir, 'yes.yaml');
    writeFileSync(file, accordFile('promptyes', ['h1', 'h2']));
    const { code, screen } = await applyOnTerminal(server.url, file, 'yes\r');
    expect(screen).toContain(`Do you want to make these 2 changes to ${server.url}? ${QUESTION}`);
    expect(screen).toMatch(/Apply complete: 2 created/);
    expect(code).toBe(0);
    expect(await hosts('promptyes')).toBe(2);
  });
});
