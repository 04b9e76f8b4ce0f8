// --color and --no-color decide colour over the terminal, NO_COLOR and FORCE_COLOR (docs/cli.md).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../support/cli.js';
import { OFFICE, useSeededService } from '../support/server.js';

const KEY = 'color-flag-key-0123456';
const server = useSeededService(KEY);
const dir = mkdtempSync(join(tmpdir(), 'accord-color-'));
const FILE = join(dir, 'accord.yaml');
writeFileSync(
  FILE,
  `version: 1\nowner: color\nip_restrictions:\n  d: {type: dashboard, enforced: true, ip_policies: [${OFFICE}]}\n`,
);
// The text plan's colours are ANSI escapes.
const ESC = '\u001b[';

const plan = (flags: string[], env: Record<string, string>) =>
  runMain(['plan', '-f', FILE, ...flags], { ACCORD_API_URL: server.url, ACCORD_API_KEY: KEY, ...env });

describe('--color and --no-color', () => {
  it.each([
    [['--no-color'], { FORCE_COLOR: '1' }, false],
    [['--no-color'], {}, false],
    [['--color'], { NO_COLOR: '1' }, true],
    [['--color'], {}, true],
    [['--color', '--no-color'], {}, false],
    [[], { FORCE_COLOR: '1' }, true],
    [[], {}, false],
  ])('%j with %j colours: %s', async (flags, env, coloured) => {
    const r = await plan(flags, env);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('ip_restrictions.d');
    expect(r.out.includes(ESC)).toBe(coloured);
  });
});
