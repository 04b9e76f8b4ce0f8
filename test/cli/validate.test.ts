import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Io } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { loadDesiredState } from '../../src/config/index.js';
import { REPO, Scratch, y } from '../config/helpers.js';
import { entriesByKind, kindCounts } from '../support/kinds.js';

const CLI = join(REPO, 'bin/accord.js');
const scratch = new Scratch();

/** The entries of each kind examples/accord.yaml holds (a kind added since holds its own too). */
const EXAMPLE_ENTRIES = {
  ip_policy: 1,
  ip_policy_rule: 5,
  ip_restriction: 2,
  certificate_authority: 1,
  ssh_host_certificate: 3,
  cloud_endpoint: 1,
  tcp_edge_ip_restriction: 1,
  websocket_tcp_converter: 2,
};
afterAll(() => scratch.remove());

/** The built CLI as a process (npm test builds dist/ first). */
function accord(args: string[], cwd = REPO) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 20_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('accord validate (process)', () => {
  it('exits 0 with a one-line summary for the example', async () => {
    const r = accord(['validate', '-f', 'examples/accord.yaml']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // Every registered kind is counted, 0 included, in registry order.
    const example = await loadDesiredState('examples/accord.yaml', REPO);
    expect(entriesByKind(example)).toMatchObject(EXAMPLE_ENTRIES);
    expect(r.stdout).toBe(
      `examples/accord.yaml is valid: ${kindCounts(example)}; owner "platform"; ` +
        'metadata budget: 3914 bytes left at the tightest (ip_restrictions.office-dashboard).\n',
    );
    // The README quotes this line for the example run from its own directory.
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    expect(readme).toContain(`\n${r.stdout.replace(/^examples\//, '')}`);
  });

  it('exits 1 and prints every problem as FILE:LINE:COL: path: message, without a stack', () => {
    scratch.write(
      'bad.yaml',
      y('version: 1', 'ip_restrictions:', '  a: {type: dashbord, enforce: true, ip_policies: [ipp_1]}'),
    );
    for (const extra of [[], ['--verbose']]) {
      const r = accord(['validate', '-f', 'bad.yaml', ...extra], scratch.dir);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        [
          'bad.yaml:3:13: ip_restrictions.a.type: "dashbord" is not allowed; use one of: dashboard, api, agent, endpoints; did you mean "dashboard"?',
          'bad.yaml:3:23: ip_restrictions.a.enforce: unknown field "enforce"; did you mean "enforced"? (it is required here)',
          'bad.yaml: 2 problems found; fix them and run accord validate again.',
          '',
        ].join('\n'),
      );
    }
  });

  it('reads accord.yaml in the working directory by default', () => {
    const dir = new Scratch();
    try {
      let r = accord(['validate'], dir.dir);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        'accord.yaml:1:1: file not found; write one with accord init (a starting file) or accord export (one that adopts the account as it is), or name another with -f FILE\n' +
          'accord.yaml: 1 problem found; fix it and run accord validate again.\n',
      );
      dir.write('accord.yaml', '# nothing yet\n');
      r = accord(['validate'], dir.dir);
      expect(r.stderr).toBe(
        'accord.yaml:1:1: the file is empty; start it with "version: 1" and "owner: NAME", or write a starting file with accord init (accord schema prints every field)\n' +
          'accord.yaml: 1 problem found; fix it and run accord validate again.\n',
      );
      dir.write('accord.yaml', 'version: 1\n');
      r = accord(['validate'], dir.dir);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^accord\.yaml is valid: 0 IP policies, 0 IP policy rules, 0 IP restrictions/);
    } finally {
      dir.remove();
    }
  });

  it('never echoes the content of a referenced file', () => {
    scratch.write(
      'secret.pem',
      '-----BEGIN PRIVATE KEY-----\nTOPSECRETMATERIAL\n-----END PRIVATE KEY-----\n',
    );
    scratch.write(
      'ca.yaml',
      y('version: 1', 'certificate_authorities:', '  root: {ca_pem_file: secret.pem}'),
    );
    const r = accord(['validate', '-f', 'ca.yaml'], scratch.dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /ca\.yaml:3:23: certificate_authorities\.root\.ca_pem_file: file "secret.pem" holds a private key/,
    );
    expect(r.stderr).not.toContain('TOPSECRET');
  });

  it('refuses a FIFO at once instead of waiting for a writer', () => {
    const fifo = join(scratch.dir, 'pipe.yaml');
    execFileSync('mkfifo', [fifo]);
    const r = accord(['validate', '-f', 'pipe.yaml'], scratch.dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'pipe.yaml:1:1: is not a regular file; name the YAML file itself with -f FILE',
    );
  });

  it('rejects an unknown command with a hint', () => {
    let r = accord(['foo']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('Error: unknown command "foo"; see accord --help for the list of commands.\n');
    r = accord(['validat']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/unknown command "validat"; did you mean "validate"\?/);
  });
});

describe('accord validate (in-process)', () => {
  it('writes through the injected Io', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io: Io = {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      isTty: false,
      env: {},
      cwd: REPO,
    };
    expect(await main(['validate', '-f', 'examples/accord.yaml'], io)).toBe(0);
    expect(out.join('')).toMatch(/^examples\/accord\.yaml is valid: /);
    expect(err).toEqual([]);
  });
});
