// How long a request may take: --timeout bounds each attempt, body included; timeouts, refused
// connections and DNS failures are retried at most a few times; --deadline ends all retries. Virtual
// time (fake timers and a stub service) where the bound is on time, a real server where it is on I/O.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { ApiConnectionError, DeadlineError, ResponseTooLargeError } from '../../src/api/errors.js';
import { FakeClock, type Harness, harness, json, KEY } from './helpers.js';
import { type Behaviour, settle, stubService } from './stub-service.js';

let h: Harness | undefined;
const servers: Server[] = [];
const clients: ApiClient[] = [];
afterEach(async () => {
  await h?.client.close();
  await h?.agent.close();
  h = undefined;
  for (const c of clients.splice(0)) await c.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

function connError(code: string): Error {
  return Object.assign(new Error(`getaddrinfo ${code} api.test`), { code });
}

/** A server on 127.0.0.1 that counts requests and answers each with `handle`. */
async function serve(
  handle: (res: ServerResponse) => void,
): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((_req, res) => {
    requests++;
    handle(res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests: () => requests };
}

describe('--timeout bounds each attempt, body included (virtual time)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A client of `behave` on virtual time; random 0: no backoff wait, so the attempts' own time is all. */
  function stubClient(behave: (method: string, path: string) => Behaviour) {
    const service = stubService(behave);
    const c = new ApiClient({
      baseUrl: 'https://api.test',
      apiKey: KEY,
      timeoutMs: 300,
      dispatcher: service.dispatcher,
      random: () => 0,
    });
    clients.push(c);
    return { c, service };
  }

  async function outcome(work: Promise<unknown>): Promise<unknown> {
    return (await settle(vi, work, 10)).result;
  }

  it('a request that stalls after its headers, while the service answers others: three attempts, then a timeout that names --timeout', async () => {
    const { c, service } = stubClient((_m, path) =>
      path === '/ip_restrictions'
        ? { kind: 'stall-after-headers' }
        : { kind: 'answer', status: 200, body: '{}', afterMs: 100 },
    );
    let stalled = false;
    const err = c
      .get('/ip_restrictions')
      .catch((e: unknown) => e)
      .finally(() => {
        stalled = true;
      });
    // Other requests keep being answered, so the service is slow on one request, not silent.
    const others = (async () => {
      while (!stalled) await c.get('/other');
    })();
    const result = (await outcome(err)) as ApiConnectionError;
    await outcome(others);
    expect(result).toBeInstanceOf(ApiConnectionError);
    expect(result.transportCode).toBe('ACCORD_TIMEOUT');
    expect(result.message).toMatch(
      /^GET \/ip_restrictions got no complete answer from https:\/\/api\.test within --timeout 0\.3 s \(ACCORD_TIMEOUT, 3 attempts\)\. The service is down, stalled or slow/,
    );
    expect(service.requests.filter((r) => r === 'GET /ip_restrictions')).toHaveLength(3);
  });

  it('a body that trickles in (a byte every 20 ms) still ends: the bound is on the whole attempt', async () => {
    const { c, service } = stubClient(() => ({ kind: 'trickle', everyMs: 20 }));
    const err = (await outcome(c.get('/ip_restrictions'))) as ApiConnectionError;
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(err.transportCode).toBe('ACCORD_TIMEOUT');
    // Alone, it is a silent service: given up on after twice --timeout, two attempts.
    expect(service.requests).toHaveLength(2);
  });

  it('a service that accepts and never answers: two attempts, given up after twice --timeout', async () => {
    const { c, service } = stubClient(() => ({ kind: 'hang' }));
    const started = Date.now();
    const err = (await outcome(c.get('/r'))) as ApiConnectionError;
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(err.message).toContain(
      'which answered no request for 0.6 s (twice --timeout 0.3 s; ACCORD_TIMEOUT, 2 attempts)',
    );
    expect(Date.now() - started).toBeLessThanOrEqual(610);
    expect(service.requests).toHaveLength(2);
  });

  it('a POST that timed out is never sent again: its outcome is unknown', async () => {
    const { c, service } = stubClient(() => ({ kind: 'stall-after-headers' }));
    const err = (await outcome(c.post('/ip_restrictions', {}))) as { code: string };
    expect(err.code).toBe('ACCORD_OUTCOME_UNKNOWN');
    expect(service.requests).toHaveLength(1);
  });
});

describe('failures that retrying cannot fix fail fast', () => {
  for (const code of ['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME']) {
    it(`a name that does not resolve (${code}) fails at once, saying so`, async () => {
      h = harness();
      h.pool.intercept({ path: '/r', method: 'GET' }).replyWithError(connError(code)).times(5);
      const err = (await h.client.get('/r').catch((e) => e)) as ApiConnectionError;
      expect(err).toBeInstanceOf(ApiConnectionError);
      expect(err.message).toBe(
        `GET /r could not reach https://api.test: its host name api.test does not resolve (${code}). ` +
          "Check --api-url / ACCORD_API_URL, and the network's DNS, then run again.",
      );
      expect(h.client.stats.count('GET')).toBe(1);
      expect(h.clock.sleeps).toEqual([]);
    });
  }

  it('a refused connection is tried three times in well under a second of backoff, then says nothing listens', async () => {
    const probe = await serve(() => {});
    const closed = servers.pop()!;
    await new Promise((r) => closed.close(r));
    const clock = new FakeClock();
    const c = new ApiClient({ baseUrl: probe.url, apiKey: KEY, clock, random: () => 0.999 });
    clients.push(c);
    const err = (await c.get('/r').catch((e) => e)) as ApiConnectionError;
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(err.message).toMatch(
      /could not reach http:\/\/127\.0\.0\.1:\d+: the connection was refused \(ECONNREFUSED, 3 attempts\), so nothing is listening there/,
    );
    expect(c.stats.count('GET', 'error')).toBe(3);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBeLessThan(1000);
  });
});

describe('each kind of failure has its own limit', () => {
  it('a dropped connection after several 503s is still retried; the fifth drop is not', async () => {
    h = harness();
    const drop = () =>
      h!.pool.intercept({ path: '/r', method: 'GET' }).replyWithError(connError('ECONNRESET'));
    h.pool.intercept({ path: '/r', method: 'GET' }).reply(503, '').times(5);
    drop();
    h.pool.intercept({ path: '/r', method: 'GET' }).reply(200, { ok: 1 }, json);
    await expect(h.client.get('/r')).resolves.toEqual({ ok: 1 });
    for (let i = 0; i < 5; i++) drop();
    await expect(h.client.get('/r')).rejects.toBeInstanceOf(ApiConnectionError);
    expect(h.client.stats.count('GET', 'error')).toBe(6);
  });
});

describe('--deadline ends all retries', () => {
  it('a service that keeps answering 503: stops at the deadline, saying what was tried', async () => {
    h = harness({ deadlineMs: 25_000 });
    h.pool
      .intercept({ path: '/r', method: 'GET' })
      .reply(503, { msg: 'down for maintenance' }, { headers: { 'retry-after': '10' } })
      .times(10);
    const err = (await h.client.get('/r').catch((e) => e)) as DeadlineError;
    expect(err).toBeInstanceOf(DeadlineError);
    expect(err.code).toBe('ACCORD_DEADLINE');
    expect(err.message).toBe(
      'GET /r was not retried further: the run reached its --deadline of 25 s. Tried 3 times over 20 s; ' +
        'the last attempt was answered 503: down for maintenance. Check the service and run again later, ' +
        'or raise --deadline.',
    );
    expect(h.clock.now()).toBeLessThan(25_000);
  });

  it('a wait asked for that is longer than --deadline: says so at once, and suggests --rate-limit', async () => {
    h = harness({ deadlineMs: 8_000 });
    h.pool
      .intercept({ path: '/r', method: 'GET' })
      .reply(429, { msg: 'slow down' }, { headers: { 'retry-after': '60' } });
    const err = (await h.client.get('/r').catch((e) => e)) as DeadlineError;
    expect(err).toBeInstanceOf(DeadlineError);
    expect(err.message).toBe(
      'GET /r: the service asks to wait 60 s before another attempt, longer than --deadline 8 s allows, so it ' +
        'was not retried (the last attempt was answered 429: slow down). The service throttles: run again with ' +
        '--rate-limit 120/60 (or lower) so that accord paces itself under the limit, or raise --deadline above the wait.',
    );
    expect(h.clock.now()).toBeLessThan(1_000);
  });

  it('a 503 asking for a wait past the deadline: run again later, or raise --deadline', async () => {
    h = harness({ deadlineMs: 8_000 });
    h.pool
      .intercept({ path: '/r', method: 'GET' })
      .reply(503, { msg: 'down' }, { headers: { 'retry-after': '30' } });
    const err = (await h.client.get('/r').catch((e) => e)) as DeadlineError;
    expect(err.message).toBe(
      'GET /r: the service asks to wait 30 s before another attempt, longer than --deadline 8 s allows, so it ' +
        'was not retried (the last attempt was answered 503: down). Run again later, or raise --deadline above the wait.',
    );
  });

  it('429s until the deadline: suggests --rate-limit', async () => {
    h = harness({ deadlineMs: 25_000 });
    h.pool
      .intercept({ path: '/r', method: 'GET' })
      .reply(429, { msg: 'slow down' }, { headers: { 'retry-after': '10' } })
      .times(10);
    const err = (await h.client.get('/r').catch((e) => e)) as DeadlineError;
    expect(err.message).toBe(
      'GET /r was not retried further: the run reached its --deadline of 25 s. Tried 3 times over 20 s; ' +
        'the last attempt was answered 429: slow down. The service throttles: run again with --rate-limit 120/60 ' +
        '(or lower) so that accord paces itself under the limit, or raise --deadline.',
    );
  });

  it('counts from the first request, and restartDeadline starts it anew', async () => {
    h = harness({ deadlineMs: 15_000 });
    h.pool.intercept({ path: '/a', method: 'GET' }).reply(200, {}, json);
    await h.client.get('/a');
    h.clock.t += 60_000; // time spent elsewhere, e.g. at a prompt
    h.client.restartDeadline();
    h.pool
      .intercept({ path: '/r', method: 'GET' })
      .reply(503, '', { headers: { 'retry-after': '10' } })
      .times(1);
    h.pool.intercept({ path: '/r', method: 'GET' }).reply(200, { ok: 1 }, json);
    await expect(h.client.get('/r')).resolves.toEqual({ ok: 1 });
  });
});

describe('answers accord does not read whole', () => {
  it('a body larger than the limit stops at the limit, is not retried, and says so', async () => {
    h = harness({ maxResponseBytes: 1024 });
    h.pool.intercept({ path: '/r', method: 'GET' }).reply(200, 'x'.repeat(4096)).times(3);
    const err = (await h.client.get('/r').catch((e) => e)) as Error;
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect(err.message).toMatch(/^GET \/r answered 200 with more than 1,024 bytes; accord stopped reading/);
    expect(h.client.stats.count('GET')).toBe(1);
  });

  it('an HTML error page is named by its title, not printed', async () => {
    h = harness({ maxRetries: 0 });
    h.pool
      .intercept({ path: '/r', method: 'GET' })
      .reply(
        500,
        '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body>' + 'x'.repeat(500),
      );
    const err = (await h.client.get('/r').catch((e) => e)) as Error;
    expect(err.message).toBe(
      'GET /r failed with 500: an HTML page ("502 Bad Gateway") instead of a JSON error. The service failed; run again later.',
    );
  });

  it('a redirect is not followed, and says where it led', async () => {
    h = harness();
    h.pool
      .intercept({ path: '/r', method: 'GET' })
      .reply(301, '', { headers: { location: 'https://elsewhere.test/r' } });
    const err = (await h.client.get('/r').catch((e) => e)) as Error;
    expect(err.message).toMatch(
      /^GET \/r failed with 301: no message\. The service redirects to https:\/\/elsewhere\.test\/r; accord does not follow redirects/,
    );
  });
});
