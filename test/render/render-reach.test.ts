// The plan's reach, first in text and Markdown: a plan that widens the dashboard (a second policy, and a
// deny carved out of the first), puts an API restriction in force where everyone got through, and
// narrows a TCP edge (shown shortened, with a count of the CIDRs not shown).
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import type { Plan } from '../../src/plan/types.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { renderText } from '../../src/render/text.js';
import {
  desiredState,
  ipr,
  livePolicy,
  liveRule,
  marker,
  NOW,
  OPTIONS,
  policy,
  type RuleSpec,
  tcpModule,
  withPolicies,
} from '../plan/fixtures.js';
import { FakeAccount } from '../support/account.js';

const ID = { office: 'ipp_00000000000000000000office1', ci: 'ipp_00000000000000000000000ci1' } as const;

function reachPlan(): Plan {
  const account = new FakeAccount(NOW);
  const livePolicyWith = (key: keyof typeof ID, rules: RuleSpec[]) => {
    account.add('ip_policy', livePolicy(ID[key], { metadata: marker(key) }));
    rules.forEach((r, i) => {
      account.add(
        'ip_policy_rule',
        liveRule(`ipr_${key}${i}`, ID[key], r, { metadata: marker(`${key}/${r[1]}`) }),
      );
    });
  };
  livePolicyWith('office', [['allow', '198.51.100.0/24']]);
  livePolicyWith('ci', [
    ['allow', '192.0.2.0/24'],
    ['allow', '2001:db8::/32'],
  ]);
  account.add('ip_restriction', {
    id: 'ipx_dashboard',
    created_at: '2026-01-01T00:00:00Z',
    description: '',
    metadata: marker('dash'),
    type: 'dashboard',
    enforced: true,
    ip_policies: [{ id: ID.office }],
  });
  account.setModule('/edges/tcp/edgtcp_1/ip_restriction', {
    enabled: true,
    ip_policies: [{ id: ID.office }, { id: ID.ci }],
  });
  const desired = desiredState({
    ...withPolicies(
      policy('office', [
        ['allow', '198.51.100.0/24'],
        ['deny', '198.51.100.64/26'],
      ]),
      policy('ci', [
        ['allow', '192.0.2.0/25'],
        ['allow', '2001:db8::/48'],
      ]),
      policy('vpn', [['allow', '10.0.0.0/8']]),
    ),
    ip_restrictions: [
      ipr('dash', { type: 'dashboard', ip_policy_ids: ['office', 'vpn'] }),
      ipr('api', { type: 'api', ip_policy_ids: ['vpn'] }),
    ],
    tcp_edge_ip_restrictions: [tcpModule('edgtcp_1', { ip_policy_ids: ['office', 'ci'] })],
  });
  return plan(desired, account.live(desired), NOW, OPTIONS);
}

describe('reach in the plan', () => {
  const p = reachPlan();

  it('carries each changed scope whole in the JSON', () => {
    expect(p.safe).toBe(true);
    expect(p.reach.map((r) => r.scope)).toEqual(['dashboard', 'api', 'tcp_edges.edgtcp_1']);
    expect(p.reach_unchanged).toEqual(['agent', 'endpoints']);
    const [dashboard, api, edge] = p.reach;
    expect(dashboard?.let_in).toEqual({ everyone: false, cidrs: ['10.0.0.0/8'], addresses: '16777216' });
    expect(dashboard?.shut_out).toEqual({ everyone: false, cidrs: ['198.51.100.64/26'], addresses: '64' });
    expect(dashboard?.after.cidrs).toEqual(['10.0.0.0/8', '198.51.100.0/26', '198.51.100.128/25']);
    expect(api?.before.everyone).toBe(true);
    expect(api?.after.cidrs).toEqual(['10.0.0.0/8']);
    expect(edge?.shut_out.cidrs).toHaveLength(18);
    // 192.0.2.128/25, the deny 198.51.100.64/26 of office, and 2001:db8::/32 but its first /48.
    expect(edge?.shut_out.addresses).toBe(((1n << 96n) - (1n << 80n) + 128n + 64n).toString());
  });

  it('shows it first in text, one line per scope', () => {
    const text = renderText(p, { color: false });
    expect(
      text.slice(0, text.indexOf('\n\n', text.indexOf('Who can reach what')) + 1),
    ).toMatchInlineSnapshot(`
      "accord will make these changes (owner platform, http://127.0.0.1:1):

      Who can reach what:
        dashboard: lets in 10.0.0.0/8 (16,777,216 addresses); shuts out 198.51.100.64/26 (64)
        api: everyone -> 10.0.0.0/8 only
        tcp_edges.edgtcp_1: shuts out 192.0.2.128/25, 198.51.100.64/26, 2001:db8:1::/48 and 15 more (79,226,953,588,444,722,964,369,244,352 addresses)
        2 scopes unchanged
      "
    `);
  });

  it('shows it first in Markdown, one line per scope', () => {
    const markdown = renderMarkdown(p);
    const start = markdown.indexOf('#### Who can reach what');
    expect(markdown.slice(0, start)).toBe('### accord plan (owner `platform`)\n\n');
    expect(markdown.slice(start, markdown.indexOf('####', start + 1))).toMatchInlineSnapshot(`
      "#### Who can reach what

      - dashboard: lets in 10.0.0.0/8 (16,777,216 addresses); shuts out 198.51.100.64/26 (64)
      - api: everyone -> 10.0.0.0/8 only
      - tcp_edges.edgtcp_1: shuts out 192.0.2.128/25, 198.51.100.64/26, 2001:db8:1::/48 and 15 more (79,226,953,588,444,722,964,369,244,352 addresses)
      - 2 scopes unchanged

      "
    `);
  });
});
