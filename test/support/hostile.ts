// Services that misbehave the ways a real endpoint (or a wrong --api-url) can: each answers every
// request the same bad way. On 127.0.0.1, port 0; close() ends them and their open connections.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const HOSTILE = [
  'loop', // next_page_uri names the page just fetched
  'xorigin', // next_page_uri on another origin
  'endless', // next_page_uri always names a new cursor
  'huge', // a body without end, as fast as it can go
  'hang', // accepts the connection, never answers
  'stall', // sends the headers, then nothing
  'badjson', // 200 with a body that is not JSON
  'shape', // 200 with JSON that has no list
  'redirect', // 302 to another origin
  'retryafter', // 429 with Retry-After: 1, every time
  'html500', // 500 with an HTML page
  'echo401', // 401 whose body echoes the request's Authorization header
] as const;
export type HostileName = (typeof HOSTILE)[number];

export interface HostileService {
  url: string;
  requests: () => number;
  close: () => Promise<void>;
}

/** The list key the API uses for a collection path: its last segment (`/ip_restrictions`). */
function listKey(req: IncomingMessage): string {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  return path.split('/').filter(Boolean).pop() ?? 'items';
}

function handler(
  name: HostileName,
  origin: () => string,
): (req: IncomingMessage, res: ServerResponse) => void {
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  switch (name) {
    case 'loop':
      return (req, res) => json(res, 200, { [listKey(req)]: [], next_page_uri: `${origin()}${req.url}` });
    case 'xorigin':
      return (req, res) =>
        json(res, 200, { [listKey(req)]: [], next_page_uri: `http://other.invalid${req.url}` });
    case 'endless':
      return (req, res) => {
        const url = new URL(req.url ?? '/', origin());
        url.searchParams.set('cursor', String(Number(url.searchParams.get('cursor') ?? 0) + 1));
        json(res, 200, { [listKey(req)]: [], next_page_uri: url.href });
      };
    case 'huge':
      return (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(1 << 20, 0x20);
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) {}
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
      };
    case 'hang':
      return () => {};
    case 'stall':
      return (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"items": [');
      };
    case 'badjson':
      return (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ip_restrictions": [{"id": ');
      };
    case 'shape':
      return (_req, res) => json(res, 200, { items: [], next_page_uri: null });
    case 'redirect':
      return (req, res) => {
        res.writeHead(302, { location: `http://other.invalid${req.url}` });
        res.end();
      };
    case 'retryafter':
      return (_req, res) =>
        json(res, 429, { error_code: 'ERR_RATE_LIMITED', msg: 'slow down' }, { 'retry-after': '1' });
    case 'html500':
      return (_req, res) => {
        res.writeHead(500, { 'content-type': 'text/html' });
        res.end(
          `<!DOCTYPE html><html><head><title>Internal Server Error</title></head><body>${'<p>oops</p>'.repeat(200)}</body></html>`,
        );
      };
    case 'echo401':
      return (req, res) =>
        json(res, 401, {
          error_code: 'ERR_AUTH',
          msg: `bad credentials: ${req.headers.authorization ?? ''}`,
        });
  }
}

export async function startHostile(name: HostileName): Promise<HostileService> {
  let requests = 0;
  let url = '';
  const handle = handler(name, () => url);
  const server = createServer((req, res) => {
    requests++;
    handle(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
