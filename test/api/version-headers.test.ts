// Every request accord sends names the API version twice: `Service-Version: 2` as the spec says and
// `Ngrok-Version: 2` as the production service wants it (it refuses a request without it, 218).
// A recording proxy in front of the local service sees every request of apply, plan, drift and
// export of the example file.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/cli.js';
import { EXAMPLE, useSeededService } from '../support/server.js';

const KEY = 'version-headers-key-0123456789';

describe('the version headers of every request', () => {
  const service = useSeededService(KEY);
  const seen: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];
  let proxy: Server;
  let proxyUrl = '';

  beforeAll(async () => {
    proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(
            ([name]) => !['host', 'connection', 'content-length'].includes(name),
          ),
        ) as Record<string, string>;
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        fetch(service.url + (req.url ?? ''), { method: req.method ?? 'GET', headers, body }).then(
          async (answer) => {
            const text = await answer.text();
            res.writeHead(answer.status, Object.fromEntries(answer.headers));
            res.end(text.replaceAll(service.url, proxyUrl));
          },
          (err: unknown) => {
            res.writeHead(502);
            res.end(String(err));
          },
        );
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

  it('carry both Service-Version: 2 and Ngrok-Version: 2, for every method and command', async () => {
    const env = { ACCORD_API_KEY: KEY, ACCORD_API_URL: proxyUrl };
    const apply = await runMain(['apply', '-f', EXAMPLE, '--auto-approve'], env);
    expect(apply.err).toBe('');
    expect(apply.code).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'accord-headers-'));
    const exported = join(dir, 'exported.yaml');
    for (const args of [
      ['plan', '-f', EXAMPLE],
      ['drift', '-f', EXAMPLE],
      ['export', '-o', exported],
    ]) {
      const run = await runMain(args, env);
      expect(run.err).not.toContain('Error');
      expect(run.code).toBe(0);
    }
    // A file of its own, changed and then emptied: PATCH and DELETE too.
    const file = join(dir, 'accord.yaml');
    const policy = (description: string) =>
      'version: 1\nowner: headers\nip_policies:\n  p:\n' +
      `    description: ${description}\n    rules:\n      - allow: 10.0.0.0/8\n`;
    for (const text of [policy('one'), policy('two'), 'version: 1\nowner: headers\n']) {
      writeFileSync(file, text);
      const run = await runMain(['apply', '-f', file, '--auto-approve'], env);
      expect(run.err).toBe('');
    }
    const methods = new Set(seen.map((r) => r.method));
    expect([...methods].sort()).toEqual(['DELETE', 'GET', 'PATCH', 'POST', 'PUT']);
    expect(seen.length).toBeGreaterThan(20);
    const without = seen.filter(
      (r) => r.headers['service-version'] !== '2' || r.headers['ngrok-version'] !== '2',
    );
    expect(without).toEqual([]);
  });
});
