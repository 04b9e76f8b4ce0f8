// The lockout refusal of an endpoint names the change that shuts it out (docs/reach.md "The lockout
// guard on endpoints"): the new account-wide endpoints restriction, at its file:line, when the
// endpoint's own traffic policy still lets addresses in; the traffic policy when it is the one.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accord } from '../apply/helpers.js';
import { useSeededService } from '../support/server.js';

const KEY = 'lockout-blame-key-0123';
const server = useSeededService(KEY);
const dir = mkdtempSync(join(tmpdir(), 'accord-lockout-blame-'));

function file(o: { restriction?: string; endpointNames: string }): string {
  const path = join(dir, 'accord.yaml');
  const lines = [
    'version: 1',
    'owner: blame',
    'ip_policies:',
    '  office:',
    '    rules:',
    '      - allow: 10.0.0.0/8',
    '  elsewhere:',
    '    rules:',
    '      - allow: 192.0.2.0/24',
  ];
  if (o.restriction)
    lines.push(
      'ip_restrictions:',
      '  ep:',
      '    type: endpoints',
      '    enforced: true',
      `    ip_policies: [${o.restriction}]`,
    );
  lines.push(
    'cloud_endpoints:',
    '  shop:',
    '    url: https://shop.example.com',
    '    traffic_policy:',
    '      on_http_request:',
    '        - actions:',
    '            - type: restrict-ips',
    `              config: { ip_policies: [${o.endpointNames}] }`,
    '',
  );
  writeFileSync(path, lines.join('\n'));
  return path;
}

describe('the lockout refusal of an endpoint', () => {
  it('names the new endpoints restriction at its place when that shuts the endpoint out', async () => {
    const made = await accord(server.url, KEY, [
      'apply',
      '-f',
      file({ endpointNames: 'office' }),
      '--auto-approve',
    ]);
    expect(made.code, made.out + made.err).toBe(0);
    const r = await accord(server.url, KEY, [
      'plan',
      '-f',
      file({ restriction: 'elsewhere', endpointNames: 'office' }),
      '--json',
    ]);
    expect(r.code, r.err).toBe(3);
    const refusal = (JSON.parse(r.out) as { unsafe_codes: Record<string, unknown>[] }).unsafe_codes.find(
      (c) => c['code'] === 'locked_out',
    )!;
    expect(refusal).toMatchObject({
      scope: 'https://shop.example.com',
      cause: 'endpoints_restriction',
      source: 'ip_restrictions.ep',
      policies: ['ip_policies.elsewhere'],
      at: { line: 11 },
    });
    const text = await accord(server.url, KEY, [
      'plan',
      '-f',
      file({ restriction: 'elsewhere', endpointNames: 'office' }),
    ]);
    expect(text.out).toMatch(
      /the account-wide endpoints restriction ip_restrictions\.ep \(\S*accord\.yaml:11\)/,
    );
    expect(text.out).not.toContain('its traffic policy names');
  });

  it('names the traffic policy when that is what shuts the endpoint out', async () => {
    const r = await accord(server.url, KEY, [
      'plan',
      '-f',
      file({ restriction: 'office', endpointNames: 'elsewhere' }),
      '--json',
    ]);
    expect(r.code, r.err).toBe(3);
    const refusal = (JSON.parse(r.out) as { unsafe_codes: Record<string, unknown>[] }).unsafe_codes.find(
      (c) => c['code'] === 'locked_out',
    )!;
    expect(refusal['cause']).toBeUndefined();
    expect(refusal['source']).toBe('cloud_endpoints.shop');
  });
});
