// `guards:` in the file (DESIGN §1 "Guards"): read into canonical CIDRs, the `_file` forms read like
// allow_file, and the checks over several files.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadDesiredState, type Problem } from '../../src/config/index.js';
import { IPP, Scratch, y } from './helpers.js';

let scratch: Scratch;
beforeEach(() => {
  scratch = new Scratch();
});
afterEach(() => scratch.remove());

async function load(files: Record<string, string>, paths = Object.keys(files)) {
  for (const [name, text] of Object.entries(files)) scratch.write(name, text);
  return loadDesiredState(paths, scratch.dir);
}

async function problems(files: Record<string, string>, paths = Object.keys(files)): Promise<string[]> {
  const err = await load(files, paths).catch((e: unknown) => e);
  if (!(err instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(err)}`);
  return err.problems.map((p: Problem) => `${p.file}:${p.line}:${p.col} ${p.path}: ${p.message}`);
}

const EDGE = 'edgtcp_2demoDb00000000000000000000';

describe('guards in the file', () => {
  it('reads each scope with canonical CIDRs, its _file forms added (comments, blank lines, CRLF)', async () => {
    const s = await load(
      {
        'accord.yaml': y(
          'version: 1',
          'tcp_edges:',
          `  ${EDGE}: {ip_restriction: {ip_policies: [${IPP}]}}`,
          'guards:',
          '  dashboard:',
          '    enforced: true',
          '    always_let_in: [198.51.100.0/24, "2001:DB8::/32"]',
          '    only_let_in_file: cidrs/only.txt',
          '    only_let_in: [10.0.0.0/8]',
          `  tcp_edges.${EDGE}: {always_let_in_file: cidrs/ci.txt}`,
          '  all: {only_let_in: []}',
        ),
        'cidrs/only.txt': '# the office\r\n198.51.100.0/24  # HQ\r\n\r\n2001:db8:0:0::/32\r\n',
        'cidrs/ci.txt': '203.0.113.7/32\n',
      },
      ['accord.yaml'],
    );
    expect(s.guards?.map(({ loc, ...g }) => [g, loc.line])).toEqual([
      [
        {
          scope: 'dashboard',
          enforced: true,
          always_let_in: ['198.51.100.0/24', '2001:db8::/32'],
          only_let_in: ['10.0.0.0/8', '198.51.100.0/24', '2001:db8::/32'],
        },
        5,
      ],
      [{ scope: `tcp_edges.${EDGE}`, enforced: false, always_let_in: ['203.0.113.7/32'] }, 10],
      [{ scope: 'all', enforced: false, always_let_in: [], only_let_in: [] }, 11],
    ]);
  });

  it('reports a CIDR not written with its lowest address, in the list and in a file (without echoing it)', async () => {
    const found = await problems(
      {
        'accord.yaml': y(
          'version: 1',
          'guards:',
          '  api:',
          '    only_let_in: [10.1.2.3/16]',
          '    always_let_in_file: ci.txt',
        ),
        'ci.txt': '203.0.113.0/24\nsecret-looking-thing\n',
      },
      ['accord.yaml'],
    );
    expect(found).toEqual([
      'accord.yaml:4:19 guards.api.only_let_in[0]: "10.1.2.3/16" is not the lowest address of its range; write 10.1.0.0/16',
      'accord.yaml:5:25 guards.api.always_let_in_file: file "ci.txt" line 2 is not a CIDR range such as 203.0.113.0/24 or 2001:db8::/32 (one CIDR per line, # comments)',
    ]);
  });

  it('refuses an unknown scope, an unknown field and an empty guard, as the schema says', async () => {
    const found = await problems({
      'accord.yaml': y(
        'version: 1',
        'guards:',
        '  dashbord: {enforced: true}',
        '  api: {only: []}',
        '  agent: {}',
      ),
    });
    expect(found).toHaveLength(3);
    expect(found[0]).toMatch(/^accord.yaml:3:3 guards.dashbord/);
    expect(found[1]).toMatch(/^accord.yaml:4:9 guards.api.only/);
    expect(found[2]).toMatch(/^accord.yaml:5:10 guards.agent/);
  });

  it('a scope guarded in two files is an error at both places, each naming the other', async () => {
    const found = await problems({
      'policy.yaml': y('version: 1', 'guards:', '  dashboard: {enforced: true}'),
      'guards.yaml': y('version: 1', 'guards:', '  all: {enforced: true}', '  dashboard: {only_let_in: []}'),
    });
    expect(found).toEqual([
      "policy.yaml:3:3 guards.dashboard: is also guarded at guards.yaml:4:3; a scope's guard is defined in one file only (files never merge guards): keep one of them",
      "guards.yaml:4:3 guards.dashboard: is also guarded at policy.yaml:3:3; a scope's guard is defined in one file only (files never merge guards): keep one of them",
    ]);
  });

  it('an endpoint guarded by its address and by its URL is guarded twice: said at the later guard', async () => {
    const endpoints = y(
      'version: 1',
      'cloud_endpoints:',
      '  admin:',
      '    url: https://admin.example.com',
      '    traffic_policy: {on_http_request: [{actions: [{type: restrict-ips, config: {allow: [10.0.0.0/8]}}]}]}',
      '  app:',
      '    url: https://app.example.com',
      '    traffic_policy: {on_http_request: [{actions: [{type: restrict-ips, config: {allow: [10.0.0.0/8]}}]}]}',
    );
    const message = (at: string, as: string) =>
      `guards the endpoint https://admin.example.com, which is also guarded at ${at} as ${as}; an endpoint's guard is defined once, by its URL or by its address (guards never merge): keep one of them`;
    expect(
      await problems({
        'accord.yaml': `${endpoints}${y(
          'guards:',
          '  cloud_endpoints.admin: {enforced: true}',
          '  https://app.example.com: {enforced: true}',
          '  "https://admin.example.com": {only_let_in: [10.0.0.0/8]}',
        )}`,
      }),
    ).toEqual([
      `accord.yaml:12:3 guards.https://admin.example.com: ${message('accord.yaml:10:3', 'cloud_endpoints.admin')}`,
    ]);
    expect(
      await problems({
        'endpoints.yaml': endpoints,
        'a.yaml': y('version: 1', 'guards:', '  https://admin.example.com: {enforced: true}'),
        'b.yaml': y('version: 1', 'guards:', '  cloud_endpoints.admin: {only_let_in: [10.0.0.0/8]}'),
      }),
    ).toEqual([
      `b.yaml:3:3 guards.cloud_endpoints.admin: ${message('a.yaml:3:3', 'https://admin.example.com')}`,
    ]);
    // Each endpoint guarded once, one by its address and one by its URL: loads.
    const s = await load({
      'endpoints.yaml': endpoints,
      'g.yaml': y(
        'version: 1',
        'guards:',
        '  cloud_endpoints.admin: {enforced: true}',
        '  https://app.example.com: {enforced: true}',
      ),
    });
    expect(s.guards?.map((g) => g.scope)).toEqual(['cloud_endpoints.admin', 'https://app.example.com']);
  });

  it('a guard on a TCP edge the files do not name is an error; named in another file, it loads', async () => {
    const guard = y('version: 1', 'guards:', `  tcp_edges.${EDGE}: {enforced: true}`);
    expect(await problems({ 'guards.yaml': guard })).toEqual([
      `guards.yaml:3:3 guards.tcp_edges.${EDGE}: guards the TCP edge ${EDGE}, which no file names under tcp_edges; accord reads only the modules the files name, so it could not check this guard. Add tcp_edges.${EDGE}.ip_restriction (its policies, or "absent"), or guard another scope`,
    ]);
    const s = await load({
      'guards.yaml': guard,
      'edges.yaml': y('version: 1', 'tcp_edges:', `  ${EDGE}: {ip_restriction: absent}`),
    });
    expect(s.guards?.map((g) => g.scope)).toEqual([`tcp_edges.${EDGE}`]);
  });

  it('allow_file reads CRLF lines with comments as the guards do', async () => {
    const s = await load(
      {
        'accord.yaml': y('version: 1', 'ip_policies:', '  office:', '    rules: [{allow_file: a.txt}]'),
        'a.txt': '# office\r\n10.0.0.0/8 # HQ\r\n',
      },
      ['accord.yaml'],
    );
    expect(s.ip_policy_rules.map((r) => r.cidr)).toEqual(['10.0.0.0/8']);
  });

  it('the files a guard names count in the digest', async () => {
    const files = {
      'accord.yaml': y('version: 1', 'guards:', '  api: {only_let_in_file: only.txt}'),
      'only.txt': '10.0.0.0/8\n',
    };
    const first = await load(files, ['accord.yaml']);
    const second = await load({ ...files, 'only.txt': '10.0.0.0/9\n' }, ['accord.yaml']);
    expect(second.digest).not.toBe(first.digest);
  });
});
