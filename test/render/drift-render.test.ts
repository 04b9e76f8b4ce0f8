// What `accord drift` prints, and the plan outputs' drift notes, from plans made by the planner.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import type { Plan } from '../../src/plan/types.js';
import {
  driftReport,
  hasDrift,
  renderDriftJson,
  renderDriftText,
  type Unattributed,
  unattributedOf,
  unattributedText,
} from '../../src/render/drift.js';
import { DRIFT_MARKDOWN_LIMIT, renderDriftMarkdown } from '../../src/render/drift-markdown.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { renderText } from '../../src/render/text.js';
import {
  cert,
  desiredState,
  ipr,
  liveIpr,
  liveState,
  marker,
  NOW,
  OPTIONS,
  OWNER,
  tcpModule,
} from '../plan/fixtures.js';
import { FakeAccount } from '../support/account.js';

/** Applies `first`, lets `outside` edit the live objects, then plans `second`. */
function planAfter(
  first: ReturnType<typeof desiredState>,
  outside: (account: FakeAccount) => void,
  second = first,
): Plan {
  const account = new FakeAccount(NOW);
  account.execute(plan(first, account.live(first), NOW, OPTIONS));
  outside(account);
  return plan(second, account.live(second), NOW, OPTIONS);
}

describe('unattributed changes are data; the renderer says why', () => {
  const held: Unattributed = {
    why: 'slot_held',
    held: {
      code: 'slot_held',
      entry: { address: 'ip_restrictions.office', file: 'accord.yaml', line: 3, col: 5 },
      slot: 'IP restriction of type api',
      id: 'ipx_9',
      description: '',
      holder: { is: 'unmanaged' },
    },
  };
  it.each([
    [
      { why: 'edge_module', module: 'absent' },
      'edge module configured in the account while the file says "absent"; modules keep no fingerprint, so nothing tells whether the file or someone outside accord changed it',
    ],
    [
      { why: 'edge_module', module: 'not_configured' },
      'edge module not configured in the account; modules keep no fingerprint, so nothing tells whether it was removed outside accord or is new in the file',
    ],
    [
      { why: 'edge_module', module: 'differ' },
      'edge module; modules keep no fingerprint, so nothing tells whether the file or someone outside accord changed it',
    ],
    [{ why: 'missing' }, 'not in the account: deleted outside accord, or a new entry not applied yet'],
    [
      { why: 'marker_broken', holder: 'shcrt_1' },
      expect.stringMatching(/^marker broken: shcrt_1 names this key /),
    ],
    [
      held,
      'slot held: ip_restrictions.office (accord.yaml:3:5): the IP restriction of type api is held by ipx_9, which accord does not manage; adopt it with id: ipx_9 on this entry, or remove it from the account',
    ],
    [
      { why: 'no_fingerprint' },
      'its marker holds no fingerprint this version can read (written by an earlier accord, or edited by hand)',
    ],
    [{ why: 'not_written' }, 'accord has not written it yet (adopted with id:, not applied yet)'],
  ] as [Unattributed, unknown][])('%o', (u, text) => {
    expect(unattributedText(u)).toEqual(text);
  });

  it('an object taken over from an owner whose name starts with this one and a slash was never written by accord', () => {
    const desired = desiredState({ ip_restrictions: [ipr('office', { id: 'ipx_1', enforced: false })] });
    const taken = liveIpr('ipx_1', { metadata: marker('office', { owner: `${OWNER}/legacy` }) });
    const p = plan(desired, liveState({ ip_restriction: [taken] }), NOW, { ...OPTIONS, allowTakeover: true });
    const c = p.changes.find((x) => x.address === 'ip_restrictions.office')!;
    expect(c.reason_codes[0]).toEqual({ code: 'takeover', id: 'ipx_1', owner: `${OWNER}/legacy` });
    expect(unattributedOf(c)).toMatchObject({ why: 'not_written' });
    expect(driftReport(p).unattributed.map((u) => [u.address, u.why])).toEqual([
      ['ip_restrictions.office', 'not_written'],
    ]);
  });

  it('the report holds no sentence; --json says each why as its reason, as before', () => {
    const p = planAfter(
      desiredState(),
      () => {},
      desiredState({ ip_restrictions: [ipr('office')], tcp_edge_ip_restrictions: [tcpModule('edgtcp_1')] }),
    );
    const report = driftReport(p);
    for (const u of report.unattributed) expect('reason' in u).toBe(false);
    const json = JSON.parse(renderDriftJson(report)) as { unattributed: Record<string, unknown>[] };
    expect(json.unattributed.map((u) => Object.keys(u))).toEqual([
      ['address', 'kind', 'id', 'action', 'why', 'reason', 'fields'],
      ['address', 'kind', 'id', 'action', 'why', 'reason', 'fields'],
    ]);
    expect(json.unattributed.map((u) => u['reason'])).toEqual([
      'not in the account: deleted outside accord, or a new entry not applied yet',
      'edge module not configured in the account; modules keep no fingerprint, so nothing tells whether it was removed outside accord or is new in the file',
    ]);
  });
});

describe('drift report', () => {
  it('names the field, what accord wrote, the live value and the file; "both" does not claim what accord wrote', () => {
    const p = planAfter(
      desiredState({
        ip_restrictions: [ipr('office')],
        ssh_host_certificates: [cert('web', { description: 'a' })],
      }),
      (account) => {
        account.edit('ip_restriction', (o) => {
          o['enforced'] = false;
        });
        account.edit('ssh_host_certificate', (o) => {
          o['description'] = 'by hand';
        });
      },
      desiredState({
        ip_restrictions: [ipr('office')],
        ssh_host_certificates: [cert('web', { description: 'b' })],
      }),
    );
    const report = driftReport(p);
    expect(report.changes.map((c) => [c.address, c.fields])).toEqual([
      [
        'ip_restrictions.office',
        [{ field: 'enforced', source: 'outside', accord_wrote: true, live: false, file: true }],
      ],
      ['ssh_host_certificates.web', [{ field: 'description', source: 'both', live: 'by hand', file: 'b' }]],
    ]);
    const text = renderDriftText(report);
    expect(text).toContain('    enforced: accord wrote true, now false\n');
    expect(text).toContain(
      '    description: accord wrote unknown (the file changed too), now "by hand"; the file now says "b"\n',
    );
    expect(text).toContain('2 fields of 2 objects changed outside accord.');
    // What accord wrote is a value in code, or, when the file changed too, words that say it is unknown.
    const table = renderDriftMarkdown(report);
    expect(table).toContain('| `enforced` | `true` | `false` | `true` |');
    expect(table).toContain('| `description` | unknown (the file changed too) | `"by hand"` | `"b"` |');
    expect(renderText(p, { color: false })).toContain('      # changed outside accord: enforced\n');
    const md = renderMarkdown(p);
    expect(md.indexOf('#### Changed outside accord')).toBeLessThan(md.indexOf('**Plan:'));
    expect(md).toContain('#     changed outside accord: description');
  });

  it('lists what it cannot attribute by address, with why and what differs: drift all the same', () => {
    const p = planAfter(
      desiredState(),
      () => {},
      desiredState({ ip_restrictions: [ipr('office')], tcp_edge_ip_restrictions: [tcpModule('edgtcp_1')] }),
    );
    const report = driftReport(p);
    expect(report.changes).toEqual([]);
    expect(hasDrift(report)).toBe(true);
    expect(report.unattributed.map((u) => [u.address, u.action, u.why])).toEqual([
      ['ip_restrictions.office', 'create', 'missing'],
      ['tcp_edges.edgtcp_1.ip_restriction', 'put', 'edge_module'],
    ]);
    const text = renderDriftText(report);
    expect(text).not.toContain('No changes outside accord');
    expect(text).toContain(
      '  ip_restrictions.office\n    # not in the account: deleted outside accord, or a new entry not applied yet\n',
    );
    expect(text).toContain(
      '  tcp_edges.edgtcp_1.ip_restriction (edgtcp_1)\n    # edge module not configured',
    );
    expect(text).toMatch(/2 changes that no fingerprint can attribute\. accord apply sets them to the file/);
    const md = renderDriftMarkdown(report);
    expect(md).toContain('#### Cannot be attributed');
    expect(md).toContain('##### Missing from the account');
    expect(md).toContain('##### Edge modules');
    // A plan leaves creates to their reason, and says of the module that nothing tells who changed it.
    expect(renderMarkdown(p)).not.toContain('Changed outside accord');
    expect(renderText(p, { color: false })).toContain('      # who changed it cannot be told: edge module');
  });

  it('names a broken marker: a create beside the object for a certificate, a plan error for a type held', () => {
    const first = desiredState({ ip_restrictions: [ipr('office')], ssh_host_certificates: [cert('web')] });
    const account = new FakeAccount(NOW);
    account.execute(plan(first, account.live(first), NOW, OPTIONS));
    account.edit('ssh_host_certificate', (o) => {
      o['metadata'] = String(o['metadata']).slice(0, -2);
    });
    const [cert_] = account.objects('ssh_host_certificate');
    const certOnly = desiredState({ ssh_host_certificates: [cert('web')] });
    const p = plan(certOnly, account.live(certOnly), NOW, OPTIONS);
    const report = driftReport(p);
    expect(report.unattributed.map((u) => [u.address, u.action, u.why])).toEqual([
      ['ssh_host_certificates.web', 'create', 'marker_broken'],
    ]);
    expect(unattributedText(report.unattributed[0]!)).toMatch(
      new RegExp(
        `^marker broken: ${String(cert_!['id'])} names this key in metadata that is no longer an accord marker`,
      ),
    );
    account.edit('ip_restriction', (o) => {
      o['metadata'] = `  ${String(o['metadata']).slice(0, -2)}`;
    });
    expect(() => plan(first, account.live(first), NOW, OPTIONS)).toThrow(
      /ip_restrictions\.office .*: the IP restriction of type dashboard is held by ipx_\w+, whose accord marker for this entry was broken outside accord/,
    );
  });

  it('says nothing when the account holds what accord wrote', () => {
    const p = planAfter(desiredState({ ip_restrictions: [ipr('office')] }), () => {});
    const report = driftReport(p);
    expect([hasDrift(report), report.unattributed]).toEqual([false, []]);
    expect(renderDriftText(report)).toBe('No changes outside accord (owner platform, http://127.0.0.1:1).\n');
  });

  it('keeps its Markdown under the limit, saying how much it left out', () => {
    const entries = Array.from({ length: 3000 }, (_, i) =>
      cert(`host-${i}`, { description: 'x'.repeat(40) }),
    );
    const p = planAfter(desiredState({ ssh_host_certificates: entries }), (account) => {
      account.edit('ssh_host_certificate', (o) => {
        o['description'] = 'y'.repeat(200);
      });
    });
    expect(driftReport(p).changes).toHaveLength(3000);
    const md = renderDriftMarkdown(driftReport(p));
    expect(md.length).toBeLessThanOrEqual(DRIFT_MARKDOWN_LIMIT);
    expect(md).toMatch(/_\d+ more fields are not shown \(length limit\)\._\n$/);
    expect(renderMarkdown(p).length).toBeLessThanOrEqual(60_000);
  });
});
