// accord plan asks for the account's lists before its files are loaded, and reads them while the files
// load (src/cli/planning.ts); the files' problems still come first and plan nothing.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { planAgainstAccount, READ_ONLY } from '../../src/cli/planning.js';
import { loadDesiredState } from '../../src/config/index.js';
import type { DesiredState } from '../../src/config/model.js';
import { managedDescriptors } from '../../src/resources/index.js';

/** An account with no objects that records what is asked of it. */
function emptyAccount() {
  const asked: string[] = [];
  const client = {
    baseUrl: 'http://account.test',
    async *listAll(path: string): AsyncIterable<never> {
      asked.push(`list ${path}`);
      // An empty list: nothing to yield.
      yield* [];
    },
    async getOptional(path: string) {
      asked.push(`get ${path}`);
      return undefined;
    },
  };
  return { client: client as unknown as ApiClient, asked };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const io = { cwd: tmpdir(), stderr: () => {} };
// A kind listed only when the files write its section waits for them (cloud endpoints).
const lists = managedDescriptors
  .filter((d) => !d.listedOnlyWhenWritten)
  .map((d) => `list ${d.collectionPath}`)
  .sort();

describe('the account read while the files load', () => {
  it('asks for every list before the files are loaded, then plans what they say', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'accord-read-while-'));
    writeFileSync(join(dir, 'accord.yaml'), 'version: 1\nowner: early\n');
    const files = deferred<DesiredState | undefined>();
    const { client, asked } = emptyAccount();
    const planned = planAgainstAccount(client, files.promise, READ_ONLY, io);
    // The files are still loading (their promise is unresolved) while every list is asked for.
    await vi.waitFor(() => expect([...asked].sort()).toEqual(lists), { timeout: 20_000, interval: 5 });
    files.resolve(await loadDesiredState([join(dir, 'accord.yaml')], dir));
    const result = await planned;
    expect(result?.plan.owner).toBe('early');
    expect(result?.plan.summary.create).toBe(0);
  });

  it('plans nothing when the files have problems (undefined), whatever the lists gave', async () => {
    const files = deferred<DesiredState | undefined>();
    const { client, asked } = emptyAccount();
    const planned = planAgainstAccount(client, files.promise, READ_ONLY, io);
    await vi.waitFor(() => expect(asked.length).toBe(lists.length), { timeout: 20_000, interval: 5 });
    files.resolve(undefined);
    expect(await planned).toBeUndefined();
    expect(asked.filter((a) => a.startsWith('get '))).toEqual([]);
  });
});

describe('accord plan with files that have problems', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accord-read-while-bad-'));
  writeFileSync(join(dir, 'accord.yaml'), 'version: 1\nowner: early\nip_restrictions:\n  a: {type: nope}\n');

  it.each([
    ['without an API key', { ACCORD_API_URL: 'http://127.0.0.1:9' }],
    [
      'with a service that does not answer',
      { ACCORD_API_URL: 'http://127.0.0.1:9', ACCORD_API_KEY: 'k-early-0123' },
    ],
  ])('%s says the files’ problems and nothing else (exit 1)', async (_, env) => {
    const { main } = await import('../../src/cli/main.js');
    const { captureIo } = await import('../support/cli.js');
    const cli = captureIo(env, { cwd: dir });
    expect(await main(['plan'], cli)).toBe(1);
    expect(cli.err).toContain('accord.yaml:4:');
    expect(cli.err).toContain('fix the problems above');
    expect(cli.err).not.toMatch(/API key|ECONNREFUSED|connect/i);
    expect(cli.out).toBe('');
  });
});

describe('stderr held until the files are loaded', () => {
  /** An io whose stderr waits for files that the test loads (`files.resolve`). */
  async function heldIo() {
    const { heldUntilLoaded } = await import('../../src/cli/planning.js');
    const { captureIo } = await import('../support/cli.js');
    const cli = captureIo();
    const files = deferred<DesiredState | undefined>();
    return { cli, files, held: heldUntilLoaded(cli, files.promise) };
  }

  it('says the held lines once they load, in order, then says lines as they come', async () => {
    const { cli, files, held } = await heldIo();
    held.stderr('one\n');
    held.stderr('two\n');
    expect(cli.err).toBe('');
    files.resolve({ owner: 'x' } as DesiredState);
    await files.promise;
    held.stderr('three\n');
    expect(cli.err).toBe('one\ntwo\nthree\n');
  });

  it('drops them when the files have problems', async () => {
    const { cli, files, held } = await heldIo();
    held.stderr('retrying\n');
    files.resolve(undefined);
    await files.promise;
    expect(cli.err).toBe('');
  });

  it('lists the endpoints once the files say they have cloud_endpoints, an empty section included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'accord-read-while-'));
    writeFileSync(join(dir, 'accord.yaml'), 'version: 1\nowner: early\ncloud_endpoints: {}\n');
    const files = deferred<DesiredState | undefined>();
    const { client, asked } = emptyAccount();
    const planned = planAgainstAccount(client, files.promise, READ_ONLY, io);
    await vi.waitFor(() => expect([...asked].sort()).toEqual(lists), { timeout: 20_000, interval: 5 });
    expect(asked).not.toContain('list /endpoints');
    files.resolve(await loadDesiredState([join(dir, 'accord.yaml')], dir));
    expect((await planned)?.plan.summary.delete).toBe(0);
    expect(asked.filter((a) => a === 'list /endpoints')).toHaveLength(1);
  });
});
