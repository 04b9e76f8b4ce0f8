import type { RunningServer, ServerOptions } from '../../src/server/index.js';
import { serveSeeded } from '../support/server.js';

export const OFFICE = 'ipp_2demoOffice0000000000000000';
export const VPN = 'ipp_2demoVpn0000000000000000000';
export const HOST_CA = 'sshca_2demoHostCA0000000000000000';
export const TCP_EDGE = 'edgtcp_2demoDb00000000000000000000';
export const HTTPS_EDGE = 'edghts_2demoWeb0000000000000000000';
export const WS_ROUTE = 'edghtsrt_2demoWebSocket0000000000000';

export interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are read field by field
  body: any;
  text: string;
}

export interface Api {
  server: RunningServer;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
}

/** Starts a server on port 0 with the demo seed and returns a small HTTP helper bound to it. */
export async function startApi(opts: ServerOptions = {}): Promise<Api> {
  const server = await serveSeeded('test-key', opts);
  return {
    server,
    async call(method, path, body, headers = {}) {
      const res = await fetch(path.startsWith('http') ? path : server.url + path, {
        method,
        headers: {
          authorization: 'Bearer test-key',
          'service-version': '2',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
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
