// Reasons are data (`reason_codes`), and what a change is besides an entry's own change is its `step`:
// the planner and the renderers learn facts from those, never from a sentence or an address. The
// plan's readable `reasons` are the sentences of the codes (src/render/reasons.ts).
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import { entryOf } from '../../src/plan/select.js';
import type { Plan, PlanChange } from '../../src/plan/types.js';
import { reasonText } from '../../src/render/reasons.js';
import { renderText } from '../../src/render/text.js';
import {
  ca,
  desiredState,
  IPP_1,
  IPP_2,
  ipr,
  liveCa,
  liveIpr,
  livePolicy,
  liveRule,
  liveState,
  marker,
  NOW,
  OPTIONS,
  policy,
  withPolicies,
} from './fixtures.js';

const at = (p: Plan, address: string): PlanChange => {
  const c = p.changes.find((x) => x.address === address);
  if (!c) throw new Error(`no change at ${address}: ${p.changes.map((x) => x.address).join(', ')}`);
  return c;
};

describe('reasons as data', () => {
  it('a swap of two restrictions: each renamed from the other, and types swapped', () => {
    const p = plan(
      desiredState({ ip_restrictions: [ipr('a', { type: 'api' }), ipr('b', { type: 'dashboard' })] }),
      liveState({
        ip_restriction: [
          liveIpr('ipx_1', { type: 'dashboard', metadata: marker('a') }),
          liveIpr('ipx_2', { type: 'api', metadata: marker('b') }),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(at(p, 'ip_restrictions.a').reason_codes).toEqual([
      { code: 'renamed', from: 'b' },
      { code: 'swapped', fields: ['type'], with: 'b' },
    ]);
    expect(at(p, 'ip_restrictions.a').reasons).toEqual(['renamed from b', 'types swapped with b']);
  });

  it('a replace names each immutable field; a duplicate delete names what it keeps, and is a duplicate step', () => {
    const p = plan(
      desiredState({ certificate_authorities: [ca('root', 'new')] }),
      liveState({
        certificate_authority: [
          liveCa('ca_1', 'old', { metadata: marker('root') }),
          liveCa('ca_2', 'old', { metadata: marker('root'), created_at: '2026-02-01T00:00:00Z' }),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(at(p, 'certificate_authorities.root').reason_codes).toContainEqual({
      code: 'immutable',
      field: 'ca_pem',
    });
    const dup = at(p, 'certificate_authorities.root#ca_2');
    expect(dup.step).toBe('duplicate');
    expect(dup.reason_codes).toEqual([{ code: 'duplicate', kept: 'ca_1', key: 'root', oldest: true }]);
    expect(at(p, 'certificate_authorities.root').step).toBeUndefined();
  });

  it('both halves of a rule flip are flip steps, with what each does', () => {
    const live = liveState({
      ip_policy: [livePolicy('ipp_o', { metadata: marker('office') })],
      ip_policy_rule: [
        liveRule('ipr_1', 'ipp_o', ['allow', '203.0.113.0/24'], {
          metadata: marker('office/203.0.113.0/24'),
        }),
      ],
    });
    const p = plan(
      desiredState(withPolicies(policy('office', [['deny', '203.0.113.0/24']]))),
      live,
      NOW,
      OPTIONS,
    );
    const gone = at(p, 'ip_policies.office/203.0.113.0/24#ipr_1');
    const made = at(p, 'ip_policies.office/203.0.113.0/24');
    expect([gone.step, made.step]).toEqual(['flip', 'flip']);
    // What the delete is a step of is a field; the address's `#ipr_1` is only how it is shown.
    expect([gone.step_of, made.step_of]).toEqual(['ip_policies.office/203.0.113.0/24', undefined]);
    expect(gone.reason_codes).toEqual([
      { code: 'flip_delete', fields: ['action'], address: 'ip_policies.office/203.0.113.0/24' },
    ]);
    expect(made.reason_codes).toEqual([{ code: 'flip_create', fields: ['action'], id: 'ipr_1' }]);
    expect(renderText(p, { color: false })).toContain('~ 203.0.113.0/24: allow -> deny');
  });

  it('a restriction that swaps policies gets a union step, marked as one and not counted', () => {
    const p = plan(
      desiredState({ ip_restrictions: [ipr('office', { ip_policy_ids: [IPP_2] })] }),
      liveState({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('office') }, [IPP_1])] }),
      NOW,
      OPTIONS,
    );
    const union = at(p, 'ip_restrictions.office#union');
    expect([union.step, union.step_of]).toEqual(['union', 'ip_restrictions.office']);
    expect(union.reason_codes).toEqual([{ code: 'union' }]);
    expect(p.changes.filter((c) => c.action === 'patch')).toHaveLength(2);
    expect(p.summary.patch).toBe(1);
  });

  it("a duplicate under an entry's key says whose it is in a field", () => {
    const p = plan(
      desiredState({}),
      liveState({
        ip_restriction: [
          liveIpr('ipx_1', { metadata: marker('office') }),
          liveIpr('ipx_2', { type: 'api', metadata: marker('office') }),
        ],
      }),
      NOW,
      OPTIONS,
    );
    const duplicate = p.changes.find((c) => c.step === 'duplicate')!;
    expect(duplicate.step_of).toBe('ip_restrictions.office');
    expect(duplicate.address).not.toBe(duplicate.step_of);
  });

  it('the entry of a change is read from its step_of, never cut from its address', () => {
    expect(entryOf({ address: 'ip_restrictions.a#b' })).toBe('ip_restrictions.a#b');
    expect(
      entryOf({ address: 'tcp_edges.e.ip_restriction#union-2', step_of: 'tcp_edges.e.ip_restriction' }),
    ).toBe('tcp_edges.e.ip_restriction');
  });

  it('the text plan shows what the codes say, whatever the sentences read', () => {
    const p = plan(
      desiredState({
        ip_restrictions: [ipr('office-vpn')],
        certificate_authorities: [ca('root', 'new')],
      }),
      liveState({
        ip_restriction: [liveIpr('ipx_1', { metadata: marker('office') })],
        certificate_authority: [liveCa('ca_1', 'old', { metadata: marker('root') })],
      }),
      NOW,
      OPTIONS,
    );
    for (const c of p.changes) c.reasons = c.reasons.map(() => 'reworded');
    const text = renderText(p, { color: false });
    expect(text).toContain('~ ip_restrictions.office-vpn (ipx_1)  # renamed from office');
    expect(text).toMatch(/ca_pem = .* -> .*# forces replacement/);
  });

  it('every code reads as one sentence', () => {
    const p = plan(
      desiredState({ ip_restrictions: [ipr('office')] }),
      liveState({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('gone') }), liveIpr('ipx_2')] }),
      NOW,
      OPTIONS,
    );
    for (const c of p.changes) expect(c.reasons).toEqual(c.reason_codes.map(reasonText));
  });
});
