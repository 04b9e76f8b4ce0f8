import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../support/cli.js';

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
