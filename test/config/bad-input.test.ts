import { symlinkSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryBudgetLeft } from '../../src/resources/marker.js';
import {
  block,
  ED25519,
  EXAMPLE_CA,
  type Expected,
  expectProblem,
  IPP,
  makeCertificates,
  privateKeyPem,
  problemsOf,
  Scratch,
  SSHCA,
  y,
} from './helpers.js';

const ipr = (...fields: string[]) =>
  y(
    'version: 1',
    'ip_restrictions:',
    '  office:',
    ...fields.flatMap((f) => f.split('\n')).map((f) => `    ${f}`),
  );
const ipOk = ['type: dashboard', 'enforced: true', `ip_policies: [${IPP}]`];
const ca = (...fields: string[]) =>
  y(
    'version: 1',
    'certificate_authorities:',
    '  root:',
    ...fields.flatMap((f) => f.split('\n')).map((f) => `    ${f}`),
  );
const ssh = (...fields: string[]) =>
  y(
    'version: 1',
    'ssh_host_certificates:',
    '  bastion:',
    `    ssh_certificate_authority_id: ${SSHCA}`,
    '    principals: [bastion.example.com]',
    ...fields.flatMap((f) => f.split('\n')).map((f) => `    ${f}`),
  );
const sshKey = `public_key: ${ED25519}`;

interface Case extends Expected {
  name: string;
  text: string | Buffer | ((s: Scratch) => string | Buffer | undefined);
}

let certs: { ca2: string; leaf: string };
const scratch = new Scratch();
beforeAll(() => {
  certs = makeCertificates(scratch.dir);
});
afterAll(() => scratch.remove());

const cases: Case[] = [
  // YAML itself
  {
    name: 'malformed YAML',
    text: y('version: 1', 'ip_restrictions: [a, b', 'x: 1'),
    line: 3,
    col: 1,
    message: /^a list in \[ \] or a mapping in \{ \} is not closed on its line/,
  },
  {
    name: 'tab indentation',
    text: y('version: 1', 'ip_restrictions:', '\toffice: {}'),
    line: 3,
    col: 1,
    message: /tabs are not allowed/,
  },
  {
    name: 'duplicate top-level key',
    text: y('version: 1', 'owner: a', 'owner: b'),
    line: 3,
    col: 1,
    message: /^duplicate key: "owner" is already at line 2 of the same mapping; keep one of them$/,
  },
  {
    name: 'duplicate entry key',
    text: ipr(...ipOk, 'type: api'),
    line: 7,
    col: 5,
    message: /^duplicate key: "type" is already at line 4 of the same mapping/,
  },
  {
    name: 'several documents',
    text: y('version: 1', '---', 'version: 1'),
    line: 2,
    col: 1,
    message: /several YAML documents/,
  },
  {
    name: 'custom tag',
    text: y('version: !int 1'),
    line: 1,
    col: 10,
    message: /Unresolved tag.*custom tags/,
  },
  { name: 'empty file', text: '', line: 1, col: 1, message: /empty/ },
  { name: 'comments only', text: y('# nothing yet'), line: 1, col: 1, message: /empty/ },
  { name: 'a YAML list', text: y('- version: 1'), line: 1, col: 1, message: /mapping.*not a list/ },
  { name: 'a single scalar', text: y('hello'), line: 1, col: 1, message: /not a single value/ },
  {
    name: 'non-UTF-8 bytes',
    text: Buffer.concat([Buffer.from('version: 1\nowner: caf'), Buffer.from([0xe9]), Buffer.from('\n')]),
    line: 2,
    col: 11,
    message:
      /^accord\.yaml is not valid UTF-8: byte 0xe9 at byte offset 21 \(line 2, column 11\); save the file as UTF-8$/,
  },
  {
    name: 'a key indented under a key that has its value on its line',
    text: y('version: 1', 'owner: x', 'ip_restrictions:', '  office: dashboard', '    enforced: true'),
    line: 4,
    col: 11,
    message:
      /^this key has a value on its line and more deeply indented lines under it; give it either the value or the nested keys/,
  },
  {
    name: 'a key out of line with its mapping',
    text: y('version: 1', 'ip_restrictions:', '  office:', '    type: dashboard', '   enforced: true'),
    line: 5,
    col: 1,
    message:
      /^this key is not lined up with the other keys of its mapping; indent it like them, with spaces$/,
  },
  {
    name: 'a quote not closed',
    text: y('version: 1', 'owner: "platform', 'ip_restrictions: {}'),
    line: 2,
    col: 8,
    message: /^a quoted value is not closed; add the closing quote$/,
  },
  {
    name: '__proto__ key',
    text: y('version: 1', '__proto__: {polluted: true}'),
    line: 2,
    col: 1,
    message: /__proto__/,
  },
  {
    name: 'nested __proto__ key',
    text: ipr(...ipOk, 'metadata:', '  __proto__: {x: 1}'),
    line: 8,
    col: 7,
    path: 'ip_restrictions.office.metadata.__proto__',
    message: /__proto__/,
  },
  {
    name: 'billion laughs',
    text: y(
      'version: 1',
      'a: &a [x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]',
      'f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]',
      'g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]',
    ),
    line: 3,
    col: 8,
    message: /billion laughs/,
  },
  {
    name: '50 MB file',
    text: (s) => {
      const path = s.write('accord.yaml', 'version: 1\n');
      truncateSync(path, 50 * 1024 * 1024);
      return undefined;
    },
    line: 1,
    col: 1,
    message: /file is 50 MB; the limit is 10 MB/,
  },
  {
    name: 'non-scalar key',
    text: y('version: 1', '? [a, b]', ': c'),
    line: 2,
    col: 3,
    message: /plain strings/,
  },

  // Schema
  {
    name: 'missing version',
    text: y('owner: a'),
    line: 1,
    col: 1,
    message: /missing required field "version"/,
  },
  { name: 'wrong version', text: y('version: 2'), line: 1, col: 10, path: 'version', message: /must be 1/ },
  {
    name: 'unknown top-level field, did you mean',
    text: y('version: 1', 'ip_restriction: {}'),
    line: 2,
    col: 1,
    path: 'ip_restriction',
    message: /unknown field "ip_restriction"; did you mean "ip_restrictions"\?/,
  },
  {
    name: 'unknown entry field, did you mean',
    text: ipr('type: dashboard', 'enforce: true', `ip_policies: [${IPP}]`),
    line: 5,
    col: 5,
    path: 'ip_restrictions.office.enforce',
    message: /unknown field "enforce"; did you mean "enforced"\?/,
  },
  {
    name: 'unknown field far from any name lists the allowed ones',
    text: ipr(...ipOk, 'colour: blue'),
    line: 7,
    col: 5,
    message:
      /unknown field "colour"; allowed: id, type, enforced, ip_policies, description, metadata, lifecycle/,
  },
  {
    name: 'missing required field',
    text: ipr('type: dashboard', `ip_policies: [${IPP}]`),
    line: 3,
    col: 3,
    path: 'ip_restrictions.office',
    message: /missing required field "enforced"/,
  },
  {
    name: 'wrong type: boolean',
    text: ipr('type: dashboard', 'enforced: "yes"', `ip_policies: [${IPP}]`),
    line: 5,
    col: 15,
    path: 'ip_restrictions.office.enforced',
    message: /must be true or false, not the string "yes"/,
  },
  {
    name: 'wrong type: list',
    text: ipr('type: dashboard', 'enforced: true', `ip_policies: ${IPP}`),
    line: 6,
    col: 18,
    message: /must be a list, not the string/,
  },
  {
    name: 'wrong type: section',
    text: y('version: 1', 'ip_restrictions: [a]'),
    line: 2,
    col: 18,
    message: /must be a mapping, not a list/,
  },
  {
    name: 'bad enum, did you mean',
    text: ipr('type: dashbord', 'enforced: true', `ip_policies: [${IPP}]`),
    line: 4,
    col: 11,
    path: 'ip_restrictions.office.type',
    message:
      /"dashbord" is not allowed; use one of: dashboard, api, agent, endpoints; did you mean "dashboard"\?/,
  },
  {
    name: 'empty ip_policies',
    text: ipr('type: dashboard', 'enforced: true', 'ip_policies: []'),
    line: 6,
    col: 18,
    path: 'ip_restrictions.office.ip_policies',
    message: /at least one/,
  },
  {
    name: 'wrong IP policy ID prefix',
    text: ipr('type: dashboard', 'enforced: true', `ip_policies: [${IPP}, ipx_123]`),
    line: 6,
    col: 52,
    path: 'ip_restrictions.office.ip_policies[1]',
    message:
      /"ipx_123" is not a key of ip_policies \(ip_policies has no entries\); name an entry of ip_policies or a live ID \(ipp_\.\.\.\)/,
  },
  {
    name: 'wrong SSH CA ID prefix',
    text: y(
      'version: 1',
      'ssh_host_certificates:',
      '  bastion:',
      '    ssh_certificate_authority_id: ca_2abc',
      '    principals: []',
      `    ${sshKey}`,
    ),
    line: 4,
    col: 35,
    message: /expected one starting with "sshca_"/,
  },
  {
    name: 'wrong adoption ID prefix',
    text: ipr('id: ca_123', ...ipOk),
    line: 4,
    col: 9,
    path: 'ip_restrictions.office.id',
    message: /starting with "ipx_"/,
  },
  {
    name: 'entry key with upper case',
    text: y('version: 1', 'ip_restrictions:', '  Office:', ...ipOk.map((f) => `    ${f}`)),
    line: 3,
    col: 3,
    path: 'ip_restrictions.Office',
    message: /"Office" is not a valid entry key/,
  },
  {
    name: 'invalid owner',
    text: y('version: 1', 'owner: Platform Team'),
    line: 2,
    col: 8,
    message: /"Platform Team" is not valid here/,
  },
  {
    name: 'TCP edge key without its prefix',
    text: y('version: 1', 'tcp_edges:', '  edghts_2abc:', '    ip_restriction: absent'),
    line: 3,
    col: 3,
    message: /expected an ID starting with "edgtcp_"/,
  },
  {
    name: 'HTTPS route key without its prefix',
    text: y(
      'version: 1',
      'https_edges:',
      '  edghts_2abc:',
      '    routes:',
      '      edgtcp_2abc: {websocket_tcp_converter: absent}',
    ),
    line: 5,
    col: 7,
    message: /expected an ID starting with "edghtsrt_"/,
  },
  {
    name: 'module neither "absent" nor a mapping',
    text: y('version: 1', 'tcp_edges:', '  edgtcp_2abc:', '    ip_restriction: absnt'),
    line: 4,
    col: 5,
    path: 'tcp_edges.edgtcp_2abc.ip_restriction',
    message: /must be "absent" or a mapping \(enabled, ip_policies\), not "absnt"/,
  },
  {
    name: 'module mapping with a wrong field type',
    text: y(
      'version: 1',
      'tcp_edges:',
      '  edgtcp_2abc:',
      `    ip_restriction: {enabled: "no", ip_policies: [${IPP}]}`,
    ),
    line: 4,
    col: 31,
    path: 'tcp_edges.edgtcp_2abc.ip_restriction.enabled',
    message: /must be true or false/,
  },
  {
    name: 'both ca_pem and ca_pem_file',
    text: (s) => {
      s.write('root.pem', EXAMPLE_CA);
      return ca('ca_pem_file: root.pem', 'ca_pem: |', block(EXAMPLE_CA, 2));
    },
    line: 3,
    col: 3,
    path: 'certificate_authorities.root',
    message: /set only one of ca_pem or ca_pem_file, not both/,
  },
  {
    name: 'neither public_key nor public_key_file',
    text: ssh('valid_for: 90d'),
    line: 3,
    col: 3,
    message: /set exactly one of public_key or public_key_file/,
  },
  {
    name: 'bad duration unit',
    text: ssh(sshKey, 'valid_for: 2w'),
    line: 7,
    col: 16,
    message: /"2w" is not a duration/,
  },
  {
    name: 'duration without unit',
    text: ssh(sshKey, 'renew_before: 30'),
    line: 7,
    col: 19,
    message: /must be a string, not the number 30/,
  },
  {
    name: 'zero duration',
    text: ssh(sshKey, 'valid_for: 0d'),
    line: 7,
    col: 16,
    message: /"0d" is not a duration/,
  },
  {
    name: 'timestamp without time',
    text: ssh(sshKey, 'valid_until: 2027-06-01'),
    line: 7,
    col: 18,
    path: 'ssh_host_certificates.bastion.valid_until',
    message: /"2027-06-01" is not an RFC 3339 timestamp/,
  },
  {
    name: 'timestamp without zone',
    text: ssh(sshKey, 'valid_after: 2027-06-01T00:00:00'),
    line: 7,
    col: 18,
    message: /time zone is required/,
  },
  {
    name: 'impossible date',
    text: ssh(sshKey, 'valid_until: 2027-02-30T00:00:00Z'),
    line: 7,
    col: 18,
    message: /RFC 3339/,
  },
  {
    name: 'a fraction of a second, suggesting the whole second as written',
    text: ssh(sshKey, 'valid_until: 2030-01-01T00:00:00.5Z'),
    line: 7,
    col: 18,
    path: 'ssh_host_certificates.bastion.valid_until',
    message:
      /"2030-01-01T00:00:00\.5Z" has a fraction of a second, which the service does not keep; write 2030-01-01T00:00:00Z \(whole seconds\)/,
  },
  {
    name: 'a fraction of a second with an offset',
    text: ssh(sshKey, 'valid_after: 2030-01-01T10:20:30.000001+02:00'),
    line: 7,
    col: 18,
    path: 'ssh_host_certificates.bastion.valid_after',
    message: /write 2030-01-01T10:20:30\+02:00 \(whole seconds\)/,
  },
  {
    name: 'valid_after equal to valid_until',
    text: ssh(sshKey, 'valid_after: 2027-01-01T00:00:00Z', 'valid_until: 2027-01-01T01:00:00+01:00'),
    line: 8,
    col: 18,
    path: 'ssh_host_certificates.bastion.valid_until',
    message: /must be later than valid_after/,
  },
  {
    name: 'valid_for with valid_until',
    text: ssh(sshKey, 'valid_for: 90d', 'valid_until: 2030-01-01T00:00:00Z'),
    line: 3,
    col: 3,
    message: /valid_for and valid_until cannot both be set/,
  },
  {
    name: 'renew_before not shorter than valid_for',
    text: ssh(sshKey, 'valid_for: 30d', 'renew_before: 720h'),
    line: 8,
    col: 19,
    message: /not shorter than valid_for/,
  },

  // Client-side checks
  {
    name: 'two entries of one type',
    text: y(
      'version: 1',
      'ip_restrictions:',
      '  office:',
      ...ipOk.map((f) => `    ${f}`),
      '  office-2:',
      ...ipOk.map((f) => `    ${f}`),
    ),
    line: 8,
    col: 11,
    path: 'ip_restrictions.office-2.type',
    message:
      /"office" already has type dashboard \(at accord.yaml:3:3\); the service allows one IP restriction per type/,
  },
  {
    name: 'two entries adopting one ID',
    text: y(
      'version: 1',
      'ip_restrictions:',
      '  a: {id: ipx_1, type: api, enforced: true, ip_policies: [ipp_1]}',
      '  b: {id: ipx_1, type: agent, enforced: true, ip_policies: [ipp_1]}',
    ),
    line: 4,
    col: 11,
    message: /"a" already adopts ipx_1 \(at accord.yaml:3:3\); one entry per resource/,
  },
  {
    name: '256-byte description of multi-byte characters',
    text: ipr(...ipOk, `description: ${'é'.repeat(128)}`),
    line: 7,
    col: 18,
    path: 'ip_restrictions.office.description',
    message: /is 256 bytes of UTF-8 \(128 characters\); the limit is 255 bytes/,
  },
  {
    name: '4097-byte metadata marker',
    // One byte more than fits beside the marker and the room kept for its fingerprint.
    text: ipr(...ipOk, `metadata: ${'x'.repeat(entryBudgetLeft('default', 'office', false, '') + 1)}`),
    line: 7,
    col: 15,
    path: 'ip_restrictions.office.metadata',
    message: /takes 4097 bytes, 1 over the 4096-byte limit/,
  },
  {
    name: 'metadata that JSON cannot hold',
    text: ipr(...ipOk, 'metadata: {weight: .inf}'),
    line: 7,
    col: 24,
    path: 'ip_restrictions.office.metadata.weight',
    message: /\.inf or \.nan/,
  },
  {
    name: 'PEM with two certificates',
    text: () => ca('ca_pem: |', block(EXAMPLE_CA + certs.ca2, 2)),
    line: 4,
    col: 13,
    path: 'certificate_authorities.root.ca_pem',
    message: /holds 2 certificates; exactly one CA certificate/,
  },
  {
    name: 'certificate that is not a CA',
    text: () => ca('ca_pem: |', block(certs.leaf, 2)),
    line: 4,
    col: 13,
    message: /is not a CA certificate/,
  },
  {
    name: 'private key in ca_pem',
    text: () => ca('ca_pem: |', block(EXAMPLE_CA + privateKeyPem(), 2)),
    line: 4,
    col: 13,
    message: /holds a private key; remove it/,
  },
  {
    name: 'a DER certificate as ca_pem_file: said as DER, with the openssl line that converts it',
    text: (s) => {
      const pem = EXAMPLE_CA.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
      s.write('certs/root.der', Buffer.from(pem, 'base64'));
      return ca('ca_pem_file: certs/root.der');
    },
    line: 4,
    col: 18,
    path: 'certificate_authorities.root.ca_pem_file',
    message:
      /^"certs\/root\.der" is binary \(DER, not PEM\); convert it with openssl x509 -inform DER -in "certs\/root\.der" -out certs\/root\.pem and name the \.pem file instead$/,
  },
  {
    name: 'binary that is no DER certificate as ca_pem_file',
    text: (s) => {
      s.write('certs/root.pem', Buffer.from([0xff, 0xfe, 0x00, 0x41]));
      return ca('ca_pem_file: certs/root.pem');
    },
    line: 4,
    col: 18,
    message: /^"certs\/root\.pem" is not UTF-8 text$/,
  },
  {
    name: 'no version: says the line to add',
    text: y('owner: x'),
    line: 1,
    col: 1,
    message: /^missing required field "version"; add the line version: 1$/,
  },
  {
    name: 'private key in ca_pem_file, content never echoed',
    text: (s) => {
      s.write('certs/root.pem', privateKeyPem());
      return ca('ca_pem_file: certs/root.pem');
    },
    line: 4,
    col: 18,
    path: 'certificate_authorities.root.ca_pem_file',
    message: /^file "certs\/root.pem" holds a private key/,
  },
  {
    name: 'garbage base64 in a PEM',
    text: ca(
      'ca_pem: |',
      '      -----BEGIN CERTIFICATE-----',
      '      @@not base64@@',
      '      -----END CERTIFICATE-----',
    ),
    line: 4,
    col: 13,
    message: /not valid base64/,
  },
  {
    name: 'garbage base64 in a public key',
    text: ssh('public_key: ssh-ed25519 AAAA!!!garbage host'),
    line: 6,
    col: 17,
    path: 'ssh_host_certificates.bastion.public_key',
    message: /not a valid OpenSSH public key: the key data is not valid base64/,
  },
  {
    name: 'unsupported public key type',
    text: ssh('public_key: ssh-dss AAAAB3NzaC1kc3MAAAA= host'),
    line: 6,
    col: 17,
    message: /not a valid OpenSSH public key/,
  },
  {
    name: 'path with ..',
    text: ca('ca_pem_file: ../root.pem'),
    line: 4,
    col: 18,
    message: /"\.\.\/root.pem" contains ".."/,
  },
  {
    name: 'nested path with ..',
    text: ssh('public_key_file: keys/../../etc/ssh/ssh_host_ed25519_key.pub'),
    line: 6,
    col: 22,
    path: 'ssh_host_certificates.bastion.public_key_file',
    message: /contains ".."/,
  },
  {
    name: 'absolute path',
    text: ca('ca_pem_file: /etc/ssl/certs/root.pem'),
    line: 4,
    col: 18,
    message: /is absolute/,
  },
  {
    name: 'symlink out of the directory',
    text: (s) => {
      const outside = new Scratch();
      const target = outside.write('root.pem', EXAMPLE_CA);
      symlinkSync(target, join(s.dir, 'linked.pem'));
      return ca('ca_pem_file: linked.pem');
    },
    line: 4,
    col: 18,
    message: /leads outside the YAML file's directory/,
  },
  {
    name: 'missing file',
    text: ca('ca_pem_file: certs/nope.pem'),
    line: 4,
    col: 18,
    message: /file "certs\/nope.pem" not found/,
  },
  {
    name: 'public_key_file holding a PEM',
    text: (s) => {
      s.write('host.pub', EXAMPLE_CA);
      return ssh('public_key_file: host.pub');
    },
    line: 6,
    col: 22,
    message: /^file "host.pub" is not a valid OpenSSH public key/,
  },
  {
    name: 'public_key_file naming the private key, content never echoed',
    text: (s) => {
      s.write(
        'ssh_host_ed25519_key',
        '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\n',
      );
      return ssh('public_key_file: ssh_host_ed25519_key');
    },
    line: 6,
    col: 22,
    message:
      /^file "ssh_host_ed25519_key" holds a private key; use the \.pub file \(the host's public key\), and keep the private key out of the repository$/,
  },
  {
    name: 'public_key holding a PKCS#8 private key',
    text: () => ssh('public_key: |', block(privateKeyPem(), 2)),
    line: 6,
    col: 17,
    message: /holds a private key; use the \.pub file/,
  },
];

describe('bad input: each is a located ConfigError', () => {
  it.each(cases)('$name', async (c) => {
    const s = new Scratch();
    try {
      const text = typeof c.text === 'function' ? c.text(s) : c.text;
      expectProblem(await problemsOf(s, text), c);
    } finally {
      s.remove();
    }
  });
});

describe('a tab that indents a line', () => {
  it.each([
    ['under a mapping', y('version: 1', 'ip_restrictions:', '\toffice: {}'), 3],
    [
      'among the fields of an entry',
      y(
        'version: 1',
        'owner: x',
        'ip_restrictions:',
        '  office:',
        '    type: dashboard',
        '\tenforced: true',
        `    ip_policies: [${IPP}]`,
      ),
      6,
    ],
    [
      'as the first field of an entry, the next line indented with spaces',
      y(
        'version: 1',
        'ip_restrictions:',
        '  office:',
        '\ttype: dashboard',
        '    enforced: true',
        `    ip_policies: [${IPP}]`,
      ),
      4,
    ],
  ])(
    '%s is one problem, at the tab: not the misreadings of its line that follow from it',
    async (_name, text, line) => {
      const s = new Scratch();
      try {
        const problems = await problemsOf(s, text);
        expect(problems.map((p) => `${p.line}:${p.col} ${p.message}`)).toEqual([
          `${line}:1 tabs are not allowed for indentation in YAML; indent with spaces`,
        ]);
      } finally {
        s.remove();
      }
    },
  );
});
