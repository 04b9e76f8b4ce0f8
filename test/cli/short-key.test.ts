// A short API key (a local test key, or a key cut short): accord's output is what it is with a real
// key, apart from one warning; the key is redacted only where it stands as a word of its own, and
// `accord serve` refuses it.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_API_KEY_LENGTH, makeRedactor, Secrets } from '../../src/api/redact.js';
import { main } from '../../src/cli/main.js';
import type { RunningServer } from '../../src/server/index.js';
import { captureIo, runMain } from '../support/cli.js';
import { EXAMPLE, OFFICE, serveSeeded } from '../support/server.js';

const LONG = 'short-key-test-0123456789abcdef';
// Each is inside words or IDs of the output ("k" of "make", "demo" and "ipp" of the seed's IDs), never a word.
const SHORT = ['k', 'e', 'ff', 'demo', 'ipp'];

const warning = (where: string, n: number) =>
  `Warning: the API key in ${where} is ${n} character${n === 1 ? '' : 's'} long, shorter than any real key ` +
  `(at least 16); if the service refuses it, check that ${where} holds the whole key.\n`;

describe('accord with a short API key', () => {
  const servers = new Map<string, RunningServer>();
  beforeAll(async () => {
    for (const key of [LONG, ...SHORT]) servers.set(key, await serveSeeded(key));
  });
  afterAll(async () => {
    for (const s of servers.values()) await s.close();
  });
  const plan = (key: string, ...args: string[]) => {
    const url = servers.get(key)!.url;
    return runMain(['plan', '-f', EXAMPLE, ...args], { ACCORD_API_KEY: key, ACCORD_API_URL: url });
  };
  /** The output of a run with `key`, its service's URL said as the long key's service's. */
  const same = (text: string, key: string) => text.split(servers.get(key)!.url).join(servers.get(LONG)!.url);

  it('prints the plan a real key gets, and one warning', async () => {
    const real = await plan(LONG);
    expect(real.out).toContain('accord will make these changes (owner ');
    expect(real.out).toContain(OFFICE);
    for (const key of SHORT) {
      const run = await plan(key);
      expect(run.code, run.err).toBe(real.code);
      expect(same(run.out, key)).toBe(real.out);
      expect(run.err).toBe(warning('ACCORD_API_KEY', key.length) + real.err);
      const json = await plan(key, '--json');
      expect(json.out).not.toContain('[REDACTED]');
      expect(JSON.parse(json.out).changes.length).toBeGreaterThan(10);
    }
  });

  it('says where a short key came from, and nothing when the key is a real length', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'accord-short-key-')), 'key');
    writeFileSync(file, 'demo\n', { mode: 0o600 });
    const url = servers.get('demo')!.url;
    const run = await runMain(['plan', '-f', EXAMPLE, '--api-key-file', file], { ACCORD_API_URL: url });
    expect(run.err).toBe(warning(`--api-key-file ${file}`, 4));
    expect((await plan(LONG)).err).toBe('');
  });
});

describe('accord serve with a short key', () => {
  const serve = async (args: string[], env: Record<string, string> = {}) => {
    const io = captureIo(env);
    const code = await main(['serve', '--port', '0', ...args], io);
    return { code, out: io.out, err: io.err };
  };

  it('refuses --api-key under 16 characters, and says so', async () => {
    const run = await serve(['--api-key', 'k']);
    expect(run.code).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toContain(
      '--api-key is 1 characters long; accord serve takes keys of at least 16 characters (production keys ' +
        'are much longer). Give a longer key, or none for a random one.',
    );
  });

  it('refuses a short key in ACCORD_SERVE_API_KEYS, naming which', async () => {
    const run = await serve([], { ACCORD_SERVE_API_KEYS: `${LONG}, short-key` });
    expect(run.code).toBe(1);
    expect(run.err).toContain('key 2 of ACCORD_SERVE_API_KEYS is 9 characters long; accord serve takes keys');
    expect(run.err).not.toContain('short-key');
  });
});

describe('redaction of a short key', () => {
  it('replaces the key where it stands as a word, never inside a word, an ID or an escape code', () => {
    const s = new Secrets();
    s.add('k');
    expect(s.redact('accord will make these changes')).toBe('accord will make these changes');
    expect(s.redact('ipp_2kK9 k_1 x-k-y "k" K.')).toBe(
      'ipp_2kK9 k_1 x-[REDACTED]-y "[REDACTED]" [REDACTED].',
    );
    expect(s.redact('\x1b[K\r\x1b[2K12 of 40\x1b[0m\n')).toBe('\x1b[K\r\x1b[2K12 of 40\x1b[0m\n');
    const redact = makeRedactor('k');
    expect(redact('make k ipp_2k Bearer k')).toBe('make [REDACTED] ipp_2k Bearer [REDACTED]');
  });

  it('replaces a key of a real length wherever it is', () => {
    const key = 'a'.repeat(MIN_API_KEY_LENGTH);
    const s = new Secrets();
    s.add(key);
    expect(s.redact(`ERR_${key}x op_${key}`)).toBe('ERR_[REDACTED]x op_[REDACTED]');
  });

  it('leaves every word but the key as it is (property)', () => {
    const word = fc.string({ unit: fc.constantFrom('k', 'e', 'y', '_', '1'), minLength: 1, maxLength: 6 });
    const gap = fc.constantFrom(' ', '-', '.', ': ', '\n', '"', '/');
    fc.assert(
      fc.property(fc.constantFrom('k', 'ke', 'key', 'e1'), fc.array(fc.tuple(word, gap)), (key, parts) => {
        const s = new Secrets();
        s.add(key);
        const text = parts.map(([w, g]) => w + g).join('');
        const expected = parts
          .map(([w, g]) => (w.toLowerCase() === key.toLowerCase() ? '[REDACTED]' : w) + g)
          .join('');
        expect(s.redact(text)).toBe(expected);
      }),
    );
  });
});
