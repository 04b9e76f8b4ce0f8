import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import type { Plan } from '../../src/plan/types.js';
import { driftReport, renderDriftText } from '../../src/render/drift.js';
import { renderDriftMarkdown } from '../../src/render/drift-markdown.js';
import { renderJson } from '../../src/render/json.js';
import { MARKDOWN_LIMIT, renderMarkdown } from '../../src/render/markdown.js';
import { renderText } from '../../src/render/text.js';
import {
  ca,
  cert,
  desiredState,
  emptyLive,
  fakePem,
  ipr,
  liveCa,
  liveCert,
  liveIpr,
  livePolicy,
  liveRule,
  marker,
  NOW,
  OPTIONS,
  policy,
  tcpModule,
  withPolicies,
} from '../plan/fixtures.js';

function samplePlan(): Plan {
  const live = emptyLive();
  live.managed.ip_restriction = [
    liveIpr('ipx_1', { metadata: marker('office') }),
    liveIpr('ipx_2', { type: 'api', metadata: marker('gone') }),
    liveIpr('ipx_3', { type: 'agent' }),
  ];
  live.managed.certificate_authority = [liveCa('ca_1', 'old', { metadata: marker('root') })];
  live.managed.ssh_host_certificate = [liveCert('shcrt_1', { metadata: marker('b', { owner: 'other' }) })];
  live.modules = { 'tcp_edges.edgtcp_1.ip_restriction': null };
  return plan(
    desiredState({
      ip_restrictions: [ipr('office', { enforced: false })],
      certificate_authorities: [ca('root', 'new')],
      ssh_host_certificates: [cert('bastion')],
      tcp_edge_ip_restrictions: [tcpModule('edgtcp_1')],
    }),
    live,
    NOW,
    OPTIONS,
  );
}

describe('text', () => {
  const p = samplePlan();
  const text = renderText(p, { color: false });

  it('shows each action Terraform-style and ends with the summary line', () => {
    expect(text).toContain('  + ssh_host_certificates.bastion\n');
    expect(text).toContain(
      '  ~ ip_restrictions.office (ipx_1)\n        type: dashboard\n      ~ enforced = true -> false\n',
    );
    expect(text).toContain('-/+ certificate_authorities.root (ca_1)');
    expect(text).toContain('  - ip_restrictions.gone (ipx_2)');
    expect(text).toContain('  ~ tcp_edges.edgtcp_1.ip_restriction (edgtcp_1)');
    expect(text).toContain('1 resource of other owners left alone.');
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      'Plan: 1 to create, 1 to patch, 1 to put, 1 to replace, 1 to delete, 0 to adopt. 0 unchanged, 4 unmanaged left alone.',
    );
    expect(text).not.toContain('\u001b[');
  });

  it('shows a PEM as CN, expiry and fingerprint, never in full', () => {
    expect(text).toMatch(
      /ca_pem = CN=CN old, expires 2030-01-01T00:00:00Z, SHA-256 [0-9a-f]{2}(:[0-9a-f]{2}){31} -> CN=CN new/,
    );
    for (const seed of ['old', 'new']) {
      const body = fakePem(seed).pem.split('\n')[1]!;
      expect(text).not.toContain(body);
      expect(renderMarkdown(p)).not.toContain(body);
    }
    expect(text).not.toContain('BEGIN CERTIFICATE');
  });

  it('shows a PEM the same way in drift reports, where the kind of each object says how', () => {
    const root = p.changes.find((c) => c.address === 'certificate_authorities.root')!;
    const { before, after } = root;
    const report = driftReport({
      ...p,
      changes: [{ ...root, drift: { ca_pem: 'outside' } }],
    });
    const shown =
      /ca_pem: accord wrote CN=CN new, expires \S+, SHA-256 [0-9a-f:]{95}, now CN=CN old, expires/;
    expect(renderDriftText(report)).toMatch(shown);
    expect(renderDriftMarkdown(report)).toContain('`CN=CN old, expires');
    const body = fakePem('old').pem.split('\n')[1]!;
    expect(renderDriftText(report) + renderDriftMarkdown(report)).not.toContain(body);
    expect(before?.['ca_pem']).not.toEqual(after?.['ca_pem']);
  });

  it('colours only when asked', () => {
    expect(renderText(p, { color: true })).toContain('\u001b[32m');
  });

  it('says when there is nothing to do', () => {
    const empty = renderText(plan(desiredState(), emptyLive(), NOW, OPTIONS), { color: false });
    expect(empty).toBe(
      'No changes. The account matches the file.\n\nPlan: 0 to create, 0 to patch, 0 to put, 0 to replace, 0 to delete, 0 to adopt. 0 unchanged, 3 unmanaged left alone.\n',
    );
  });
});

describe('a policy whose rules alone change', () => {
  // The policy's own change is a no-op: its group of rule lines still says where the policy is written.
  const live = emptyLive();
  live.managed.ip_policy = [
    ...live.managed.ip_policy,
    livePolicy('ipp_office', { metadata: marker('office') }),
  ];
  live.managed.ip_policy_rule = [
    ...live.managed.ip_policy_rule,
    liveRule('ipr_1', 'ipp_office', ['allow', '198.51.100.0/24']),
  ];
  const office = policy('office', [['allow', '203.0.113.0/24']], {
    loc: { file: 'policies.yaml', line: 7, col: 3 },
  });
  const p = plan(desiredState(withPolicies(office)), live, NOW, OPTIONS);

  it('names the file and line of the policy in text', () => {
    expect(renderText(p, { color: false })).toContain(
      '  # ip_policies.office: its rules will change\n  # policies.yaml:7\n  ~ ip_policies.office (ipp_office)\n',
    );
  });

  it('names them in Markdown', () => {
    expect(renderMarkdown(p)).toContain(
      '# ip_policies.office: its rules will change\n# policies.yaml:7\n~ ip_policies.office\n',
    );
  });
});

describe('json', () => {
  it('is valid against schemas/plan.schema.json', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    const schema = JSON.parse(
      readFileSync(new URL('../../schemas/plan.schema.json', import.meta.url), 'utf8'),
    );
    const validate = ajv.compile(schema);
    const parsed = JSON.parse(renderJson(samplePlan()));
    expect(validate(parsed), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...parsed, extra: 1 })).toBe(false);
  });
});

describe('markdown', () => {
  it('has a summary, a table and details', () => {
    const md = renderMarkdown(samplePlan());
    expect(md).toContain('**Plan: 1 to create');
    expect(md).toContain('| Action | Address | ID | Context | Reasons |');
    expect(md).toContain(
      '| `-/+` replace | `certificate_authorities.root` | `ca_1` | | ca_pem cannot be updated |',
    );
    expect(md).toContain('<details><summary>Details</summary>');
  });

  it(`never passes ${MARKDOWN_LIMIT} characters and says what it left out`, () => {
    const live = emptyLive();
    live.managed.ssh_host_certificate = Array.from({ length: 3000 }, (_, i) =>
      liveCert(`shcrt_${i}`, { metadata: marker(`host-${i}`) }),
    );
    const p = plan(desiredState(), live, NOW, { ...OPTIONS, force: true });
    const md = renderMarkdown(p);
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(md).toMatch(/_\d+ more changes are not shown/);
    expect(renderMarkdown(p, 5000).length).toBeLessThanOrEqual(5000);
  });
});
