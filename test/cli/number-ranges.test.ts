// Numbers out of range in flags are one clear error, never a stack or a silently broken run (a timer
// given Infinity fires at once; a rate limit of 1e400 requests is no limit).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { HOST_KEY } from '../apply/helpers.js';
import { captureIo } from '../support/cli.js';
import { HOST_CA, useSeededService } from '../support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'accord-ranges-'));
writeFileSync(join(dir, 'accord.yaml'), 'version: 1\n');
// Nothing listens there: every case must be refused before a request.
const env = { ACCORD_API_URL: 'http://127.0.0.1:9', ACCORD_API_KEY: 'range-key-0123456789' };

async function refused(argv: string[]): Promise<string> {
  const io = captureIo(env, { cwd: dir });
  const code = await main(argv, io);
  expect([argv, code, io.out]).toEqual([argv, 1, '']);
  expect(io.err).toMatch(/^Error: /);
  expect(io.err).not.toMatch(/\n\s+at /);
  expect(io.err).not.toContain('unexpected error');
  return io.err;
}

const HUGE = `1${'0'.repeat(400)}`;

describe('numbers out of range in flags', () => {
  it.each([
    [['plan', '--timeout', '1e400'], '--timeout must be a number of a usable size, got "1e400"'],
    [['plan', '--parallelism=1e400'], '--parallelism must be a number of a usable size'],
    [['apply', '--max-destroy-percent=-1e400'], '--max-destroy-percent must be a number of a usable size'],
    [['plan', '--max-pages', '1e400'], '--max-pages must be a number of a usable size'],
    [['serve', '--port', '1e400'], '--port must be a number of a usable size'],
    [['serve', '--latency', '1e400'], '--latency must be a number of a usable size'],
    [['serve', '--fault-rate', '1e400'], '--fault-rate must be a number of a usable size'],
    [['serve', '--fault-seed', '1e400'], '--fault-seed must be a number of a usable size'],
    [['plan', '--timeout', '1e9'], '--timeout must be a positive number of seconds, at most 86400'],
    [['plan', '--rate-limit', `${HUGE}/1`], 'is not N/S with N from 1 to 1000000'],
    [['plan', '--rate-limit', `5/${HUGE}`], 'is not N/S with N from 1 to 1000000'],
    [['serve', '--rate-limit', '99999999999/1'], 'is not N/S (N requests per S seconds'],
    [['serve', '--latency', '1e9'], '--latency must be from 0 to 60000 milliseconds'],
    [['serve', '--fault-seed', '1.5'], '--fault-seed must be a whole number from 0 to 4294967295'],
  ])('%j', async (argv, message) => {
    expect(await refused(argv)).toContain(message);
  });

  it('any --timeout outside (0, 86400] seconds is refused with one line, never a stack', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc
            .double()
            .filter((x) => !(x > 0 && x <= 86_400))
            .map(String),
          fc.constantFrom('1e400', '-1e400', '0', '-0', '1e-400', HUGE, 'NaN'),
        ),
        async (value) => {
          expect(await refused(['plan', `--timeout=${value}`])).toContain('--timeout must be');
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('numbers out of range in a saved plan', () => {
  const KEY = 'range-key-0123456789abcdef';
  const server = useSeededService(KEY);

  it('valid_for_seconds: 1e400 (and other huge numbers) in a plan file is one clear error, never a stack', async () => {
    writeFileSync(
      join(dir, 'cert.yaml'),
      [
        'version: 1',
        'owner: ranges',
        'ssh_host_certificates:',
        '  h:',
        `    ssh_certificate_authority_id: ${HOST_CA}`,
        `    public_key: ${HOST_KEY}`,
        '    principals: [a.example.com]',
        '    valid_for: 90d',
        '',
      ].join('\n'),
    );
    const env = { ACCORD_API_URL: server.url, ACCORD_API_KEY: KEY };
    const saved = captureIo(env, { cwd: dir });
    expect(await main(['plan', '-f', 'cert.yaml', '--out', 'plan.json'], saved)).toBe(0);
    const text = readFileSync(join(dir, 'plan.json'), 'utf8');
    for (const [from, to] of [
      ['"valid_for_seconds": 7776000', '"valid_for_seconds": 1e400'],
      ['"valid_for_seconds": 7776000', '"valid_for_seconds": -1e400'],
      ['"max_destroy_percent": 30', '"max_destroy_percent": 1e400'],
      ['"create": 1', '"create": 1e400'],
    ] as const) {
      expect(text).toContain(from);
      writeFileSync(join(dir, 'edited.json'), text.replace(from, to));
      const io = captureIo(env, { cwd: dir });
      expect([to, await main(['apply', 'edited.json', '-f', 'cert.yaml', '--auto-approve'], io)]).toEqual([
        to,
        1,
      ]);
      expect(io.err).toMatch(/^Error: /);
      expect(io.err).not.toMatch(/\n\s+at |RangeError|unexpected error/);
    }
  });
});
