// Endpoints against accord serve, in-process over real HTTP, where the service's own rules decide: a
// changed url onto a URL another cloud endpoint holds is sent only once that one has moved (else the
// service answers 409), a new endpoint at a URL another one leaves is created once that one has moved,
// a swap is refused before any request, `id:` naming an agent endpoint says what it is (also where
// an endpoint carries the entry's marker), a url change that leaves an endpoint judged by two guards
// is refused, and a plan that opens an endpoint to everyone warns.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import type { RunningServer } from '../../src/server/index.js';
import { accord, listAll, markerOf, type Obj } from '../apply/helpers.js';
import { AGENT_WEB, ALLOWS, SEED_TEXT } from '../server/endpoint-helpers.js';
import { serveSeeded } from '../support/server.js';

const KEY = 'test-key-endpoint-gaps-0123456789';
const POLICY = `    traffic_policy:\n      on_http_request:\n        - actions: [{type: restrict-ips, config: {ip_policies: [${ALLOWS}]}}]\n`;
const OPEN =
  '    traffic_policy:\n      on_http_request:\n        - actions: [{type: add-headers, config: {headers: {x-a: b}}}]\n';

describe('endpoint gaps against accord serve', () => {
  let server: RunningServer;
  const dir = mkdtempSync(join(tmpdir(), 'accord-endpoint-gaps-'));
  beforeAll(async () => {
    const seed = join(dir, 'seed.yaml');
    writeFileSync(seed, SEED_TEXT);
    server = await serveSeeded(KEY, { seed });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (args: string[]) => accord(server.url, KEY, args, { cwd: dir });
  const file = (
    name: string,
    owner: string,
    entries: Record<string, { url: string; id?: string; policy?: string }>,
  ) => {
    const lines = ['version: 1', `owner: ${owner}`, 'cloud_endpoints:'];
    for (const [key, e] of Object.entries(entries)) {
      lines.push(`  ${key}:`, ...(e.id ? [`    id: ${e.id}`] : []), `    url: ${e.url}`);
      lines.push((e.policy ?? POLICY).trimEnd());
    }
    const path = join(dir, name);
    writeFileSync(path, `${lines.join('\n')}\n`);
    return path;
  };
  const unmanaged = async (url: string) => {
    const c = new ApiClient({ baseUrl: server.url, apiKey: KEY });
    const made = await c.post<Obj>('/endpoints', {
      type: 'cloud',
      url,
      traffic_policy: JSON.stringify({
        on_http_request: [{ actions: [{ type: 'add-headers', config: { headers: { a: 'b' } } }] }],
      }),
    });
    await c.close();
    return String(made['id']);
  };
  const urls = async (owner: string) =>
    Object.fromEntries(
      (await listAll(server.url, KEY, '/endpoints', 'endpoints'))
        .filter((e) => markerOf(e)?.owner === owner)
        .map((e) => [markerOf(e)!.key, e['url']]),
    );

  const ids = async (owner: string) =>
    (await listAll(server.url, KEY, '/endpoints', 'endpoints'))
      .filter((e) => markerOf(e)?.owner === owner)
      .map((e) => String(e['id']));

  it('moves a url onto one an adopted endpoint leaves, in that order; refuses a swap before any request', async () => {
    const first = await run([
      'apply',
      '-f',
      file('a.yaml', 'moves', { a: { url: 'https://a.example.com' } }),
      '--auto-approve',
    ]);
    expect(first.code, first.err).toBe(0);
    const held = await unmanaged('https://b.example.com');

    const swap = file('swap.yaml', 'moves', {
      a: { url: 'https://b.example.com' },
      x: { id: held, url: 'https://a.example.com' },
    });
    const refused = await run(['apply', '-f', swap, '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      "2 changes would take one another's places: cloud_endpoints.a the URL https://b.example.com of a cloud endpoint, which cloud_endpoints.x holds, and cloud_endpoints.x the URL https://a.example.com of a cloud endpoint, which cloud_endpoints.a holds",
    );
    expect(await urls('moves')).toEqual({ a: 'https://a.example.com' });

    const chain = file('chain.yaml', 'moves', {
      a: { url: 'https://b.example.com' },
      x: { id: held, url: 'https://c.example.com' },
    });
    const moved = await run(['apply', '-f', chain, '--auto-approve', '--parallelism', '4']);
    expect(moved.code, moved.out + moved.err).toBe(0);
    expect(await urls('moves')).toEqual({ a: 'https://b.example.com', x: 'https://c.example.com' });
    expect((await run(['plan', '-f', chain, '--detailed-exitcode'])).code).toBe(0);
  });

  it('creates an endpoint at a url an adopted endpoint leaves, after it moves; --exclude of the mover leaves both', async () => {
    const held = await unmanaged('https://d.example.com');
    const f = file('create.yaml', 'creates', {
      n: { url: 'https://d.example.com' },
      x: { id: held, url: 'https://e.example.com' },
    });
    const part = await run(['plan', '-f', f, '--exclude', 'cloud_endpoints.x']);
    expect(part.code, part.err).toBe(0);
    expect(part.out).not.toContain('cloud_endpoints.n');
    const made = await run(['apply', '-f', f, '--auto-approve', '--parallelism', '4']);
    expect(made.code, made.out + made.err).toBe(0);
    expect(await urls('creates')).toEqual({ n: 'https://d.example.com', x: 'https://e.example.com' });
    expect((await run(['plan', '-f', f, '--detailed-exitcode'])).code).toBe(0);
  });

  it('id: naming an agent endpoint says it is one, which accord does not manage', async () => {
    file('agent.yaml', 'agents', { web: { id: AGENT_WEB, url: 'https://web.example.com' } });
    const r = await run(['plan', '-f', 'agent.yaml']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      `cloud_endpoints.web (agent.yaml:4:3): id ${AGENT_WEB} is an agent endpoint (https://web.example.com), which accord does not manage`,
    );
    expect(r.err).not.toContain('does not exist');
  });

  it("id: naming an agent endpoint beside the entry's own cloud endpoint says so, before any request", async () => {
    const f = file('mine.yaml', 'mine', { web: { url: 'https://mine.example.com' } });
    expect((await run(['apply', '-f', f, '--auto-approve'])).code).toBe(0);
    const [own] = await ids('mine');
    file('mine.yaml', 'mine', { web: { id: AGENT_WEB, url: 'https://mine.example.com' } });
    const r = await run(['apply', '-f', 'mine.yaml', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      `cloud_endpoints.web (mine.yaml:4:3): id ${AGENT_WEB} is an agent endpoint (https://web.example.com), which accord does not manage`,
    );
    expect(r.err).toContain(
      `This entry's own cloud endpoint is ${own} (it carries the entry's marker): remove id:`,
    );
    expect(r.out + r.err).not.toContain('no longer exists');
  });

  it('refuses, before any request, a url change that leaves the endpoint judged by its old URL and its address', async () => {
    const f = file('guarded.yaml', 'guarded', { admin: { url: 'https://g-old.example.com' } });
    expect((await run(['apply', '-f', f, '--auto-approve'])).code).toBe(0);
    file('guarded.yaml', 'guarded', { admin: { url: 'https://g-new.example.com' } });
    const guards = join(dir, 'guarded-guards.yaml');
    writeFileSync(
      guards,
      [
        'version: 1',
        'guards:',
        "  'https://g-old.example.com': {only_let_in: [203.0.113.0/24]}",
        '  cloud_endpoints.admin: {always_let_in: [203.0.113.0/24]}',
        '',
      ].join('\n'),
    );
    const r = await run(['apply', '-f', 'guarded.yaml', '-f', 'guarded-guards.yaml', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      'guards.cloud_endpoints.admin (guarded-guards.yaml:4:3): judges the endpoint https://g-old.example.com (cloud_endpoints.admin) by its address, as guards.https://g-old.example.com (guarded-guards.yaml:3:3) does by its URL before this plan',
    );
    expect(await urls('guarded')).toEqual({ admin: 'https://g-old.example.com' });
  });

  it('warns of a plan after which everyone reaches an endpoint restricted today', async () => {
    const f = file('open.yaml', 'opens', { admin: { url: 'https://admin.example.com' } });
    expect((await run(['apply', '-f', f, '--auto-approve'])).code).toBe(0);
    file('open.yaml', 'opens', { admin: { url: 'https://admin.example.com', policy: OPEN } });
    const r = await run(['plan', '-f', f]);
    expect(r.code, r.err).toBe(0);
    expect(r.out + r.err).toContain(
      'endpoint https://admin.example.com: everyone would be let through (today: only 203.0.113.0/24): after this plan the traffic policy of cloud_endpoints.admin has no enforced restrict-ips that runs',
    );
  });
});
