// Several files, one desired state (DESIGN §1 "Several files"): every rule, each error at every place.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, desiredPaths, loadDesiredState, type Problem } from '../../src/config/index.js';
import { sectionKeys } from '../../src/config/merge.js';
import { Checker } from '../../src/config/normalize.js';
import { readYamlSource } from '../../src/config/source.js';
import { ED25519, EXAMPLE_CA, IPP, IPP2, Scratch, SSHCA, y } from './helpers.js';

let scratch: Scratch;
beforeEach(() => {
  scratch = new Scratch();
});
afterEach(() => scratch.remove());

const restriction = (key: string, type: string) =>
  `  ${key}: {type: ${type}, enforced: true, ip_policies: [${IPP}]}`;

/** Writes `files` (name -> text) into the scratch directory and loads `paths` (default: all, in order). */
async function load(files: Record<string, string>, paths = Object.keys(files)) {
  for (const [name, text] of Object.entries(files)) scratch.write(name, text);
  return loadDesiredState(paths, scratch.dir);
}

async function problems(files: Record<string, string>, paths = Object.keys(files)): Promise<Problem[]> {
  const err = await load(files, paths).catch((e: unknown) => e);
  if (!(err instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(err)}`);
  return err.problems;
}

const at = (p: Problem) => `${p.file}:${p.line}:${p.col} ${p.path}`;

describe('the rules of several files, each error at every place', () => {
  it('every file has version: a file without one is reported in that file only', async () => {
    const found = await problems({
      'a.yaml': y('version: 1', 'ip_restrictions:', restriction('office', 'dashboard')),
      'b.yaml': y('ip_restrictions:', restriction('api', 'api')),
    });
    expect(found.map((p) => `${at(p)}: ${p.message}`)).toEqual([
      'b.yaml:1:1 : missing required field "version"; add the line version: 1',
    ]);
  });

  it('every file validates on its own: problems of two files are reported at once, file by file', async () => {
    const found = await problems({
      'a.yaml': y(
        'version: 1',
        'ip_restrictions:',
        '  office: {type: dashbord, enforced: true, ip_policies: [ipp_1]}',
      ),
      'b.yaml': y('version: 2'),
    });
    expect(found.map(at)).toEqual(['a.yaml:3:18 ip_restrictions.office.type', 'b.yaml:1:10 version']);
    expect(found[1]!.message).toMatch(/must be 1/);
  });

  it('owner set in one file: the files without it take it', async () => {
    const s = await load({
      'shared.yaml': y(
        'version: 1',
        'owner: platform',
        'ip_restrictions:',
        restriction('office', 'dashboard'),
      ),
      'prod.yaml': y('version: 1', 'ip_restrictions:', restriction('api', 'api')),
    });
    expect(s.owner).toBe('platform');
  });

  it('owner set to the same value in each file is one owner', async () => {
    const s = await load({
      'a.yaml': y('version: 1', 'owner: platform'),
      'b.yaml': y('version: 1', 'owner: platform'),
    });
    expect(s.owner).toBe('platform');
  });

  it('owners that differ: reported at each place, each naming the other', async () => {
    const found = await problems({
      'a.yaml': y('version: 1', 'owner: platform'),
      'b.yaml': y('version: 1', 'ip_restrictions:', restriction('office', 'dashboard')),
      'c.yaml': y('version: 1', '', 'owner: payments'),
    });
    expect(found.map(at)).toEqual(['a.yaml:2:8 owner', 'c.yaml:3:8 owner']);
    expect(found[0]!.message).toMatch(
      /^is "platform" here but "payments" at c\.yaml:3:8; .*set owner in one file only/,
    );
    expect(found[1]!.message).toMatch(/^is "payments" here but "platform" at a\.yaml:2:8;/);
  });

  it('the owner from another file counts in the metadata budget of every file', async () => {
    const { entryBudgetLeft } = await import('../../src/resources/marker.js');
    const owner = 'o'.repeat(60);
    const fill = 'x'.repeat(entryBudgetLeft('default', 'a', false, '') - 1);
    const found = await problems({
      'owner.yaml': y('version: 1', `owner: ${owner}`),
      'big.yaml': y(
        'version: 1',
        'ip_restrictions:',
        `  a: {type: api, enforced: true, ip_policies: [${IPP}], metadata: ${fill}}`,
      ),
    });
    expect(found.map(at)).toEqual(['big.yaml:3:92 ip_restrictions.a.metadata']);
    expect(found[0]!.message).toMatch(/too large/);
  });

  it('an entry key defined in two files: reported at both places, each naming the other', async () => {
    const found = await problems(
      {
        'shared.yaml': y('version: 1', 'ip_restrictions:', restriction('office', 'dashboard')),
        'prod.yaml': y(
          'version: 1',
          'certificate_authorities:',
          '  root: {ca_pem_file: root.pem}',
          'ip_restrictions:',
          restriction('office', 'api'),
        ),
        'root.pem': EXAMPLE_CA,
      },
      ['shared.yaml', 'prod.yaml'],
    );
    expect(found.map((p) => `${at(p)}: ${p.message}`)).toEqual([
      'shared.yaml:3:3 ip_restrictions.office: is also defined at prod.yaml:5:3; an entry is defined in one file only (files never override or merge an entry): keep one of them',
      'prod.yaml:5:3 ip_restrictions.office: is also defined at shared.yaml:3:3; an entry is defined in one file only (files never override or merge an entry): keep one of them',
    ]);
  });

  it('an entry key defined in three files: every place names the two others', async () => {
    const file = y('version: 1', 'certificate_authorities:', '  root:', `    ca_pem_file: root.pem`);
    const found = await problems({ 'a.yaml': file, 'b.yaml': file, 'c.yaml': file, 'root.pem': EXAMPLE_CA }, [
      'a.yaml',
      'b.yaml',
      'c.yaml',
    ]);
    expect(found.map(at)).toEqual([
      'a.yaml:3:3 certificate_authorities.root',
      'b.yaml:3:3 certificate_authorities.root',
      'c.yaml:3:3 certificate_authorities.root',
    ]);
    expect(found[1]!.message).toMatch(/^is also defined at a\.yaml:3:3, c\.yaml:3:3;/);
  });

  it('an entry with problems of its own still counts as defined', async () => {
    const found = await problems({
      'a.yaml': y(
        'version: 1',
        'ip_restrictions:',
        '  office: {type: nope, enforced: true, ip_policies: [ipp_1]}',
      ),
      'b.yaml': y('version: 1', 'ip_restrictions:', restriction('office', 'api')),
    });
    expect(found.map(at)).toEqual([
      'a.yaml:3:3 ip_restrictions.office',
      'a.yaml:3:18 ip_restrictions.office.type',
      'b.yaml:3:3 ip_restrictions.office',
    ]);
  });

  it('a module address defined in two files: reported at both places', async () => {
    const found = await problems({
      'a.yaml': y('version: 1', 'tcp_edges:', '  edgtcp_1: {ip_restriction: {ip_policies: [ipp_1]}}'),
      'b.yaml': y('version: 1', '', 'tcp_edges:', '  edgtcp_1:', '    ip_restriction: absent'),
    });
    expect(found.map((p) => `${at(p)}: ${p.message.slice(0, 30)}`)).toEqual([
      'a.yaml:3:14 tcp_edges.edgtcp_1.ip_restriction: is also defined at b.yaml:5:5;',
      'b.yaml:5:5 tcp_edges.edgtcp_1.ip_restriction: is also defined at a.yaml:3:14',
    ]);
  });

  it("one edge's routes may be spread over files: modules, not edges, are what is defined once", async () => {
    const s = await load({
      'a.yaml': y(
        'version: 1',
        'https_edges:',
        '  edghts_1:',
        '    routes:',
        '      edghtsrt_1: {websocket_tcp_converter: {}}',
      ),
      'b.yaml': y(
        'version: 1',
        'https_edges:',
        '  edghts_1:',
        '    routes:',
        '      edghtsrt_2: {websocket_tcp_converter: absent}',
      ),
    });
    expect(s.websocket_tcp_converters.map((m) => [m.route_id, m.state, m.loc.file])).toEqual([
      ['edghtsrt_1', 'present', 'a.yaml'],
      ['edghtsrt_2', 'absent', 'b.yaml'],
    ]);
    const found = await problems(
      {
        'c.yaml': y(
          'version: 1',
          'https_edges:',
          '  edghts_1:',
          '    routes:',
          '      edghtsrt_2: {websocket_tcp_converter: {}}',
        ),
      },
      ['a.yaml', 'b.yaml', 'c.yaml'],
    );
    expect(found.map(at)).toEqual([
      'b.yaml:5:20 https_edges.edghts_1.routes.edghtsrt_2.websocket_tcp_converter',
      'c.yaml:5:20 https_edges.edghts_1.routes.edghtsrt_2.websocket_tcp_converter',
    ]);
  });

  it('the checks between entries see every file: one IP restriction per type', async () => {
    const found = await problems({
      'shared.yaml': y('version: 1', 'ip_restrictions:', restriction('office', 'dashboard')),
      'prod.yaml': y('version: 1', 'ip_restrictions:', restriction('prod-dashboard', 'dashboard')),
    });
    expect(found.map((p) => `${at(p)}: ${p.message}`)).toEqual([
      'prod.yaml:3:26 ip_restrictions.prod-dashboard.type: "office" already has type dashboard (at shared.yaml:3:3); the service allows one IP restriction per type, so merge their ip_policies into one entry',
    ]);
  });

  it('the checks between entries see every file: one entry per adopted ID', async () => {
    const found = await problems({
      'a.yaml': y(
        'version: 1',
        'ip_restrictions:',
        `  a: {id: ipx_1, type: api, enforced: true, ip_policies: [${IPP}]}`,
      ),
      'b.yaml': y(
        'version: 1',
        'ip_restrictions:',
        `  b: {id: ipx_1, type: agent, enforced: true, ip_policies: [${IPP}]}`,
      ),
    });
    expect(found.map((p) => `${at(p)}: ${p.message}`)).toEqual([
      'b.yaml:3:11 ip_restrictions.b.id: "a" already adopts ipx_1 (at a.yaml:3:3); one entry per resource',
    ]);
  });

  it('an empty directory is an error; so is one holding only files of other kinds', async () => {
    mkdirSync(join(scratch.dir, 'empty'));
    scratch.write('other/readme.md', '# not YAML\n');
    scratch.write('other/.hidden.yaml', 'version: 1\n');
    scratch.write('ok.yaml', 'version: 1\n');
    const found = await problems({}, ['empty', 'ok.yaml', 'other/']);
    expect(found.map((p) => `${p.file}:${p.line} ${p.message.slice(0, 45)}`)).toEqual([
      'empty:0 is a directory without *.yaml or *.yml files;',
      'other/:0 is a directory without *.yaml or *.yml files;',
    ]);
    const { formatProblem } = await import('../../src/config/index.js');
    expect(formatProblem(found[0]!)).toMatch(/^empty: is a directory without \*\.yaml/);
  });
});

describe('directories and the list of files', () => {
  it('a directory stands for its *.yaml and *.yml files in name order, not recursive, hidden files left out', async () => {
    scratch.write(
      'accord/shared/b-restrictions.yml',
      y('version: 1', 'ip_restrictions:', restriction('b', 'api')),
    );
    scratch.write(
      'accord/shared/a-restrictions.yaml',
      y('version: 1', 'ip_restrictions:', restriction('a', 'agent')),
    );
    scratch.write(
      'accord/shared/nested/c.yaml',
      y('version: 1', 'ip_restrictions:', restriction('c', 'dashboard')),
    );
    scratch.write('accord/shared/.swap.yaml', 'not: [yaml');
    scratch.write('accord/shared/notes.txt', 'anything');
    scratch.write('accord/production.yaml', y('version: 1', 'owner: prod'));
    const s = await loadDesiredState(['accord/shared/', 'accord/production.yaml'], scratch.dir);
    expect(s.files.map((f) => f.shown)).toEqual([
      'accord/shared/a-restrictions.yaml',
      'accord/shared/b-restrictions.yml',
      'accord/production.yaml',
    ]);
    expect(s.files[0]!.path).toBe(join(scratch.dir, 'accord/shared/a-restrictions.yaml'));
    expect(s.ip_restrictions.map((r) => `${r.key} ${r.loc.file}:${r.loc.line}`)).toEqual([
      'a accord/shared/a-restrictions.yaml:3',
      'b accord/shared/b-restrictions.yml:3',
    ]);
  });

  it('a file named twice (itself and through its directory) is read once, where it first appears', async () => {
    scratch.write('d/a.yaml', y('version: 1', 'ip_restrictions:', restriction('a', 'api')));
    scratch.write('d/b.yaml', y('version: 1'));
    const s = await loadDesiredState(['d/b.yaml', 'd', './d/a.yaml'], scratch.dir);
    expect(s.files.map((f) => f.shown)).toEqual(['d/b.yaml', 'd/a.yaml']);
    expect(s.ip_restrictions).toHaveLength(1);
  });

  it('-f on the command line wins over ACCORD_FILES, which wins over accord.yaml', () => {
    const env = { ACCORD_FILES: 'accord/shared:accord/staging.yaml:' };
    expect(desiredPaths(['x.yaml'], env)).toEqual(['x.yaml']);
    expect(desiredPaths(undefined, env)).toEqual(['accord/shared', 'accord/staging.yaml']);
    expect(desiredPaths([], { ACCORD_FILES: '' })).toEqual(['accord.yaml']);
    expect(desiredPaths(undefined, {})).toEqual(['accord.yaml']);
  });

  it('a missing file among several is reported by name, with the others checked too', async () => {
    const found = await problems({ 'a.yaml': y('version: 1', 'owner: Bad') }, ['a.yaml', 'missing.yaml']);
    expect(found.map(at)).toEqual(['a.yaml:2:8 owner', 'missing.yaml:1:1 ']);
  });
});

describe('*_file paths are relative to the file that names them', () => {
  it('in nested directories, each file finds its own', async () => {
    scratch.write('accord/shared/certs/root.pem', EXAMPLE_CA);
    scratch.write(
      'accord/shared/cas.yaml',
      y('version: 1', 'certificate_authorities:', '  root: {ca_pem_file: certs/root.pem}'),
    );
    scratch.write('accord/envs/prod/keys/bastion.pub', `${ED25519}\n`);
    scratch.write(
      'accord/envs/prod/hosts.yaml',
      y(
        'version: 1',
        'ssh_host_certificates:',
        '  bastion:',
        `    ssh_certificate_authority_id: ${SSHCA}`,
        '    public_key_file: keys/bastion.pub',
        '    principals: [bastion.example.com]',
      ),
    );
    const s = await loadDesiredState(['accord/shared', 'accord/envs/prod/hosts.yaml'], scratch.dir);
    expect(s.certificate_authorities[0]!.loc.file).toBe('accord/shared/cas.yaml');
    expect(s.ssh_host_certificates[0]!.public_key).toBe(ED25519);
  });

  it("a path relative to another file's directory is not found, and the message says where it looked", async () => {
    scratch.write('accord/shared/certs/root.pem', EXAMPLE_CA);
    const found = await problems(
      {
        'accord/prod.yaml': y(
          'version: 1',
          'certificate_authorities:',
          '  root: {ca_pem_file: certs/root.pem}',
        ),
      },
      ['accord/prod.yaml'],
    );
    expect(found.map(at)).toEqual(['accord/prod.yaml:3:23 certificate_authorities.root.ca_pem_file']);
    expect(found[0]!.message).toContain(join(scratch.dir, 'accord', 'certs', 'root.pem'));
  });
});

describe('references by key see every file', () => {
  it("a file's reader knows the keys of every file, its own included", async () => {
    const a = scratch.write(
      'a.yaml',
      y('version: 1', 'ip_restrictions:', restriction('office', 'dashboard')),
    );
    const b = scratch.write(
      'b.yaml',
      y(
        'version: 1',
        'certificate_authorities:',
        '  root: {ca_pem: x}',
        'ip_restrictions:',
        restriction('vpn', 'api'),
      ),
    );
    const sources = await Promise.all([readYamlSource('a.yaml', a), readYamlSource('b.yaml', b)]);
    const read = sources.map((r) => (r.ok ? r.source : expect.fail('unreadable')));
    const keys = sectionKeys(read);
    const reader = new Checker(read[0]!, scratch.dir, { owner: 'default', keys });
    expect([...reader.keys('ip_restrictions')].sort()).toEqual(['office', 'vpn']);
    expect([...reader.keys('certificate_authorities')]).toEqual(['root']);
    expect([...reader.keys('ssh_host_certificates')]).toEqual([]);
  });

  const policies = y(
    'version: 1',
    'ip_policies:',
    '  office:',
    '    rules: [{allow: 203.0.113.0/24}]',
    '  vpn:',
    '    rules: [{allow: 198.51.100.0/24}]',
  );

  it('a restriction and an edge module name, by key, IP policies of another file', async () => {
    const s = await load({
      'policies.yaml': policies,
      'restrictions.yaml': y(
        'version: 1',
        'ip_restrictions:',
        '  office: {type: dashboard, enforced: true, ip_policies: [office, vpn]}',
        'tcp_edges:',
        '  edgtcp_1:',
        '    ip_restriction: {enabled: true, ip_policies: [vpn]}',
      ),
    });
    expect(s.ip_policies.map((p) => p.key)).toEqual(['office', 'vpn']);
    expect(s.ip_restrictions[0]!.ip_policy_ids).toEqual(['office', 'vpn']);
    expect(s.tcp_edge_ip_restrictions[0]!.ip_policy_ids).toEqual(['vpn']);
  });

  it('a key no file defines is reported where it is named, with the nearest key of every file', async () => {
    const found = await problems({
      'policies.yaml': policies,
      'restrictions.yaml': y(
        'version: 1',
        'ip_restrictions:',
        '  office: {type: dashboard, enforced: true, ip_policies: [ofice]}',
      ),
    });
    expect(found.map((p) => `${at(p)}: ${p.message}`)).toEqual([
      'restrictions.yaml:3:59 ip_restrictions.office.ip_policies[0]: "ofice" is not a key of ip_policies (did you mean office?); name an entry of ip_policies or a live ID (ipp_...)',
    ]);
  });

  it('without the file that defines them, the same keys are not found: each file set is checked as loaded', async () => {
    const found = await problems(
      {
        'policies.yaml': policies,
        'restrictions.yaml': y(
          'version: 1',
          'ip_restrictions:',
          '  office: {type: dashboard, enforced: true, ip_policies: [office]}',
        ),
      },
      ['restrictions.yaml'],
    );
    expect(found.map((p) => p.message)).toEqual([
      '"office" is not a key of ip_policies (ip_policies has no entries); name an entry of ip_policies or a live ID (ipp_...)',
    ]);
  });
});

describe('config_digest', () => {
  const files = {
    'shared/restrictions.yaml': y(
      'version: 1',
      'owner: platform',
      'ip_restrictions:',
      restriction('office', 'dashboard'),
    ),
    'shared/cas.yaml': y('version: 1', 'certificate_authorities:', '  root: {ca_pem_file: certs/root.pem}'),
    'shared/certs/root.pem': EXAMPLE_CA,
    'prod.yaml': y(
      'version: 1',
      'ip_restrictions:',
      `  api: {type: api, enforced: true, ip_policies: [${IPP2}]}`,
    ),
  };
  const yamls = ['shared/restrictions.yaml', 'shared/cas.yaml', 'prod.yaml'];

  it('is the same for the same files in any order, and as a directory', async () => {
    const first = await load(files, yamls);
    for (const order of [
      ['prod.yaml', 'shared/cas.yaml', 'shared/restrictions.yaml'],
      ['shared/cas.yaml', 'prod.yaml', 'shared/restrictions.yaml'],
      ['prod.yaml', 'shared'],
      ['shared/', 'prod.yaml'],
    ]) {
      expect((await loadDesiredState(order, scratch.dir)).digest, order.join(' ')).toBe(first.digest);
    }
  });

  it('changes with any file, with a file one of them names, and with what is loaded', async () => {
    const first = (await load(files, yamls)).digest;
    const digests = new Set([first]);
    scratch.write('shared/certs/root.pem', `${EXAMPLE_CA}\n`);
    digests.add((await loadDesiredState(yamls, scratch.dir)).digest);
    scratch.write('prod.yaml', `${files['prod.yaml']}# a comment\n`);
    digests.add((await loadDesiredState(yamls, scratch.dir)).digest);
    digests.add((await loadDesiredState(yamls.slice(0, 2), scratch.dir)).digest);
    expect(digests.size).toBe(4);
  });

  it('depends on where the files are: the same content under another name is another desired state', async () => {
    const text = y('version: 1');
    const a = await load({ 'a.yaml': text });
    const b = await load({ 'b.yaml': text }, ['b.yaml']);
    expect(a.digest).not.toBe(b.digest);
  });
});
