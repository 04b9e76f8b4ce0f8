import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import yargs from 'yargs';
import { ApiStats } from '../../src/api/stats.js';
import {
  type ConnectionArgs,
  ConnectionConfigError,
  connectionOptions,
  createClient,
  parseRateLimit,
  printStats,
  withClient,
} from '../../src/cli/connection.js';
import type { Io } from '../../src/cli/io.js';
import { FakeClock } from '../api/helpers.js';

const KEY = 'key_FileSecret0123456789';
const dir = mkdtempSync(join(tmpdir(), 'accord-conn-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function io(env: Record<string, string> = {}): Io & { err: string[] } {
  const err: string[] = [];
  return { stdout: () => {}, stderr: (t) => err.push(t), isTty: false, env, cwd: dir, err };
}

async function parse(args: string[]): Promise<ConnectionArgs> {
  return (await connectionOptions(yargs(args).strict()).parseAsync()) as unknown as ConnectionArgs;
}

function keyFile(name: string, content: string, mode = 0o600): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  chmodSync(path, mode);
  return name;
}

describe('connection options', () => {
  it('has defaults and parses every option', async () => {
    const argv = await parse([]);
    // Unset: the client's default, which differs from an explicit 4 while the limit is unknown.
    expect(argv.parallelism).toBeUndefined();
    expect(argv.timeout).toBe(25);
    expect(argv.stats).toBe(false);
    const full = await parse([
      '--api-url',
      'http://127.0.0.1:9',
      '--parallelism',
      '8',
      '--rate-limit',
      '120/60',
      '--stats',
    ]);
    expect(full).toMatchObject({
      'api-url': 'http://127.0.0.1:9',
      parallelism: 8,
      'rate-limit': '120/60',
      stats: true,
    });
  });

  it('parses --rate-limit N/S and rejects anything else', () => {
    expect(parseRateLimit('120/60')).toEqual({ requests: 120, perSeconds: 60 });
    expect(parseRateLimit(' 5 / 0.5 ')).toEqual({ requests: 5, perSeconds: 0.5 });
    for (const bad of ['120', '0/60', '10/0', 'a/b', '-1/5', '1.5/2']) {
      expect(() => parseRateLimit(bad)).toThrow(ConnectionConfigError);
    }
  });
});

describe('createClient', () => {
  it('takes the URL and key from the environment', async () => {
    const client = createClient(
      await parse([]),
      io({ ACCORD_API_URL: 'http://127.0.0.1:1234/', ACCORD_API_KEY: KEY }),
    );
    expect(client.baseUrl).toBe('http://127.0.0.1:1234');
    expect(client.parallelism).toBe(4);
    await client.close();
  });

  it('prefers --api-url and --api-key-file over the environment', async () => {
    const file = keyFile('k1', `${KEY}\n`);
    const argv = await parse(['--api-url', 'http://localhost:5', '--api-key-file', file]);
    const client = createClient(argv, io({ ACCORD_API_URL: 'http://127.0.0.1:1', ACCORD_API_KEY: 'other' }));
    expect(client.baseUrl).toBe('http://localhost:5');
    await client.close();
  });

  it('explains a missing URL or key', async () => {
    expect(() =>
      createClient({ parallelism: 4, timeout: 30, deadline: 300, stats: false }, io({ ACCORD_API_KEY: KEY })),
    ).toThrow(/No API URL: pass --api-url or set ACCORD_API_URL/);
    expect(() =>
      createClient(
        { parallelism: 4, timeout: 30, deadline: 300, stats: false },
        io({ ACCORD_API_URL: 'http://127.0.0.1:1' }),
      ),
    ).toThrow(/No API key: set ACCORD_API_KEY or pass --api-key-file/);
  });

  it('rejects bad URLs without echoing credentials', async () => {
    const env = { ACCORD_API_KEY: KEY };
    const args = { parallelism: 4, timeout: 30, deadline: 300, stats: false };
    expect(() => createClient({ ...args, 'api-url': 'not a url' }, io(env))).toThrow(/is not a URL/);
    expect(() => createClient({ ...args, 'api-url': 'ftp://x' }, io(env))).toThrow(/http or https/);
    expect(() => createClient({ ...args, 'api-url': 'https://u:pw@x' }, io(env))).toThrow(
      /must not hold credentials/,
    );
    expect(() => createClient({ ...args, 'api-url': 'https://x/?a=1' }, io(env))).toThrow(/query/);
    expect(() => createClient({ ...args, 'api-url': 'https://x', parallelism: 0 }, io(env))).toThrow(
      /--parallelism/,
    );
  });

  it('warns when the key would travel over plain http to another host', async () => {
    const out = io({ ACCORD_API_KEY: KEY, ACCORD_API_URL: 'http://api.example.com' });
    const client = createClient(await parse([]), out);
    expect(out.err.join('')).toMatch(/plain http to api\.example\.com/);
    await client.close();
  });

  it.skipIf(process.platform === 'win32')(
    'refuses a key file others can read, an unreadable, missing, empty or multi-line file',
    async () => {
      const env = { ACCORD_API_URL: 'http://127.0.0.1:1' };
      const cases: Array<[string, RegExp]> = [
        [keyFile('open', KEY, 0o644), /can be read by other users \(mode 644\); run chmod 600 open/],
        ['missing', /missing does not exist/],
        [keyFile('empty', ' \n', 0o600), /empty is empty; put the API key in it/],
        [keyFile('two', `${KEY}\nsecond-line-secret\n`, 0o600), /more than one word or line/],
      ];
      // root reads any file, so only an ordinary user can see the unreadable case.
      if (process.getuid?.() !== 0)
        cases.push([keyFile('locked', KEY, 0o000), /is not readable by this user/]);
      mkdirSync(join(dir, 'adir'), { mode: 0o700 });
      cases.push(['adir', /is not a regular file/]);
      for (const [file, message] of cases) {
        const argv = await parse(['--api-key-file', file]);
        let err: unknown;
        try {
          createClient(argv, io(env));
        } catch (e) {
          err = e;
        }
        expect(err, file).toBeInstanceOf(ConnectionConfigError);
        expect((err as Error).message).toMatch(message);
        expect((err as Error).message).not.toContain(KEY);
        expect((err as Error).message).not.toContain('second-line-secret');
      }
    },
  );
});

describe('stats and tracing', () => {
  it('prints requests by method and status, retries, bytes and time', () => {
    const clock = new FakeClock();
    const stats = new ApiStats(clock);
    stats.recordAttempt('GET', 200);
    stats.recordAttempt('GET', 200);
    stats.recordAttempt('GET', 503);
    stats.recordAttempt('POST', 201);
    stats.retries = 1;
    stats.bytesSent = 10;
    stats.bytesReceived = 2048;
    clock.t = 1500;
    const out = io();
    printStats(stats, out);
    expect(out.err.join('')).toBe(
      [
        'API requests: 4 (1 retries) in 1.50 s',
        '  GET         3  (200: 2, 503: 1)',
        '  POST        1  (201: 1)',
        '  sent 10 bytes, received 2048 bytes',
        '',
      ].join('\n'),
    );
  });

  it('withClient prints --stats even when the work fails, and closes the client', async () => {
    const out = io({ ACCORD_API_URL: 'http://127.0.0.1:1', ACCORD_API_KEY: KEY });
    const argv = { ...(await parse(['--stats'])) };
    await expect(
      withClient(argv, out, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(out.err.join('')).toMatch(/^API requests: 0 \(0 retries\)/);
  });

  it('--verbose traces requests to stderr without the key', async () => {
    const out = io({ ACCORD_API_URL: 'http://127.0.0.1:1', ACCORD_API_KEY: KEY });
    const argv = { ...(await parse(['--timeout', '2'])), verbose: true };
    const client = createClient(argv, out, { clock: new FakeClock() });
    // Port 1 refuses: each attempt is traced, then the error names the origin.
    await expect(client.get('/ip_restrictions')).rejects.toMatchObject({
      code: 'ACCORD_API_CONNECTION',
      message: expect.stringMatching(/could not reach http:\/\/127\.0\.0\.1:1/),
    });
    await client.close();
    const text = out.err.join('');
    expect(text).toMatch(/\[api\] GET \/ip_restrictions -> ECONNREFUSED/);
    expect(text).not.toContain(KEY);
  });
});
