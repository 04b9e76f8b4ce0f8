// A service whose next_page_uri never ends: `accord plan` stops the listing at --max-pages with one
// clear error instead of following it forever, and refuses a --max-pages that is not a page count.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/cli.js';

const KEY = 'test-key-max-pages-0123456789';

describe('accord plan against a service that pages without end', () => {
  let server: Server;
  let url = '';
  let certificatePages = 0;
  const dir = mkdtempSync(join(tmpdir(), 'accord-max-pages-'));
  const file = join(dir, 'accord.yaml');
  writeFileSync(file, 'version: 1\nowner: pages\n');

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', url).pathname;
      const listKey = path.split('/').filter(Boolean).join('_');
      // Every kind lists empty, except SSH host certificates: each page names a new cursor.
      const endless = listKey === 'ssh_host_certificates';
      if (endless) certificatePages += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          [listKey]: [],
          uri: `${url}${path}`,
          next_page_uri: endless ? `${url}${path}?before_id=c${certificatePages}&limit=100` : null,
        }),
      );
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((ok) => server.close(ok));
  });

  it('stops at --max-pages with one line saying what to do', async () => {
    certificatePages = 0;
    const r = await runMain(['plan', '-f', file, '--max-pages', '7'], {
      ACCORD_API_URL: url,
      ACCORD_API_KEY: KEY,
    });
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'Error: Listing ssh_host_certificates stopped after 7 pages (700 objects at most) with the service ' +
        'still giving a next_page_uri. If the account really holds more, pass --max-pages N with a larger N; ' +
        'otherwise the service pages without end: report it with the listing path.\n',
    );
    expect(certificatePages).toBe(7);
  });

  it('refuses a --max-pages that is not a whole number of at least 1, before any request', async () => {
    for (const bad of ['0', '-3', '1.5']) {
      certificatePages = 0;
      const r = await runMain(['plan', '-f', file, '--max-pages', bad], {
        ACCORD_API_URL: url,
        ACCORD_API_KEY: KEY,
      });
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/^Error: --max-pages must be a whole number of at least 1, got \S+\.\n$/);
      expect(certificatePages).toBe(0);
    }
    const word = await runMain(['plan', '-f', file, '--max-pages', 'many'], {
      ACCORD_API_URL: url,
      ACCORD_API_KEY: KEY,
    });
    expect(word.err).toBe('Error: --max-pages must be a number, got "many".\n');
    expect(certificatePages).toBe(0);
  });
});
