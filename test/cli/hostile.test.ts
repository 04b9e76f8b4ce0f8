// accord plan, as a process, against each kind of misbehaving service: every run ends, within its
// bounds, with one clear error line and no stack. (The bounds here are small so the suite stays fast;
// with the defaults the same runs end within twice --timeout and a second, or at --deadline.)
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runProcess } from '../support/cli.js';
import { HOSTILE, type HostileName, type HostileService, startHostile } from '../support/hostile.js';

const BIN = resolve('bin/accord.js');
const EXAMPLE = resolve('examples/accord.yaml');
const KEY = 'hostile_Key_5d0c9e7a1b3f';

// A service that answers nothing is given up on after twice --timeout of silence.
const timeout =
  /got no answer from \S+, which answered no request for 2 s \(twice --timeout 1 s; ACCORD_TIMEOUT(, \d attempts)?\), so accord gave up on it/;
const expected: Record<HostileName, RegExp> = {
  loop: /stopped: next_page_uri \S+ was already fetched, so the pages loop/,
  xorigin: /answered with a next_page_uri on another origin \(http:\/\/other\.invalid\)/,
  endless: /stopped after 20 pages .* pass --max-pages N with a larger N/,
  // Which comes first on a busy machine: 64 MiB read, or the second --timeout allows.
  huge: new RegExp(`answered 200 with more than 67,108,864 bytes; accord stopped reading|${timeout.source}`),
  hang: timeout,
  stall: timeout,
  badjson: /failed with 200: the response body is not JSON/,
  shape: /answered without a "\w+" list; check --api-url points at the API/,
  redirect:
    /failed with 302: no message\. The service redirects to http:\/\/other\.invalid\/\S+; accord does not follow redirects/,
  retryafter:
    /was not retried further: the run reached its --deadline of 3 s\. Tried \d+ times? over \d+(\.\d)? s; the last attempt was answered 429: slow down/,
  html500: /failed with 500: an HTML page \("Internal Server Error"\) instead of a JSON error/,
  echo401: /failed with 401 ERR_AUTH: bad credentials: .*Check the API key/,
};

let service: HostileService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

describe('accord plan against a misbehaving service', () => {
  it.each(HOSTILE)('%s: ends with one clear line, exit 1, no stack', async (name) => {
    service = await startHostile(name);
    const started = Date.now();
    const r = await runProcess(
      process.execPath,
      [
        BIN,
        'plan',
        '-f',
        EXAMPLE,
        '--timeout',
        '1',
        '--deadline',
        name === 'retryafter' ? '3' : '30',
        '--max-pages',
        '20',
      ],
      { env: { PATH: process.env.PATH ?? '', ACCORD_API_URL: service.url, ACCORD_API_KEY: KEY } },
    );
    const seconds = (Date.now() - started) / 1000;
    if (process.env.ACCORD_HOSTILE_TIMES) process.stderr.write(`${name}: ${seconds.toFixed(1)} s\n`);
    expect(r.code, r.stderr).toBe(1);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('Error: '));
    expect(errors, r.stderr).toHaveLength(1);
    expect(errors[0]).toMatch(expected[name]);
    expect(r.stderr).not.toMatch(/unexpected error|^\s+at /m);
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });
});
