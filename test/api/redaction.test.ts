import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiError } from '../../src/api/errors.js';
import { makeRedactor } from '../../src/api/redact.js';
import { apiErrorBody, collect, type Harness, harness, json, KEY, ORIGIN } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.client.close();
  await h?.agent.close();
  h = undefined;
});

function everyTextOf(err: unknown): string[] {
  const e = err as Error;
  return [e.message, e.stack ?? '', JSON.stringify(e), inspect(e, { depth: 10 }), String(e)];
}

describe('the API key never appears', () => {
  it('in errors built from a body that echoes the Authorization header', async () => {
    h = harness();
    const echo = `bad request; headers were {"authorization":"Bearer ${KEY}","service-version":"2"}`;
    h.pool
      .intercept({ path: '/a', method: 'GET' })
      .reply(400, apiErrorBody(400, `ERR_${KEY}`, echo, `op_${KEY}`), json);
    h.pool.intercept({ path: '/b', method: 'GET' }).reply(401, `Authorization: Bearer ${KEY} is not valid`);
    h.pool.intercept({ path: '/c', method: 'POST' }).reply(503, { msg: `upstream saw ${KEY}` }, json);
    const errors = [
      await h.client.get('/a').catch((e) => e),
      await h.client.get('/b').catch((e) => e),
      await h.client.post('/c', {}).catch((e) => e),
    ] as ApiError[];
    for (const err of errors) {
      expect(err).toBeInstanceOf(Error);
      for (const text of everyTextOf(err)) expect(text).not.toContain(KEY);
    }
    expect(errors[0]?.msg).toContain('Bearer [REDACTED]');
    expect(errors[1]?.message).toContain('Bearer [REDACTED] is not valid');
  });

  it('in connection errors, traces, list errors and the client object', async () => {
    h = harness({ maxRetries: 1 });
    const leaky = Object.assign(new Error(`socket hang up while sending Bearer ${KEY}`), {
      code: 'ECONNRESET',
    });
    h.pool.intercept({ path: '/a', method: 'GET' }).replyWithError(leaky).times(2);
    h.pool.intercept({ path: '/b', method: 'POST' }).replyWithError(leaky);
    h.pool
      .intercept({ path: '/l?limit=100', method: 'GET' })
      .reply(200, { l: [], next_page_uri: `https://${KEY}.evil.test/l?key=${KEY}` }, json);
    const errors = [
      await h.client.post('/b', {}).catch((e) => e),
      await collect(h.client.listAll('/l', 'l')).catch((e) => e),
      await h.client.get(`https://evil.test/?${KEY}`).catch((e) => e),
      await h.client.get('/a').catch((e) => e),
      await h.client.get('/after-giving-up').catch((e) => e), // repeats the error of /a
    ];
    for (const err of errors) {
      expect(err).toBeInstanceOf(Error);
      for (const text of everyTextOf(err)) expect(text).not.toContain(KEY);
    }
    expect(h.traces.length).toBeGreaterThan(3);
    for (const line of h.traces) expect(line).not.toContain(KEY);
    expect(inspect(h.client, { depth: 10 })).not.toContain(KEY);
    expect(JSON.stringify(h.client.stats.snapshot())).not.toContain(KEY);
    expect(ORIGIN).not.toContain(KEY);
  });
});

describe('makeRedactor', () => {
  it('removes the key and any bearer token', () => {
    const redact = makeRedactor('abc123');
    expect(redact('x abc123 y abc123')).toBe('x [REDACTED] y [REDACTED]');
    expect(redact('authorization: Bearer other-token, next')).toBe('authorization: Bearer [REDACTED], next');
    expect(redact('"Bearer%20zzz"')).toBe('"Bearer%20[REDACTED]"');
  });
});
