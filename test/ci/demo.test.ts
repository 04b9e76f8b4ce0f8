// `npm run demo` as a newcomer runs it: a child process that must finish, and whose output must say
// what the README's quick start says it does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../support/cli.js';
import { ROOT } from '../support/server.js';

async function runDemo(): Promise<{ code: number | null; out: string }> {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  const r = await runProcess(process.execPath, [join(ROOT, 'scripts', 'demo.mjs')], { cwd: ROOT, env });
  return { code: r.code, out: r.stdout + r.stderr };
}

/** The README's excerpt of the demo's output: the ```text block of the Quick start section. */
function readmeExcerpt(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const quick = /^## Quick start\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
  const block = /```text\n([\s\S]*?)```/.exec(quick)?.[1];
  if (!block) throw new Error('README.md: no ```text block in the Quick start section');
  return block.split('\n').filter((l) => l.trim() !== '');
}

describe('npm run demo', () => {
  it('runs to completion and prints every line the README quotes, in order', async () => {
    const { code, out } = await runDemo();
    if (code !== 0) process.stderr.write(`The demo printed:\n${out}\n`);
    expect(code).toBe(0);
    const lines = out.split('\n').map((l) => l.trim());
    let at = 0;
    for (const quoted of readmeExcerpt()) {
      const pattern = new RegExp(
        `^${quoted
          .trim()
          .split('…')
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*')}$`,
      );
      const found = lines.findIndex((l, i) => i >= at && pattern.test(l));
      expect(
        found,
        `README line not in the demo's output (after line ${at}): ${quoted}\n\n${out}`,
      ).toBeGreaterThan(-1);
      at = found + 1;
    }
    expect(out).not.toContain('demo-key-not-a-secret');
    expect(out).toMatch(/git-cert\.pub {2}\(ssh-rsa-cert-v01@openssh\.com\)/);
  });
});
