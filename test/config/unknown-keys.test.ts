// An unknown key is reported at the key itself, at every nesting level of the file's schema; when it
// misspells a required field, that is one problem at the key, not a second one at the parent's line.
import { afterAll, describe, expect, it } from 'vitest';
import { ED25519, IPP, problemsOf, Scratch, SSHCA, y } from './helpers.js';

const TCP = 'edgtcp_2demoDb00000000000000000000';
const HTTPS = 'edghts_2demoWeb0000000000000000000';
const ROUTE = 'edghtsrt_2demoWebSocket0000000000000';

interface Level {
  level: string;
  /** The file; the one misspelled or unknown key is the line marked `# <-`. */
  text: string;
  path: string;
  message: string;
}

const ipRestriction = (...fields: string[]) =>
  y('version: 1', 'ip_restrictions:', '  office:', ...fields.map((f) => `    ${f}`));
const sshCertificate = (...fields: string[]) =>
  y(
    'version: 1',
    'ssh_host_certificates:',
    '  bastion:',
    `    public_key: ${ED25519}`,
    ...fields.map((f) => `    ${f}`),
  );
const tcpEdge = (...fields: string[]) =>
  y('version: 1', 'tcp_edges:', `  ${TCP}:`, ...fields.map((f) => `    ${f}`));
const httpsEdge = (...fields: string[]) =>
  y('version: 1', 'https_edges:', `  ${HTTPS}:`, ...fields.map((f) => `    ${f}`));

const levels: Level[] = [
  {
    level: 'the top level, a required field misspelled',
    text: y('versoin: 1 # <-', 'owner: platform'),
    path: 'versoin',
    message: 'unknown field "versoin"; did you mean "version"? (it is required here)',
  },
  {
    level: 'the top level, an optional field misspelled',
    text: y('version: 1', 'ip_restriction: {} # <-'),
    path: 'ip_restriction',
    message: 'unknown field "ip_restriction"; did you mean "ip_restrictions"?',
  },
  {
    level: 'an entry, a required field misspelled',
    text: ipRestriction('type: dashboard', 'enforce: true # <-', `ip_policies: [${IPP}]`),
    path: 'ip_restrictions.office.enforce',
    message: 'unknown field "enforce"; did you mean "enforced"? (it is required here)',
  },
  {
    level: 'an entry, a field of no kind',
    text: ipRestriction('type: dashboard', 'enforced: true', `ip_policies: [${IPP}]`, 'colour: blue # <-'),
    path: 'ip_restrictions.office.colour',
    message:
      'unknown field "colour"; allowed: id, type, enforced, ip_policies, description, metadata, lifecycle',
  },
  {
    level: 'an entry, one of an "exactly one of" pair misspelled',
    text: y('version: 1', 'certificate_authorities:', '  root:', '    ca_pem_fil: certs/root.pem # <-'),
    path: 'certificate_authorities.root.ca_pem_fil',
    message: 'unknown field "ca_pem_fil"; did you mean "ca_pem_file"? (it is required here)',
  },
  {
    level: 'an entry with two required fields, one misspelled',
    text: sshCertificate(`ssh_certificate_authority_id: ${SSHCA}`, 'principal: [bastion.example.com] # <-'),
    path: 'ssh_host_certificates.bastion.principal',
    message: 'unknown field "principal"; did you mean "principals"? (it is required here)',
  },
  {
    level: "an entry's lifecycle",
    text: ipRestriction(
      'type: dashboard',
      'enforced: true',
      `ip_policies: [${IPP}]`,
      'lifecycle:',
      '  prevent_destory: true # <-',
    ),
    path: 'ip_restrictions.office.lifecycle.prevent_destory',
    message: 'unknown field "prevent_destory"; did you mean "prevent_destroy"?',
  },
  {
    level: 'a TCP edge module',
    text: tcpEdge('ip_restrictions: absent # <-'),
    path: `tcp_edges.${TCP}.ip_restrictions`,
    message: 'unknown field "ip_restrictions"; did you mean "ip_restriction"? (it is required here)',
  },
  {
    level: "a TCP edge module's IP restriction",
    text: tcpEdge('ip_restriction:', '  enabled: true', `  ip_policy: [${IPP}] # <-`),
    path: `tcp_edges.${TCP}.ip_restriction.ip_policy`,
    message: 'unknown field "ip_policy"; did you mean "ip_policies"? (it is required here)',
  },
  {
    level: 'an HTTPS edge',
    text: httpsEdge('route: {} # <-'),
    path: `https_edges.${HTTPS}.route`,
    message: 'unknown field "route"; did you mean "routes"? (it is required here)',
  },
  {
    level: 'an HTTPS edge route',
    text: httpsEdge('routes:', `  ${ROUTE}:`, '    websocket: { enabled: true } # <-'),
    path: `https_edges.${HTTPS}.routes.${ROUTE}.websocket`,
    message: 'unknown field "websocket"; did you mean "websocket_tcp_converter"? (it is required here)',
  },
  {
    level: "an HTTPS edge route's websocket_tcp_converter",
    text: httpsEdge('routes:', `  ${ROUTE}:`, '    websocket_tcp_converter:', '      enable: true # <-'),
    path: `https_edges.${HTTPS}.routes.${ROUTE}.websocket_tcp_converter.enable`,
    message: 'unknown field "enable"; did you mean "enabled"?',
  },
];

/** 1-based line and column of the key on the line marked `# <-`. */
function markedKey(text: string): { line: number; col: number } {
  const lines = text.split('\n');
  const index = lines.findIndex((l) => l.endsWith('# <-'));
  const line = lines[index]!;
  return { line: index + 1, col: line.length - line.trimStart().length + 1 };
}

describe('unknown keys are located at the key, at every nesting level', () => {
  const scratch = new Scratch();
  afterAll(() => scratch.remove());

  it.each(levels)('$level', async ({ text, path, message }) => {
    const problems = await problemsOf(scratch, text);
    const at = markedKey(text);
    expect(problems.map((p) => ({ line: p.line, col: p.col, path: p.path, message: p.message }))).toEqual([
      { ...at, path, message },
    ]);
  });

  it('a required field that is missing, not misspelled, is still reported at its parent', async () => {
    const text = httpsEdge('routes:', `  ${ROUTE}:`, '    extra: 1');
    const problems = await problemsOf(scratch, text);
    expect(problems.map((p) => `${p.line}:${p.col} ${p.message}`)).toEqual([
      `5:7 missing required field "websocket_tcp_converter"`,
      '6:9 unknown field "extra"; allowed: websocket_tcp_converter',
    ]);
  });
});
