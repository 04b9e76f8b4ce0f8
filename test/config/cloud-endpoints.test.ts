// cloud_endpoints in the file: each problem of an entry or of its traffic policy at its file, line and
// column, whether the policy is written inline or in a traffic_policy_file (then named in that file).
import { describe, expect, it } from 'vitest';
import { loadDesiredState, type Problem } from '../../src/config/index.js';
import { IPP, problemsOf, Scratch, y } from './helpers.js';

/** A file with one endpoint whose traffic policy is `policy` (lines indented under traffic_policy:). */
const inline = (...policy: string[]) =>
  y(
    'version: 1',
    'ip_policies:',
    '  office: {rules: [{allow: 198.51.100.0/24}]}',
    'cloud_endpoints:',
    '  admin:',
    '    url: https://admin.example.com',
    '    traffic_policy:',
    ...policy.map((l) => `      ${l}`),
  );

const MAIN = y(
  'version: 1',
  'ip_policies:',
  '  office: {rules: [{allow: 198.51.100.0/24}]}',
  'cloud_endpoints:',
  '  admin:',
  '    url: https://admin.example.com',
  '    traffic_policy_file: policies/admin.yaml',
);

interface Case {
  name: string;
  /** The policy's lines: inline under traffic_policy (from line 8), or the whole policy file (from line 1). */
  policy: string[];
  line: number;
  col: number;
  message: RegExp;
}

/** Lines and columns of the inline form; the file form is 7 lines up and 6 columns left. */
const CASES: Case[] = [
  {
    name: 'an unknown phase',
    policy: ['on_http_requests: []'],
    line: 8,
    col: 7,
    message: /unknown field "on_http_requests"; did you mean "on_http_request"\?/,
  },
  {
    name: 'a rule without actions',
    policy: ['on_http_request:', '  - name: x'],
    line: 9,
    col: 11,
    message: /missing required field "actions"/,
  },
  {
    name: 'an expression that is not a string',
    policy: ['on_http_request:', '  - expressions: [1]', '    actions: [{type: deny}]'],
    line: 9,
    col: 25,
    message: /must be a string, not the number 1/,
  },
  {
    name: 'an action without a type',
    policy: ['on_http_request:', '  - actions: [{config: {}}]'],
    line: 9,
    col: 21,
    message: /missing required field "type"/,
  },
  {
    name: 'an unknown restrict-ips field',
    policy: ['on_tcp_connect:', '  - actions: [{type: restrict-ips, config: {alow: [10.0.0.0/8]}}]'],
    line: 9,
    col: 51,
    message: /unknown field "alow"; did you mean "allow"\?/,
  },
  {
    name: 'enforce that is not a boolean',
    policy: [
      'on_tcp_connect:',
      '  - actions: [{type: restrict-ips, config: {enforce: yes, allow: [10.0.0.0/8]}}]',
    ],
    line: 9,
    col: 60,
    message: /must be true or false/,
  },
  {
    name: 'a CIDR not at the lowest address of its range',
    policy: ['on_tcp_connect:', '  - actions: [{type: restrict-ips, config: {allow: [10.1.2.3/16]}}]'],
    line: 9,
    col: 59,
    message: /10\.1\.0\.0\/16/,
  },
  {
    name: 'a CIDR twice in one action',
    policy: [
      'on_tcp_connect:',
      '  - actions: [{type: restrict-ips, config: {allow: [10.0.0.0/8], deny: [10.0.0.0/8]}}]',
    ],
    line: 9,
    col: 79,
    message: /10\.0\.0\.0\/8 is already in allow\[0\] of this action/,
  },
  {
    name: 'an IP policy key the files do not have',
    policy: ['on_tcp_connect:', '  - actions: [{type: restrict-ips, config: {ip_policies: [ofice]}}]'],
    line: 9,
    col: 65,
    message: /"ofice" is not a key of ip_policies \(did you mean office\?\)/,
  },
  {
    name: 'a deny with nothing allowed',
    policy: ['on_tcp_connect:', '  - actions: [{type: restrict-ips, config: {deny: [10.0.0.0/8]}}]'],
    line: 9,
    col: 50,
    message: /denies CIDRs but allows none.*ERR_NGROK_393/,
  },
  {
    // The endpoint would be unrestricted: production refuses the document or lets everyone in.
    name: 'a mistyped restrict-ips',
    policy: ['on_tcp_connect:', '  - actions: [{type: restrict-ip, config: {allow: [10.0.0.0/8]}}]'],
    line: 9,
    col: 28,
    message: /"restrict-ip" is not an action type; did you mean restrict-ips\?/,
  },
  {
    name: 'a mistyped forward-internal',
    policy: ['on_http_request:', '  - actions: [{type: forward-internl, config: {url: https://a.internal}}]'],
    line: 9,
    col: 28,
    message: /"forward-internl" is not an action type; did you mean forward-internal\?/,
  },
];

describe('cloud_endpoints: problems of a traffic policy at their line and column', () => {
  it.each(CASES)('inline: $name', async (c) => {
    const s = new Scratch();
    try {
      const problems = await problemsOf(s, inline(...c.policy));
      expect(located(problems), shown(problems)).toContainEqual({
        file: 'accord.yaml',
        line: c.line,
        col: c.col,
      });
      expect(
        problems.some((p) => c.message.test(p.message)),
        shown(problems),
      ).toBe(true);
    } finally {
      s.remove();
    }
  });

  it.each(CASES)('in a traffic_policy_file: $name', async (c) => {
    const s = new Scratch();
    try {
      s.write('policies/admin.yaml', y(...c.policy));
      const problems = await problemsOf(s, MAIN);
      const at = { file: 'policies/admin.yaml', line: c.line - 7, col: c.col - 6 };
      expect(located(problems), shown(problems)).toContainEqual(at);
      expect(
        problems.some((p) => c.message.test(p.message)),
        shown(problems),
      ).toBe(true);
    } finally {
      s.remove();
    }
  });

  it('an action type far from every known one stays data', async () => {
    const s = new Scratch();
    try {
      s.write(
        'accord.yaml',
        inline('on_http_request:', '  - actions: [{type: my-own-extension, config: {x: 1}}]'),
      );
      const desired = await loadDesiredState('accord.yaml', s.dir);
      expect(desired.cloud_endpoints.map((e) => e.key)).toEqual(['admin']);
    } finally {
      s.remove();
    }
  });

  it('an entry: a URL that is none, both forms of the policy, neither, a traffic_policy_file that is missing or leaves the directory', async () => {
    const s = new Scratch();
    try {
      const problems = await problemsOf(
        s,
        y(
          'version: 1',
          'cloud_endpoints:',
          '  a: {url: admin.example.com, traffic_policy: {}}',
          '  b: {url: https://b.example.com, traffic_policy: {}, traffic_policy_file: p.yaml}',
          '  c: {url: https://c.example.com}',
          '  d: {url: https://d.example.com, traffic_policy_file: missing.yaml}',
          '  e: {url: https://e.example.com, traffic_policy_file: ../out.yaml}',
        ),
      );
      const at = (line: number, message: RegExp) =>
        expect(
          problems.some((p) => p.line === line && message.test(p.message)),
          shown(problems),
        ).toBe(true);
      at(3, /"admin\.example\.com" is not a URL/);
      at(4, /set only one of traffic_policy or traffic_policy_file, not both/);
      at(5, /set exactly one of traffic_policy or traffic_policy_file/);
      at(6, /file "missing\.yaml" not found/);
      at(7, /contains "\.\."/);
    } finally {
      s.remove();
    }
  });

  it('a phase a TCP endpoint does not run, at its key', async () => {
    const s = new Scratch();
    try {
      const problems = await problemsOf(
        s,
        y(
          'version: 1',
          'cloud_endpoints:',
          '  db:',
          '    url: tcp://1.tcp.example.com:20001',
          '    traffic_policy:',
          '      on_http_request: []',
        ),
      );
      expect(shown(problems)).toMatch(
        /^accord\.yaml:6:24 cloud_endpoints\.db\.traffic_policy\.on_http_request: does not run on a tcp endpoint.*ERR_NGROK_2230/,
      );
    } finally {
      s.remove();
    }
  });

  it('two entries with one url, in one file or two', async () => {
    const s = new Scratch();
    try {
      s.write(
        'other.yaml',
        y('version: 1', 'cloud_endpoints:', '  b: {url: https://a.example.com, traffic_policy: {}}'),
      );
      s.write(
        'accord.yaml',
        y('version: 1', 'cloud_endpoints:', '  a: {url: https://a.example.com, traffic_policy: {}}'),
      );
      const problems = await loadDesiredState(['accord.yaml', 'other.yaml'], s.dir).then(
        () => [] as Problem[],
        (err: { problems: Problem[] }) => err.problems,
      );
      expect(shown(problems)).toMatch(
        /^other\.yaml:3:12 cloud_endpoints\.b\.url: "a" already has url https:\/\/a\.example\.com \(at accord\.yaml:3:3\); the service allows one cloud endpoint per URL/,
      );
    } finally {
      s.remove();
    }
  });

  it('a policy file that is not YAML is named at its own line', async () => {
    const s = new Scratch();
    try {
      s.write('policies/admin.yaml', 'on_http_request:\n  - actions: [\n');
      const problems = await problemsOf(s, MAIN);
      expect(
        problems.some((p) => p.file === 'policies/admin.yaml'),
        shown(problems),
      ).toBe(true);
    } finally {
      s.remove();
    }
  });

  it('reads the section: an empty one is written, the document normalized, a JSON policy file read', async () => {
    const s = new Scratch();
    try {
      s.write(
        'p.json',
        JSON.stringify({
          on_tcp_connect: [
            { actions: [{ type: 'restrict-ips', config: { allow: ['2001:DB8::/32'], ip_policies: [IPP] } }] },
          ],
        }),
      );
      s.write(
        'accord.yaml',
        y('version: 1', 'cloud_endpoints:', '  a: {url: https://a.example.com, traffic_policy_file: p.json}'),
      );
      const desired = await loadDesiredState('accord.yaml', s.dir);
      expect(desired.written).toEqual(['cloud_endpoints']);
      expect(desired.cloud_endpoints[0]!.traffic_policy).toEqual({
        on_tcp_connect: [
          { actions: [{ type: 'restrict-ips', config: { allow: ['2001:db8::/32'], ip_policies: [IPP] } }] },
        ],
      });
      s.write('accord.yaml', y('version: 1', 'cloud_endpoints: {}'));
      const empty = await loadDesiredState('accord.yaml', s.dir);
      expect(empty.written).toEqual(['cloud_endpoints']);
      expect(empty.cloud_endpoints).toEqual([]);
    } finally {
      s.remove();
    }
  });
});

function located(problems: readonly Problem[]) {
  return problems.map((p) => ({ file: p.file, line: p.line, col: p.col }));
}

function shown(problems: readonly Problem[]): string {
  return problems.map((p) => `${p.file}:${p.line}:${p.col} ${p.path}: ${p.message}`).join('\n');
}
