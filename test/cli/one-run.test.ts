// The process that is one run of accord sets V8 up for one run (src/cli/one-run.ts); accord serve, which
// lives long, and main() called inside another program (these tests, a library user) keep V8's defaults.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const setFlagsFromString = vi.fn();
vi.mock('node:v8', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:v8')>()),
  setFlagsFromString,
}));
const { main } = await import('../../src/cli/main.js');
const { captureIo } = await import('../support/cli.js');

const dir = mkdtempSync(join(tmpdir(), 'accord-one-run-'));
writeFileSync(join(dir, 'accord.yaml'), 'version: 1\nowner: one-run\n');
const env = { ACCORD_API_URL: 'http://127.0.0.1:9', ACCORD_API_KEY: 'one-run-key' };

afterEach(() => setFlagsFromString.mockClear());

describe('V8 set up for one run', () => {
  it('is done for a command run as its own process', async () => {
    const io = captureIo(env, { cwd: dir });
    expect(await main(['validate'], io, { ownProcess: true })).toBe(0);
    expect(setFlagsFromString.mock.calls).toEqual([['--liftoff-only'], ['--semi-space-growth-factor=1']]);
  });

  it('is not done for main() inside another program', async () => {
    const io = captureIo(env, { cwd: dir });
    expect(await main(['validate'], io)).toBe(0);
    expect(setFlagsFromString).not.toHaveBeenCalled();
  });

  it('is not done for accord serve, which lives long', async () => {
    const io = captureIo(env, { cwd: dir });
    // Refused by the command itself, after the arguments were parsed: the point where others are set up.
    expect(await main(['serve', '--port', '70000'], io, { ownProcess: true })).toBe(1);
    expect(io.err).toContain('--port');
    expect(setFlagsFromString).not.toHaveBeenCalled();
  });
});
