// A service that accepts connections and never answers, through the built CLI as a process (run
// `npm run build` first; `npm test` does). The bounds at default flags are shown on virtual time in
// test/api/silence.test.ts; this run checks the same behaviour end to end, with generous bounds, since
// a busy machine only ever makes timers late.

import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { createServer, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../support/cli.js';

const sockets: Socket[] = [];
const server = createServer((socket) => {
  sockets.push(socket);
  socket.on('data', () => {}); // read the request, answer nothing
  socket.on('error', () => {});
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
});

describe('accord plan against a hung service', () => {
  it('--timeout 6: a line at 10 s saying what it waits for, then gives up after 12 s of silence', async () => {
    const started = Date.now();
    const run = await runProcess(
      process.execPath,
      [resolve('bin/accord.js'), 'plan', '-f', resolve('examples/accord.yaml'), '--timeout', '6'],
      { env: { PATH: process.env.PATH ?? '', ACCORD_API_URL: url, ACCORD_API_KEY: 'hung_Key_4f2a9c7d1e' } },
    );
    const took = Date.now() - started;
    expect(run.code).toBe(1);
    const waiting = run.stderr.split('\n').filter((l) => l.startsWith('Waiting for'));
    expect(waiting).toHaveLength(1);
    expect(waiting[0]).toMatch(
      new RegExp(
        `^Waiting for ${url.replace(/\./g, '\\.')} to answer GET /[^ ]+( and \\d other requests?)?: no answer for 10 s; accord gives up after 12 s without one \\(twice --timeout 6 s\\)\\.$`,
      ),
    );
    expect(run.stderr).toMatch(
      /^Error: GET \/[^ ]+ got no answer from http:\/\/127\.0\.0\.1:\d+, which answered no request for 12 s \(twice --timeout 6 s; ACCORD_TIMEOUT(, \d attempts)?\), so accord gave up on it\./m,
    );
    expect(run.stderr).not.toContain('unexpected error');
    // Never before the bound; well within 45 s even on a loaded machine (it was 4 min 31 s at --timeout 30).
    expect(took).toBeGreaterThanOrEqual(12_000);
    expect(took).toBeLessThan(45_000);
  }, 60_000);

  it('Ctrl-C while the account is read: exit 130, saying that nothing was changed', async () => {
    const before = sockets.length;
    const child = spawn(
      process.execPath,
      [resolve('bin/accord.js'), 'plan', '-f', resolve('examples/accord.yaml')],
      { env: { PATH: process.env.PATH ?? '', ACCORD_API_URL: url, ACCORD_API_KEY: 'hung_Key_4f2a9c7d1e' } },
    );
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const closed = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    // Bounded polling: once the service has a connection from it, accord is reading the account.
    for (let i = 0; i < 3000 && sockets.length === before; i++) await new Promise((r) => setTimeout(r, 5));
    expect(sockets.length).toBeGreaterThan(before);
    child.kill('SIGINT');
    expect(await closed).toBe(130);
    expect(stderr).toBe('\nInterrupted while reading the account; nothing was changed.\n');
  }, 60_000);
});
