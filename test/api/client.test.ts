import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiClient, ApiKeyError, MAX_PAGES } from '../../src/api/client.js';
import { systemClock } from '../../src/api/clock.js';
import {
  ApiConnectionError,
  ApiError,
  ClientClosedError,
  isOutcomeUnknown,
  OutcomeUnknownError,
  PaginationError,
} from '../../src/api/errors.js';
import { AccordError } from '../../src/errors.js';
import { VERSION } from '../../src/version.js';
import { apiErrorBody, collect, type Harness, harness, json, KEY, ORIGIN } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.client.close();
  await h?.agent.close();
  h = undefined;
});

function connError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 10.0.0.1:443`), { code });
}

describe('requests', () => {
  it('sends the key, both version headers and user agent; Content-Type only with a body', async () => {
    h = harness();
    const seen: Array<Record<string, string>> = [];
    const capture = (opts: { headers?: unknown }) => {
      seen.push(Object.fromEntries(Object.entries(opts.headers as Record<string, string>)));
      return { statusCode: 200, data: { ok: true }, responseOptions: json };
    };
    h.pool.intercept({ path: '/ip_restrictions/ipx_1', method: 'GET' }).reply(capture);
    h.pool.intercept({ path: '/ip_restrictions', method: 'POST', body: '{"type":"api"}' }).reply(capture);
    expect(await h.client.get('/ip_restrictions/ipx_1')).toEqual({ ok: true });
    await h.client.post('/ip_restrictions', { type: 'api' });
    expect(seen[0]).toMatchObject({
      authorization: `Bearer ${KEY}`,
      'service-version': '2',
      'ngrok-version': '2',
      'user-agent': `accord/${VERSION}`,
    });
    expect(seen[0]).not.toHaveProperty('content-type');
    expect(seen[1]).toMatchObject({
      'content-type': 'application/json',
      authorization: `Bearer ${KEY}`,
      'service-version': '2',
      'ngrok-version': '2',
    });
  });

  it('keeps a base path and answers 204 with undefined', async () => {
    h = harness({ baseUrl: `${ORIGIN}/api/` });
    h.pool.intercept({ path: '/api/edges/tcp/edgtcp_1/ip_restriction', method: 'DELETE' }).reply(204, '');
    await expect(h.client.delete('/edges/tcp/edgtcp_1/ip_restriction')).resolves.toBeUndefined();
    expect(h.client.baseUrl).toBe(`${ORIGIN}/api`);
  });

  it('refuses to send the key to another origin', async () => {
    h = harness();
    await expect(h.client.get('https://elsewhere.test/ip_restrictions')).rejects.toMatchObject({
      code: 'ACCORD_REFUSED_REQUEST',
      message: expect.stringMatching(/Refusing to send/),
    });
    expect(h.agent.getCallHistory()?.calls()).toHaveLength(0);
  });

  it('refuses a path with dot segments or a backslash, which would reach another endpoint', async () => {
    h = harness();
    for (const path of ['/ip_restrictions/../admin', '/x/%2E%2e/admin', '/x/./y', '/x\\..\\admin']) {
      await expect(h.client.delete(path)).rejects.toMatchObject({
        code: 'ACCORD_REFUSED_REQUEST',
        message: expect.stringMatching(/Refusing the request path/),
      });
    }
    expect(h.agent.getCallHistory()?.calls()).toHaveLength(0);
  });

  it('refuses a key that cannot be a header value, without showing it', () => {
    h = harness();
    const bad = 'abc def\nsecret';
    let err: unknown;
    try {
      new ApiClient({ baseUrl: ORIGIN, apiKey: bad });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiKeyError);
    expect(String((err as Error).message)).not.toContain('secret');
  });
});

describe('typed errors', () => {
  it('carries status, error_code, msg, operation id, method and path', async () => {
    h = harness();
    h.pool
      .intercept({ path: '/ip_restrictions', method: 'POST' })
      .reply(409, apiErrorBody(409, 'ERR_TYPE_TAKEN', 'an IP restriction of type api exists', 'op_9'), json);
    const err = (await h.client.post('/ip_restrictions', { type: 'api' }).catch((e) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toBeInstanceOf(AccordError);
    expect(err).toMatchObject({
      status: 409,
      errorCode: 'ERR_TYPE_TAKEN',
      msg: 'an IP restriction of type api exists',
      operationId: 'op_9',
      method: 'POST',
      path: '/ip_restrictions',
      outcomeUnknown: false,
    });
    expect(err.message).toBe(
      'POST /ip_restrictions failed with 409 ERR_TYPE_TAKEN: an IP restriction of type api exists (operation op_9).',
    );
    expect(h.client.stats.count('POST')).toBe(1);
  });

  it('reports a non-JSON error body and a 401 with a hint', async () => {
    h = harness();
    h.pool.intercept({ path: '/x', method: 'GET' }).reply(401, 'go away');
    const err = (await h.client.get('/x').catch((e) => e)) as ApiError;
    expect(err.status).toBe(401);
    expect(err.message).toContain('go away');
    expect(err.message).toContain('ACCORD_API_KEY');
  });

  it('404: an error for get, undefined for getOptional, done for delete', async () => {
    h = harness();
    const notFound = apiErrorBody(404, 'ERR_NOT_FOUND', 'not found');
    h.pool.intercept({ path: '/a/1', method: 'GET' }).reply(404, notFound, json).times(2);
    h.pool.intercept({ path: '/a/1', method: 'DELETE' }).reply(404, notFound, json);
    await expect(h.client.get('/a/1')).rejects.toMatchObject({ status: 404, errorCode: 'ERR_NOT_FOUND' });
    await expect(h.client.getOptional('/a/1')).resolves.toBeUndefined();
    await expect(h.client.delete('/a/1')).resolves.toBeUndefined();
    expect(h.client.stats.retries).toBe(0);
  });

  it("explains the production service's codes for the rate limit and for what to detach first", async () => {
    h = harness({ maxRetries: 0 });
    const refusals: Array<[string, number, RegExp]> = [
      ['ERR_NGROK_1420', 409, /take the policy out of the restrictions the message lists/],
      ['ERR_NGROK_1419', 409, /create the new rule first, or take the policy out of the dashboard/],
      ['ERR_NGROK_226', 429, /120 requests per rolling 60 s .*--rate-limit 120\/60/],
    ];
    for (const [code, status, hint] of refusals) {
      h.pool
        .intercept({ path: '/ip_policies/ipp_1', method: 'DELETE' })
        .reply(status, apiErrorBody(status, code, 'refused'), json);
      const err = (await h.client.delete('/ip_policies/ipp_1').catch((e) => e)) as ApiError;
      expect(err).toMatchObject({ status, errorCode: code });
      expect(err.message).toMatch(hint);
    }
    h.pool
      .intercept({ path: '/ip_policies/ipp_1', method: 'DELETE' })
      .reply(409, apiErrorBody(409, 'ERR_OTHER', 'refused'), json);
    const other = (await h.client.delete('/ip_policies/ipp_1').catch((e) => e)) as ApiError;
    expect(other.message).not.toMatch(/take the policy out/);
  });

  it('a 404 on PATCH is an error', async () => {
    h = harness();
    h.pool
      .intercept({ path: '/a/1', method: 'PATCH' })
      .reply(404, apiErrorBody(404, 'ERR_NOT_FOUND', 'gone'), json);
    await expect(h.client.patch('/a/1', { description: 'x' })).rejects.toMatchObject({ status: 404 });
  });
});

describe('retries', () => {
  for (const status of [429, 502, 503, 504]) {
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
      it(`retries ${method} after ${status}`, async () => {
        h = harness();
        h.pool.intercept({ path: '/r', method }).reply(status, apiErrorBody(status, 'ERR_X', 'busy'), json);
        h.pool.intercept({ path: '/r', method }).reply(200, { done: true }, json);
        const call =
          method === 'GET'
            ? h.client.get('/r')
            : method === 'DELETE'
              ? h.client.delete('/r')
              : method === 'PUT'
                ? h.client.put('/r', { enabled: true })
                : h.client.patch('/r', { enabled: true });
        await call;
        expect(h.client.stats.retries).toBe(1);
        expect(h.client.stats.count(method, status)).toBe(1);
        expect(h.client.stats.count(method, 200)).toBe(1);
      });
    }
  }

  it('waits with exponential backoff and full jitter, capped', async () => {
    h = harness({ retryPolicy: { maxRetries: 8, baseDelayMs: 100, maxDelayMs: 3000 } });
    h.pool.intercept({ path: '/r', method: 'GET' }).reply(503, '').times(8);
    h.pool.intercept({ path: '/r', method: 'GET' }).reply(200, {}, json);
    await h.client.get('/r');
    // random() = 0.5: half of min(3000, 100 * 2^n)
    expect(h.clock.sleeps).toEqual([50, 100, 200, 400, 800, 1500, 1500, 1500]);
  });

  it('jitter spans [0, ceiling) with the injected random source', async () => {
    h = harness({ random: () => 0, retryPolicy: { baseDelayMs: 1000 } });
    h.pool.intercept({ path: '/r', method: 'GET' }).reply(502, '').times(3);
    h.pool.intercept({ path: '/r', method: 'GET' }).reply(200, {}, json);
    await h.client.get('/r');
    expect(h.clock.sleeps).toEqual([0, 0, 0]);
  });

  it('honours Retry-After in seconds', async () => {
    h = harness();
    h.pool.intercept({ path: '/r', method: 'GET' }).reply(429, '', { headers: { 'retry-after': '7' } });
    h.pool.intercept({ path: '/r', method: 'GET' }).reply(200, {}, json);
    await h.client.get('/r');
    expect(h.clock.sleeps).toContain(7000);
    expect(h.clock.now()).toBeGreaterThanOrEqual(7000);
  });

  it('honours Retry-After as an HTTP date', async () => {
    h = harness();
    h.clock.t = Date.parse('2026-01-01T00:00:00Z');
    h.pool
      .intercept({ path: '/r', method: 'GET' })
      .reply(503, '', { headers: { 'retry-after': 'Thu, 01 Jan 2026 00:00:12 GMT' } });
    h.pool.intercept({ path: '/r', method: 'GET' }).reply(200, {}, json);
    await h.client.get('/r');
    expect(h.clock.sleeps).toEqual([12_000]);
  });

  it('gives up on a Retry-After beyond the limit with a clear error', async () => {
    h = harness();
    h.pool.intercept({ path: '/r', method: 'GET' }).reply(429, '', { headers: { 'retry-after': '3600' } });
    await expect(h.client.get('/r')).rejects.toMatchObject({
      code: 'ACCORD_API',
      message: expect.stringMatching(/asked to wait 3600 s/),
    });
  });

  it('stops after maxRetries and throws the last ApiError', async () => {
    h = harness({ maxRetries: 3 });
    h.pool
      .intercept({ path: '/r', method: 'GET' })
      .reply(503, apiErrorBody(503, 'ERR_DOWN', 'down'), json)
      .times(4);
    await expect(h.client.get('/r')).rejects.toMatchObject({ status: 503, errorCode: 'ERR_DOWN' });
    expect(h.client.stats.count('GET')).toBe(4);
    expect(h.client.stats.retries).toBe(3);
  });

  it('retries a 500 on idempotent requests, fewer times', async () => {
    h = harness({ retryPolicy: { max500Retries: 2 } });
    h.pool.intercept({ path: '/r', method: 'GET' }).reply(500, '').times(3);
    await expect(h.client.get('/r')).rejects.toMatchObject({ status: 500 });
    expect(h.client.stats.count('GET', 500)).toBe(3);
    h.pool.intercept({ path: '/p', method: 'PUT' }).reply(500, '');
    h.pool.intercept({ path: '/p', method: 'PUT' }).reply(200, { enabled: true }, json);
    await expect(h.client.put('/p', { enabled: true })).resolves.toEqual({ enabled: true });
  });

  it('does not retry other 4xx', async () => {
    h = harness();
    h.pool.intercept({ path: '/r', method: 'GET' }).reply(400, apiErrorBody(400, 'ERR_BAD', 'bad'), json);
    await expect(h.client.get('/r')).rejects.toMatchObject({ status: 400 });
    expect(h.client.stats.retries).toBe(0);
  });

  it('retries connection errors on idempotent requests, then names the origin', async () => {
    h = harness({ maxRetries: 2 });
    h.pool.intercept({ path: '/r', method: 'GET' }).replyWithError(connError('ECONNRESET'));
    h.pool.intercept({ path: '/r', method: 'GET' }).reply(200, { ok: 1 }, json);
    await expect(h.client.get('/r')).resolves.toEqual({ ok: 1 });
    h.pool.intercept({ path: '/d', method: 'DELETE' }).replyWithError(connError('UND_ERR_SOCKET')).times(3);
    const err = await h.client.delete('/d').catch((e) => e);
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(err.message).toContain(ORIGIN);
    expect(err.code).toBe('ACCORD_API_CONNECTION');
    expect(err.transportCode).toBe('UND_ERR_SOCKET');
    // The low-level error is kept as the cause (with the key scrubbed: see redaction.test.ts).
    expect(err.cause).toBeInstanceOf(Error);
    expect(err.cause.code).toBe('UND_ERR_SOCKET');
    expect(h.client.stats.count('DELETE', 'error')).toBe(3);
  });
});

describe('an unreachable service', () => {
  it('says once, at the first retry, that it is retrying', async () => {
    const notices: string[] = [];
    h = harness({ maxRetries: 3, notice: (line) => notices.push(line) });
    h.pool.intercept({ path: '/r', method: 'GET' }).replyWithError(connError('ECONNRESET')).times(2);
    h.pool.intercept({ path: '/r', method: 'GET' }).reply(200, { ok: 1 }, json);
    await expect(h.client.get('/r')).resolves.toEqual({ ok: 1 });
    expect(h.client.stats.retries).toBe(2);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^GET \/r failed \(ECONNRESET\); retrying with backoff .*--deadline 300 s/);
    expect(notices[0]).not.toContain(KEY);
  });

  it('once a request gives up, later requests fail at once instead of each retrying', async () => {
    h = harness({ maxRetries: 2 });
    h.pool.intercept({ path: '/a', method: 'GET' }).replyWithError(connError('ECONNREFUSED')).times(3);
    h.pool.intercept({ path: '/b', method: 'GET' }).reply(200, { ok: 1 }, json);
    await expect(h.client.get('/a')).rejects.toBeInstanceOf(ApiConnectionError);
    const later = (await h.client.get('/b').catch((e) => e)) as ApiConnectionError;
    expect(later).toBeInstanceOf(ApiConnectionError);
    expect(later.code).toBe('ACCORD_API_CONNECTION');
    expect(later.transportCode).toBe('ECONNREFUSED');
    expect((later.cause as { code?: string }).code).toBe('ECONNREFUSED');
    expect(later.message).toContain('an earlier request of this run gave up on it');
    expect(h.client.stats.count('GET', 200)).toBe(0);
    expect(h.client.stats.retries).toBe(2);
  });
});

describe('a base URL that is not the API', () => {
  it('a 404 on the first page of a listing says to check the base URL', async () => {
    h = harness({ baseUrl: `${ORIGIN}/v1` });
    h.pool
      .intercept({ path: '/v1/ip_restrictions?limit=100', method: 'GET' })
      .reply(404, apiErrorBody(404, 'ERR_NOT_FOUND', 'no such path'), json);
    const err = (await collect(h.client.listAll('/ip_restrictions', 'ip_restrictions')).catch(
      (e) => e,
    )) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(404);
    expect(err.cause).toBeInstanceOf(ApiError); // the answer as first reported, before the hint
    expect(err.message).toContain(
      `Check that --api-url / ACCORD_API_URL (${ORIGIN}/v1) is the API's base URL`,
    );
  });
});

describe('TLS failures', () => {
  it('are not retried and say to use http:// or check the certificate, in one line', async () => {
    h = harness();
    const tls = Object.assign(
      new Error(
        '802C0A11E67F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:x.c:350:\n',
      ),
      { code: 'ERR_SSL_WRONG_VERSION_NUMBER' },
    );
    h.pool.intercept({ path: '/r', method: 'GET' }).replyWithError(tls);
    const err = (await h.client.get('/r').catch((e) => e)) as ApiConnectionError;
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(err.message).toContain('http:// URL');
    expect(err.message).not.toContain('\n');
    expect(h.client.stats.retries).toBe(0);
    h.pool.intercept({ path: '/p', method: 'POST' }).replyWithError(connError('DEPTH_ZERO_SELF_SIGNED_CERT'));
    const post = (await h.client.post('/p', {}).catch((e) => e)) as ApiConnectionError;
    expect(post).toBeInstanceOf(ApiConnectionError);
    expect(isOutcomeUnknown(post)).toBe(false);
    expect(post.message).toContain('certificate');
    expect(h.client.stats.retries).toBe(0);
  });

  it('a 200 that is not JSON says to check the API URL', async () => {
    h = harness();
    h.pool.intercept({ path: '/r', method: 'GET' }).reply(200, '<html>hi</html>');
    const err = (await h.client.get('/r').catch((e) => e)) as ApiError;
    expect(err.message).toMatch(/not JSON.*ACCORD_API_URL/);
  });
});

describe('POST is never sent twice', () => {
  it('is retried when the connection was refused', async () => {
    h = harness();
    h.pool.intercept({ path: '/ip_policies', method: 'POST' }).replyWithError(connError('ECONNREFUSED'));
    h.pool.intercept({ path: '/ip_policies', method: 'POST' }).replyWithError(connError('ECONNREFUSED'));
    h.pool.intercept({ path: '/ip_policies', method: 'POST' }).reply(201, { id: 'ipp_1' }, json);
    await expect(h.client.post('/ip_policies', {})).resolves.toEqual({ id: 'ipp_1' });
    expect(h.client.stats.retries).toBe(2);
  });

  it('is retried after a 429: the request was turned away before it was handled', async () => {
    h = harness();
    h.pool
      .intercept({ path: '/ip_policies', method: 'POST' })
      .reply(429, '', { headers: { 'retry-after': '1' } });
    h.pool.intercept({ path: '/ip_policies', method: 'POST' }).reply(201, { id: 'ipp_1' }, json);
    await expect(h.client.post('/ip_policies', {})).resolves.toEqual({ id: 'ipp_1' });
  });

  for (const code of ['ECONNRESET', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']) {
    it(`is not retried after ${code}: the outcome is unknown`, async () => {
      h = harness();
      h.pool.intercept({ path: '/ip_restrictions', method: 'POST' }).replyWithError(connError(code));
      const err = (await h.client
        .post('/ip_restrictions', { type: 'api' })
        .catch((e) => e)) as OutcomeUnknownError;
      expect(err).toBeInstanceOf(OutcomeUnknownError);
      expect(err.code).toBe('ACCORD_OUTCOME_UNKNOWN');
      expect(err.transportCode).toBe(code);
      expect((err.cause as { code?: string }).code).toBe(code);
      expect(isOutcomeUnknown(err)).toBe(true);
      expect(err.code).toBe('ACCORD_OUTCOME_UNKNOWN');
      expect(err.message).toMatch(/may or may not have been applied/);
      expect(h.client.stats.count('POST')).toBe(1);
    });
  }

  for (const status of [500, 502, 503, 504]) {
    it(`is not retried after ${status}: an ApiError with outcomeUnknown`, async () => {
      h = harness();
      h.pool
        .intercept({ path: '/ip_restrictions', method: 'POST' })
        .reply(status, apiErrorBody(status, 'ERR_X', 'oops'), json);
      const err = (await h.client.post('/ip_restrictions', { type: 'api' }).catch((e) => e)) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect(err.outcomeUnknown).toBe(true);
      expect(isOutcomeUnknown(err)).toBe(true);
      expect(h.client.stats.count('POST')).toBe(1);
    });
  }

  it('a definite 4xx is not outcome-unknown', async () => {
    h = harness();
    h.pool.intercept({ path: '/x', method: 'POST' }).reply(400, apiErrorBody(400, 'ERR_BAD', 'bad'), json);
    const err = await h.client.post('/x', {}).catch((e) => e);
    expect(isOutcomeUnknown(err)).toBe(false);
  });
});

describe('listAll', () => {
  const page = (ids: string[], next: string | null) => ({
    ip_policies: ids.map((id) => ({ id })),
    uri: `${ORIGIN}/ip_policies`,
    next_page_uri: next,
  });

  it('asks for 100 per page and follows next_page_uri verbatim', async () => {
    h = harness();
    h.pool
      .intercept({ path: '/ip_policies?limit=100', method: 'GET' })
      .reply(200, page(['a', 'b'], `${ORIGIN}/ip_policies?before_id=b&limit=100&x=%2F`), json);
    h.pool
      .intercept({ path: '/ip_policies?before_id=b&limit=100&x=%2F', method: 'GET' })
      .reply(200, page(['c'], null), json);
    const ids = (await collect(h.client.listAll<{ id: string }>('/ip_policies', 'ip_policies'))).map(
      (x) => x.id,
    );
    expect(ids).toEqual(['a', 'b', 'c']);
    const urls = h.agent
      .getCallHistory()
      ?.calls()
      .map((c) => c.fullUrl);
    expect(urls).toEqual([
      `${ORIGIN}/ip_policies?limit=100`,
      `${ORIGIN}/ip_policies?before_id=b&limit=100&x=%2F`,
    ]);
    expect(h.client.stats.count('GET')).toBe(2);
  });

  it('retries a failed page and yields each item once', async () => {
    h = harness();
    h.pool
      .intercept({ path: '/ip_policies?limit=100', method: 'GET' })
      .reply(200, page(['a'], `${ORIGIN}/ip_policies?before_id=a`), json);
    h.pool.intercept({ path: '/ip_policies?before_id=a', method: 'GET' }).reply(503, '');
    h.pool.intercept({ path: '/ip_policies?before_id=a', method: 'GET' }).reply(200, page(['b'], null), json);
    const ids = (await collect(h.client.listAll<{ id: string }>('/ip_policies', 'ip_policies'))).map(
      (x) => x.id,
    );
    expect(ids).toEqual(['a', 'b']);
  });

  it('refuses a next_page_uri on another origin and never sends the key there', async () => {
    h = harness();
    const evil = h.agent.get('https://evil.test');
    let evilCalled = false;
    evil.intercept({ path: () => true, method: 'GET' }).reply(() => {
      evilCalled = true;
      return { statusCode: 200, data: page([], null), responseOptions: json };
    });
    h.pool
      .intercept({ path: '/ip_policies?limit=100', method: 'GET' })
      .reply(200, page(['a'], 'https://evil.test/ip_policies?before_id=a'), json);
    const seen: string[] = [];
    const err = await (async () => {
      for await (const x of h.client.listAll<{ id: string }>('/ip_policies', 'ip_policies')) seen.push(x.id);
    })().catch((e) => e);
    expect(err).toBeInstanceOf(AccordError);
    expect(err.code).toBe('ACCORD_PAGINATION');
    expect(err.message).toMatch(/another origin \(https:\/\/evil\.test\).*only to https:\/\/api\.test/);
    expect(evilCalled).toBe(false);
    expect(seen).toEqual(['a']);
    // Same host over http is another origin too.
    h.pool
      .intercept({ path: '/ip_policies?limit=100', method: 'GET' })
      .reply(200, page([], 'http://api.test/ip_policies?x=1'), json);
    await expect(collect(h.client.listAll('/ip_policies', 'ip_policies'))).rejects.toMatchObject({
      code: 'ACCORD_PAGINATION',
      message: expect.stringMatching(/another origin/),
    });
  });

  it('refuses a page loop', async () => {
    h = harness();
    h.pool
      .intercept({ path: '/ip_policies?limit=100', method: 'GET' })
      .reply(200, page(['a'], `${ORIGIN}/ip_policies?before_id=a`), json);
    h.pool
      .intercept({ path: '/ip_policies?before_id=a', method: 'GET' })
      .reply(200, page(['b'], `${ORIGIN}/ip_policies?limit=100`), json);
    await expect(collect(h.client.listAll('/ip_policies', 'ip_policies'))).rejects.toMatchObject({
      code: 'ACCORD_PAGINATION',
      message: expect.stringMatching(/already fetched, so the pages loop/),
    });
    expect(h.client.stats.count('GET')).toBe(2);
  });

  it('stops an endless listing at maxPages, after exactly that many pages', async () => {
    h = harness({ maxPages: 3 });
    let cursor = 0;
    // Every page names a new cursor, so no page repeats: only the bound ends it.
    h.pool
      .intercept({ path: (p) => p.startsWith('/ip_policies?'), method: 'GET' })
      .reply(() => {
        cursor += 1;
        return {
          statusCode: 200,
          data: page([`x${cursor}`], `${ORIGIN}/ip_policies?before_id=x${cursor}&limit=100`),
          responseOptions: json,
        };
      })
      .persist();
    const seen: string[] = [];
    const err = await (async () => {
      for await (const x of h.client.listAll<{ id: string }>('/ip_policies', 'ip_policies')) seen.push(x.id);
    })().catch((e) => e);
    expect(err).toBeInstanceOf(PaginationError);
    expect(err.message).toBe(
      'Listing ip_policies stopped after 3 pages (300 objects at most) with the service still giving a ' +
        'next_page_uri. If the account really holds more, pass --max-pages N with a larger N; otherwise the ' +
        'service pages without end: report it with the listing path.',
    );
    expect(seen).toEqual(['x1', 'x2', 'x3']);
    expect(h.client.stats.count('GET')).toBe(3);
  });

  it('with readAhead, asks for the next page before the items of the one before it are read', async () => {
    const local = harness();
    h = local;
    const asked: string[] = [];
    const reply = (path: string, ids: string[], next: string | null) =>
      local.pool.intercept({ path, method: 'GET' }).reply(() => {
        asked.push(path);
        return { statusCode: 200, data: page(ids, next), responseOptions: json };
      });
    reply('/ip_policies?limit=100', ['a', 'b'], `${ORIGIN}/ip_policies?before_id=b`);
    reply('/ip_policies?before_id=b', ['c'], `${ORIGIN}/ip_policies?before_id=c`);
    reply('/ip_policies?before_id=c', ['d'], null);
    const seen: string[] = [];
    for await (const x of h.client.listAll<{ id: string }>('/ip_policies', 'ip_policies', {
      readAhead: true,
    })) {
      // Each page's first item is read once the next page was asked for (the last has none).
      if (x.id === 'a') await vi.waitFor(() => expect(asked).toHaveLength(2), { timeout: 5000 });
      if (x.id === 'c') await vi.waitFor(() => expect(asked).toHaveLength(3), { timeout: 5000 });
      seen.push(x.id);
    }
    expect(seen).toEqual(['a', 'b', 'c', 'd']);
    expect(h.client.stats.count('GET')).toBe(3);
  });

  it.each([false, true])(
    'readAhead %s: a bound or a loop ends the listing after the last page’s items',
    async (readAhead) => {
      h = harness({ maxPages: 2 });
      h.pool
        .intercept({ path: '/ip_policies?limit=100', method: 'GET' })
        .reply(200, page(['a'], `${ORIGIN}/ip_policies?before_id=a`), json);
      h.pool
        .intercept({ path: '/ip_policies?before_id=a', method: 'GET' })
        .reply(200, page(['b'], `${ORIGIN}/ip_policies?before_id=b`), json);
      const seen: string[] = [];
      const err = await (async () => {
        for await (const x of h.client.listAll<{ id: string }>('/ip_policies', 'ip_policies', { readAhead }))
          seen.push(x.id);
      })().catch((e) => e);
      expect(err).toBeInstanceOf(PaginationError);
      expect(err.message).toMatch(/stopped after 2 pages/);
      expect(seen).toEqual(['a', 'b']);
      expect(h.client.stats.count('GET')).toBe(2);
      h.pool
        .intercept({ path: '/ip_policies?limit=100', method: 'GET' })
        .reply(200, page(['a'], `${ORIGIN}/ip_policies?limit=100`), json);
      const again: string[] = [];
      const loop = await (async () => {
        for await (const x of h.client.listAll<{ id: string }>('/ip_policies', 'ip_policies', { readAhead }))
          again.push(x.id);
      })().catch((e) => e);
      expect(loop.message).toMatch(/already fetched, so the pages loop/);
      expect(again).toEqual(['a']);
    },
  );

  it('reads a listing of exactly maxPages pages to its end', async () => {
    h = harness({ maxPages: 2 });
    h.pool
      .intercept({ path: '/ip_policies?limit=100', method: 'GET' })
      .reply(200, page(['a'], `${ORIGIN}/ip_policies?before_id=a`), json);
    h.pool.intercept({ path: '/ip_policies?before_id=a', method: 'GET' }).reply(200, page(['b'], null), json);
    expect((await collect(h.client.listAll<{ id: string }>('/ip_policies', 'ip_policies'))).length).toBe(2);
  });

  it(`bounds a listing at ${MAX_PAGES} pages by default`, async () => {
    h = harness();
    let pages = 0;
    h.pool
      .intercept({ path: (p) => p.startsWith('/ip_policies?'), method: 'GET' })
      .reply(() => {
        pages += 1;
        return {
          statusCode: 200,
          data: page([], `${ORIGIN}/ip_policies?before_id=p${pages}`),
          responseOptions: json,
        };
      })
      .persist();
    await expect(collect(h.client.listAll('/ip_policies', 'ip_policies'))).rejects.toMatchObject({
      code: 'ACCORD_PAGINATION',
      message: expect.stringContaining(`Listing ip_policies stopped after ${MAX_PAGES} pages`),
    });
    expect(pages).toBe(MAX_PAGES);
  });

  it('refuses a page without the list', async () => {
    h = harness();
    h.pool.intercept({ path: '/ip_policies?limit=100', method: 'GET' }).reply(200, { items: [] }, json);
    await expect(collect(h.client.listAll('/ip_policies', 'ip_policies'))).rejects.toMatchObject({
      code: 'ACCORD_PAGINATION',
      message: expect.stringMatching(/without a "ip_policies" list/),
    });
  });
});

describe('stats', () => {
  it('counts requests by method and status, retries and bytes', async () => {
    h = harness();
    h.pool.intercept({ path: '/a', method: 'GET' }).reply(503, '');
    h.pool.intercept({ path: '/a', method: 'GET' }).reply(200, '{"x":1}', json);
    h.pool.intercept({ path: '/b', method: 'POST' }).reply(201, '{"id":"b"}', json);
    await h.client.get('/a');
    await h.client.post('/b', { n: 1 });
    h.clock.t += 1234;
    await h.client.close();
    const s = h.client.stats.snapshot();
    expect(s.requests).toEqual({ GET: { '200': 1, '503': 1 }, POST: { '201': 1 } });
    expect(s.totalRequests).toBe(3);
    expect(s.retries).toBe(1);
    expect(s.bytesSent).toBe('{"n":1}'.length);
    expect(s.bytesReceived).toBe('{"x":1}'.length + '{"id":"b"}'.length);
    expect(s.wallTimeMs).toBeGreaterThanOrEqual(1234);
  });
});

describe('close', () => {
  it('ends a retry wait at once and refuses new requests', async () => {
    // Virtual time that never moves: only close() can end the 120-s wait.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let settled = false;
    const pending = (async () => {
      h = harness({ clock: systemClock });
      h.pool.intercept({ path: '/r', method: 'GET' }).reply(503, '', { headers: { 'retry-after': '120' } });
      return h.client.get('/r').catch((e) => e);
    })().finally(() => {
      settled = true;
    });
    const turns = async (until: () => boolean) => {
      for (let i = 0; i < 10_000 && !until(); i++) await new Promise((r) => setImmediate(r));
    };
    try {
      await turns(() => h?.traces.some((t) => t.startsWith('retry 1/')) ?? false);
      const before = Date.now();
      await h!.client.close();
      await turns(() => settled);
      expect(settled).toBe(true);
      expect(await pending).toBeInstanceOf(ClientClosedError);
      expect(Date.now()).toBe(before);
    } finally {
      vi.useRealTimers();
    }
    await expect(h!.client.get('/r')).rejects.toMatchObject({
      code: 'ACCORD_CLIENT_CLOSED',
      message: expect.stringMatching(/API client was closed/),
    });
  });

  it('does not retry a request the closed dispatcher turned away', async () => {
    h = harness();
    h.pool.intercept({ path: '/r', method: 'GET' }).replyWithError(connError('UND_ERR_CLOSED'));
    await expect(h.client.get('/r')).rejects.toBeInstanceOf(ClientClosedError);
    expect(h.client.stats.retries).toBe(0);
  });
});
