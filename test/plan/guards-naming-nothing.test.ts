// A guard never stops guarding without a word (docs/reach.md "Guards"): one by an entry's address that
// no file has is an error of validate at its place (a renamed entry leaves its guard behind), with the
// renamed key as the did-you-mean; one by a URL that no endpoint has, before or after the plan, is an
// error of plan (exit 1), also once an earlier plan moved the endpoint it was written for.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accord } from '../apply/helpers.js';
import { useSeededService } from '../support/server.js';

const KEY = 'guards-nothing-key-0123';
const server = useSeededService(KEY);
const dir = mkdtempSync(join(tmpdir(), 'accord-guards-nothing-'));

function endpointFile(key: string, url: string): string {
  const path = join(dir, 'accord.yaml');
  writeFileSync(
    path,
    [
      'version: 1',
      'owner: nothing',
      'cloud_endpoints:',
      `  ${key}:`,
      `    url: ${url}`,
      '    traffic_policy:',
      '      on_http_request:',
      '        - actions:',
      '            - type: restrict-ips',
      '              config: { allow: [10.0.0.0/8] }',
      '',
    ].join('\n'),
  );
  return path;
}

function guardFile(scope: string): string {
  const path = join(dir, 'guards.yaml');
  writeFileSync(path, `version: 1\nowner: nothing\nguards:\n  ${scope}:\n    only_let_in: [10.0.0.0/8]\n`);
  return path;
}

const run = (args: string[]) => accord(server.url, KEY, args);

describe('a guard by an address no file has', () => {
  it('is an error of validate at its place, with the renamed key', async () => {
    const r = await run([
      'validate',
      '-f',
      endpointFile('shop-eu', 'https://shop.example.com'),
      '-f',
      guardFile('cloud_endpoints.shop'),
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/guards\.yaml:4:3: guards\.cloud_endpoints\.shop: names no entry of the files/);
    expect(r.err).toContain('did you mean cloud_endpoints.shop-eu (https://shop.example.com)?');
  });
  it('names no suggestion when nothing is close', async () => {
    const r = await run([
      'validate',
      '-f',
      endpointFile('shop', 'https://shop.example.com'),
      '-f',
      guardFile('cloud_endpoints.nope'),
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('guards.cloud_endpoints.nope: names no entry of the files');
    expect(r.err).not.toContain('did you mean');
  });
});

describe('a guard by a URL no endpoint has', () => {
  it('is an error of plan (exit 1) at its place', async () => {
    const r = await run([
      'plan',
      '-f',
      endpointFile('shop', 'https://shop.example.com'),
      '-f',
      guardFile('https://nowhere.example.org'),
    ]);
    expect(r.code, r.out + r.err).toBe(1);
    expect(r.err).toMatch(
      /guards\.https:\/\/nowhere\.example\.org \(\S*guards\.yaml:4:3\): no endpoint of the account has the URL/,
    );
  });

  it('judges through the plan that moves the endpoint, and is the error in every later plan', async () => {
    const made = await run([
      'apply',
      '-f',
      endpointFile('shop', 'https://shop.example.com'),
      '--auto-approve',
    ]);
    expect(made.code, made.out + made.err).toBe(0);
    // The plan that moves the endpoint: the guard by its old URL still judges it.
    const moving = await run([
      'plan',
      '-f',
      endpointFile('shop', 'https://store.example.com'),
      '-f',
      guardFile('https://shop.example.com'),
    ]);
    expect(moving.code, moving.out + moving.err).toBe(0);
    const moved = await run([
      'apply',
      '-f',
      endpointFile('shop', 'https://store.example.com'),
      '--auto-approve',
    ]);
    expect(moved.code, moved.out + moved.err).toBe(0);
    // Every later plan: the guard names nothing, and says where the endpoint went.
    const later = await run([
      'plan',
      '-f',
      endpointFile('shop', 'https://store.example.com'),
      '-f',
      guardFile('https://shop.example.com'),
    ]);
    expect(later.code, later.out + later.err).toBe(1);
    expect(later.err).toContain('no endpoint of the account has the URL https://shop.example.com');
    expect(later.err).toContain(
      'Did you mean https://store.example.com (cloud_endpoints.shop, whose url it is now)?',
    );
  });
});
