// One endpoint however its URL is spelled (shared/SPEC-endpoints.md: the service keeps `public_url` as
// the URL's identity): scheme and host in any case, the scheme's default port, a trailing `/`. Guards,
// slots and matching compare the normalized URL, and a scheme change is a replace, made before the
// old endpoint goes, because the service keeps an endpoint's scheme.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { endpointUrl } from '../../src/resources/scope.js';
import { accord, listAll } from '../apply/helpers.js';
import { useSeededService } from '../support/server.js';

const KEY = 'url-spellings-key-0123';
const server = useSeededService(KEY);
const dir = mkdtempSync(join(tmpdir(), 'accord-url-spellings-'));

function file(name: string, url: string, allow = '10.0.0.0/8'): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    [
      'version: 1',
      'owner: spellings',
      'ip_policies:',
      '  wide:',
      '    rules:',
      `      - allow: ${allow}`,
      'cloud_endpoints:',
      '  shop:',
      `    url: ${url}`,
      '    traffic_policy:',
      '      on_http_request:',
      '        - actions:',
      '            - type: restrict-ips',
      '              config: { ip_policies: [wide] }',
      '',
    ].join('\n'),
  );
  return path;
}

function guards(scope: string): string {
  const path = join(dir, 'guards.yaml');
  writeFileSync(path, `version: 1\nguards:\n  ${scope}:\n    only_let_in: [10.1.0.0/16]\n`);
  return path;
}

describe('endpointUrl', () => {
  it.each([
    ['https://Shop.Example.com:443', 'https://shop.example.com'],
    ['HTTPS://shop.example.com/', 'https://shop.example.com'],
    ['http://shop.example.com:80', 'http://shop.example.com'],
    ['http://shop.example.com:443', 'http://shop.example.com:443'],
    ['tls://shop.example.com:443', 'tls://shop.example.com'],
    ['tcp://1.tcp.example.com:20001', 'tcp://1.tcp.example.com:20001'],
    ['https://shop.example.com:8443/', 'https://shop.example.com:8443'],
    ['not a url', 'not a url'],
  ])('%s is %s', (text, url) => {
    expect(endpointUrl(text)).toBe(url);
  });
});

describe('URL spellings against the service', () => {
  it('a live endpoint is the entry whose url is another spelling of it: no change, no 409', async () => {
    const made = await accord(server.url, KEY, [
      'apply',
      '-f',
      file('a.yaml', 'https://shop.example.com'),
      '--auto-approve',
    ]);
    expect(made.code, made.out + made.err).toBe(0);
    const again = await accord(server.url, KEY, [
      'plan',
      '-f',
      file('b.yaml', 'https://Shop.EXAMPLE.com:443/'),
    ]);
    expect(again.code, again.out + again.err).toBe(0);
    expect(again.out).toContain('No changes.');
  });

  it.each(['https://shop.example.com', 'https://SHOP.example.com:443', 'HTTPS://shop.example.com/'])(
    'a guard spelled %s holds an entry spelled another way',
    async (scope) => {
      const r = await accord(server.url, KEY, [
        'plan',
        '-f',
        file('c.yaml', 'https://Shop.example.com:443'),
        '-f',
        guards(scope),
      ]);
      expect(r.code, r.out + r.err).toBe(3);
      expect(r.out + r.err).toMatch(
        /guards\.https:\/\/shop\.example\.com \(\S*guards\.yaml:3\): endpoint https:\/\/shop\.example\.com: only_let_in/,
      );
    },
  );

  it('a scheme change is a replace that says why, made before the old endpoint goes', async () => {
    const plan = await accord(server.url, KEY, [
      'plan',
      '-f',
      file('d.yaml', 'http://shop.example.com'),
      '--json',
    ]);
    expect(plan.code, plan.err).toBe(0);
    const change = (JSON.parse(plan.out) as { changes: Record<string, unknown>[] }).changes.find(
      (c) => c['address'] === 'cloud_endpoints.shop',
    )!;
    expect(change['action']).toBe('replace');
    expect(change['replace_order']).toBe('create_before_delete');
    expect(change['reason_codes']).toContainEqual({ code: 'immutable', field: 'url', part: 'scheme' });
    const text = await accord(server.url, KEY, ['plan', '-f', file('d.yaml', 'http://shop.example.com')]);
    expect(text.out).toContain('the scheme of its url cannot change in place');
    const applied = await accord(server.url, KEY, [
      'apply',
      '-f',
      file('d.yaml', 'http://shop.example.com'),
      '--auto-approve',
    ]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    const urls = (await listAll(server.url, KEY, '/endpoints', 'endpoints')).map((e) => e['url']);
    expect(urls).toContain('http://shop.example.com');
    expect(urls).not.toContain('https://shop.example.com');
  });
});
