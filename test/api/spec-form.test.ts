// accord itself speaks the spec's form, not the official clients' dialect that `accord serve` also
// accepts: every request of a real plan and apply, recorded on its way to the service over HTTP. The
// one thing it takes from the dialect is the version header's production name, sent beside the spec's.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accord, accordFile, VPN } from '../apply/helpers.js';
import { HTTPS_EDGE, OFFICE, TCP_EDGE, useSeededService, WS_ROUTE } from '../support/server.js';

const KEY = 'spec-form-key-0123456789abcdef';

interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A pass-through HTTP proxy in front of `target` that records every request. */
function recordingProxy(target: () => string, recorded: Recorded[]): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      recorded.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: body.toString(),
      });
      const upstream = new URL(target());
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  });
}

describe('the accord client', () => {
  const server = useSeededService(KEY);
  const recorded: Recorded[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'accord-spec-form-'));
  const proxy = recordingProxy(() => server.url, recorded);
  let proxyUrl = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const address = proxy.address();
    proxyUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => proxy.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** The file: 101 host certificates (more than a page), two restrictions, both modules. */
  function write(version: 1 | 2): string {
    const hosts = Array.from({ length: 101 }, (_, i) => `host-${i}`);
    const restrictions: Parameters<typeof accordFile>[2] =
      version === 1
        ? { dash: { type: 'dashboard' }, api: { type: 'api', policies: [OFFICE, VPN] } }
        : { dash: { type: 'dashboard', enforced: false, policies: [VPN] } };
    const file = join(dir, `accord-${version}.yaml`);
    writeFileSync(
      file,
      accordFile('spec-form', hosts, restrictions) +
        [
          'tcp_edges:',
          `  ${TCP_EDGE}:`,
          `    ip_restriction: {enabled: ${version === 1}, ip_policies: [${version === 1 ? OFFICE : VPN}]}`,
          'https_edges:',
          `  ${HTTPS_EDGE}:`,
          '    routes:',
          `      ${WS_ROUTE}:`,
          `        websocket_tcp_converter: ${version === 1 ? '{enabled: true}' : 'absent'}`,
          '',
        ].join('\n'),
    );
    return file;
  }

  it('sends the spec form: Service-Version (and Ngrok-Version), flat bodies without the path IDs, before_id paging', {
    timeout: 120_000,
  }, async () => {
    for (const version of [1, 2] as const) {
      const run = await accord(proxyUrl, KEY, ['apply', '-f', write(version), '--auto-approve', '--force']);
      expect(run.code, run.err).toBe(0);
    }
    const methods = new Set(recorded.map((r) => r.method));
    expect([...methods].sort()).toEqual(['DELETE', 'GET', 'PATCH', 'POST', 'PUT']);

    for (const r of recorded) {
      expect(r.headers['service-version'], `${r.method} ${r.url}`).toBe('2');
      // The production service's name for the same header, which it needs (DESIGN §6): both, always.
      expect(r.headers['ngrok-version'], `${r.method} ${r.url}`).toBe('2');
      const query = new URL(r.url, 'http://x').searchParams;
      expect([...query.keys()].filter((k) => k !== 'limit' && k !== 'before_id')).toEqual([]);
      if (r.body === '') continue;
      const body = JSON.parse(r.body) as Record<string, unknown>;
      for (const dialect of ['id', 'edge_id', 'module']) {
        expect(body, `${r.method} ${r.url} ${r.body}`).not.toHaveProperty(dialect);
      }
      if (r.method === 'PATCH' && 'ip_policy_ids' in body) expect(body.ip_policy_ids).not.toEqual([]);
    }
    const pages = recorded.filter((r) => r.method === 'GET' && r.url.includes('before_id='));
    expect(pages.some((r) => r.url.startsWith('/ssh_host_certificates?'))).toBe(true);
    const puts = recorded.filter((r) => r.method === 'PUT').map((r) => JSON.parse(r.body));
    expect(puts).toContainEqual({ enabled: true, ip_policy_ids: [OFFICE] });
    expect(puts).toContainEqual({ enabled: false, ip_policy_ids: [VPN] });
    expect(puts).toContainEqual({ enabled: true });
  });
});
