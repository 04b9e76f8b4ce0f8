import { describe, expect, it } from 'vitest';
import type { Io } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

function captureIo(): Io & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: (t: string) => {
      io.out += t;
    },
    stderr: (t: string) => {
      io.err += t;
    },
    isTty: false,
    env: {},
    cwd: process.cwd(),
  };
  return io;
}

describe('accord serve options', () => {
  it.each([
    [['--rate-limit', '120'], /--rate-limit "120" is not N\/S/],
    [['--rate-limit', '0/60'], /--rate-limit/],
    [['--fault-rate', '1.5'], /--fault-rate must be between 0 and 1/],
    [['--latency', '-5'], /--latency/],
  ])('rejects %j before starting', async (args, message) => {
    const io = captureIo();
    expect(await main(['serve', '--port', '0', ...args], io)).toBe(1);
    expect(io.err).toMatch(message);
    expect(io.out).not.toContain('listening');
  });
});
