// A closed pipe ends accord quietly (`accord validate | head -1`): the reader is gone before accord
// writes, so every write meets EPIPE; accord exits with the command's own code and says nothing on
// stderr, no stack trace.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from '../support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'accord-closed-pipe-'));
const FILE = join(dir, 'accord.yaml');
writeFileSync(
  FILE,
  [
    'version: 1',
    'ip_policies:',
    '  office:',
    '    rules:',
    '      - allow: 10.0.0.0/8',
    'ip_restrictions:',
    '  d: {type: dashboard, enforced: true, ip_policies: [office]}',
    'guards:',
    '  dashboard: {only_let_in: [10.0.0.0/8]}',
    '',
  ].join('\n'),
);

/** The CLI with its stdout's reader closed at once; its exit code and what it wrote on stderr. */
function withClosedStdout(args: string[]): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, err }));
  });
}

describe('a closed pipe', () => {
  it.each([
    [['validate', '-f', FILE], 0],
    [['--help'], 0],
    [['schema'], 0],
  ])('ends accord %j quietly with its own exit code', async (args, code) => {
    const r = await withClosedStdout(args as string[]);
    expect(r.err).not.toContain('EPIPE');
    expect(r.err).toBe('');
    expect(r.code).toBe(code);
  });
});
