import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../support/cli.js';

const badSeed = join(mkdtempSync(join(tmpdir(), 'accord-seed-')), 'bad-seed.yaml');
writeFileSync(badSeed, 'ip_policies: [oops\n');

describe('accord serve options', () => {
  it.each([
    [['--rate-limit', '120'], /--rate-limit "120" is not N\/S/],
    [['--rate-limit', '0/60'], /--rate-limit/],
    [['--fault-rate', '1.5'], /--fault-rate must be between 0 and 1/],
    [
      ['--limits', 'policies=none'],
      /--limits "policies=none": "policies=none" is not a limit \(policies=N,rules_per_policy=N/,
    ],
    [['--latency', '-5'], /--latency/],
    [
      ['--data', join(tmpdir(), 'accord-no-such-dir', 'db.sqlite')],
      /^Error: --data .*directory does not exist; give the path of a SQLite file/,
    ],
    [['--data', tmpdir()], /^Error: --data .*unable to open database file; give the path/],
    [
      ['--data', fileURLToPath(new URL('../../examples/seed.yaml', import.meta.url))],
      /^Error: --data .*file is not a database; give/,
    ],
    [
      ['--seed', 'no-such-seed.yaml'],
      /^Error: the seed file no-such-seed.yaml does not exist; give --seed a YAML file/,
    ],
    [
      ['--seed', badSeed],
      /^Error: .*bad-seed.yaml:2:1: the seed file is not valid YAML: Flow sequence .*; fix it \(see examples\/seed.yaml\)\n$/,
    ],
  ])('rejects %j before starting', async (args, message) => {
    const io = captureIo();
    expect(await main(['serve', '--port', '0', ...args], io)).toBe(1);
    expect(io.err).toMatch(message);
    expect(io.err).not.toContain('    at '); // no stack without --verbose
    expect(io.out).not.toContain('listening');
  });

  it.each([
    ['99999', 'Error: --port must be a whole number from 0 to 65535 (0: any free port), got 99999\n'],
    ['-1', 'Error: --port must be a whole number from 0 to 65535 (0: any free port), got -1\n'],
    ['abc', 'Error: --port must be a number, got "abc".\n'],
  ])('rejects --port %s without a stack', async (port, message) => {
    const io = captureIo();
    expect(await main(['serve', `--port=${port}`], io)).toBe(1);
    expect(io.err).toBe(message);
  });
});
