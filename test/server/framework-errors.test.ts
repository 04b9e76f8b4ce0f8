// What the HTTP framework and Node.js refuse on their own (a path that is not percent-encoding, an ID
// longer than the router matches, a request that is not HTTP) is answered in the service's one error
// body shape (DESIGN §7), like every other error.
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, startApi } from './helpers.js';

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.server.close());

/** The service's error body: exactly these members, the status repeated, an operation ID. */
function expectErrorBody(status: number, body: unknown, code?: string): void {
  expect(body).toEqual({
    error_code: code ?? expect.stringMatching(/^ERR_[A-Z_]+$/),
    status_code: status,
    msg: expect.any(String),
    details: { operation_id: expect.stringMatching(/^op_/) },
  });
}

/** Sends raw bytes on a fresh connection and returns everything the server answers before it closes. */
function rawRequest(text: string): Promise<string> {
  const { port, hostname } = new URL(api.server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    let answer = '';
    socket.on('data', (d) => {
      answer += d;
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

function parseRaw(answer: string): { status: number; body: unknown; contentType: string | undefined } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const contentType = /^content-type: (.+)$/im.exec(head)?.[1];
  return { status, body: JSON.parse(body), contentType };
}

describe("the framework's own errors", () => {
  it('a path that is not valid percent-encoding is a 400 ERR_INVALID_REQUEST', async () => {
    for (const path of ['/ip_restrictions/%zz', '/ip_restrictions/%E0%A4%A', '/ip_policies/%']) {
      const r = await api.call('GET', path);
      expect([path, r.status]).toEqual([path, 400]);
      expectErrorBody(400, r.body, 'ERR_INVALID_REQUEST');
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
  });

  it('an ID longer than any ID is a 404 ERR_NOT_FOUND, for every method', async () => {
    const id = `ipx_${'a'.repeat(200)}`;
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const r = await api.call(method, `/ip_restrictions/${id}`, method === 'PATCH' ? {} : undefined);
      expect([method, r.status]).toEqual([method, 404]);
      expectErrorBody(404, r.body, 'ERR_NOT_FOUND');
    }
  });

  it('a request Node.js cannot parse gets a whole HTTP answer with the error body, then the connection closes', async () => {
    const garbage = parseRaw(await rawRequest('GARBAGE\r\n\r\n'));
    expect(garbage.status).toBe(400);
    expect(garbage.contentType).toBe('application/json; charset=utf-8');
    expectErrorBody(400, garbage.body, 'ERR_INVALID_REQUEST');

    const headers = parseRaw(
      await rawRequest(`GET / HTTP/1.1\r\nHost: x\r\nX: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expectErrorBody(400, headers.body, 'ERR_INVALID_REQUEST');
    expect((headers.body as { msg: string }).msg).toBe('the request headers are too large');

    // Content-Length and Transfer-Encoding together: request smuggling, refused by the parser.
    const smuggled = parseRaw(
      await rawRequest(
        'POST /ip_policies HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer test-key\r\nService-Version: 2\r\n' +
          'Content-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
      ),
    );
    expectErrorBody(400, smuggled.body, 'ERR_INVALID_REQUEST');
  });

  it("the body parser's refusals keep the shape", async () => {
    const bad = await api.call('POST', '/ip_policies', '{"description":');
    expectErrorBody(400, bad.body, 'ERR_INVALID_JSON');
    const huge = await api.call('POST', '/ip_policies', { description: 'x'.repeat(200_000) });
    expectErrorBody(413, huge.body, 'ERR_BODY_TOO_LARGE');
    const plain = await api.call('POST', '/ip_policies', '{}', { 'content-type': 'text/plain' });
    expectErrorBody(415, plain.body, 'ERR_UNSUPPORTED_MEDIA_TYPE');
  });

  it('any path at all, any method: an error is always the error body with its status', async () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9_%.~-]{0,120}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PATCH', 'PUT', 'DELETE'),
        fc.constantFrom('ip_restrictions', 'ip_policies', 'edges/tcp', 'nowhere'),
        segment,
        fc.option(segment, { nil: undefined }),
        async (method, collection, a, b) => {
          const path = `/${collection}/${a}${b === undefined ? '' : `/${b}`}`;
          const r = await api.call(method, path, ['POST', 'PATCH', 'PUT'].includes(method) ? {} : undefined);
          if (r.status < 400) return;
          expectErrorBody(r.status, r.body);
        },
      ),
      { numRuns: 150 },
    );
  });
});
