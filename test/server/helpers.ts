import type { RunningServer, ServerOptions } from '../../src/server/index.js';
import { serveSeeded } from '../support/server.js';

export { HOST_CA, HTTPS_EDGE, OFFICE, TCP_EDGE, VPN, WS_ROUTE } from '../support/server.js';

export interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are read field by field
  body: any;
  text: string;
}

export interface Api {
  server: RunningServer;
  /** A header given as null is not sent at all (the defaults included). */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string | null>): Promise<Reply>;
}

/** Starts a server on port 0 with the demo seed and returns a small HTTP helper bound to it. */
export async function startApi(opts: ServerOptions = {}): Promise<Api> {
  const server = await serveSeeded('test-key', opts);
  return {
    server,
    async call(method, path, body, headers = {}) {
      const sent = Object.entries({
        authorization: 'Bearer test-key',
        'service-version': '2',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      }).filter((header): header is [string, string] => header[1] !== null);
      const res = await fetch(path.startsWith('http') ? path : server.url + path, {
        method,
        headers: Object.fromEntries(sent),
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
  };
}
