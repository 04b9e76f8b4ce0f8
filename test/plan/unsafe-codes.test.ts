// A plan's refusals are data (`unsafe_codes`) and its `unsafe_reasons` are their sentences; a refusal
// that --force lifts becomes a warning carrying the same data.
import { describe, expect, it } from 'vitest';
import { validate } from '../../src/apply/generated/plan-validator.js';
import { plan } from '../../src/cli/worded-plan.js';
import type { Refusal } from '../../src/plan/types.js';
import { refusalText } from '../../src/render/refusals.js';
import { desiredState, liveIpr, liveState, marker, NOW, OPTIONS } from './fixtures.js';

const problems = () => JSON.stringify((validate as { errors?: unknown }).errors);

describe('unsafe_codes', () => {
  it('a protected delete: the facts beside the sentence, valid against the plan schema', () => {
    const live = liveState({
      ip_restriction: [liveIpr('ipx_1', { metadata: marker('gone', { protect: true }) })],
    });
    const p = plan(desiredState({}), live, NOW, { ...OPTIONS, force: true });
    expect(p.safe).toBe(false);
    expect(p.unsafe_codes).toEqual([
      { code: 'protected', address: 'ip_restrictions.gone', id: 'ipx_1', action: 'delete' },
    ]);
    expect(p.unsafe_reasons).toEqual(p.unsafe_codes!.map(refusalText));
    expect(validate(JSON.parse(JSON.stringify(p))), problems()).toBe(true);
  });

  it('a plan of format 5 saved without unsafe_codes still reads', () => {
    const live = liveState({
      ip_restriction: [liveIpr('ipx_1', { metadata: marker('gone', { protect: true }) })],
    });
    const { unsafe_codes: _, ...older } = JSON.parse(
      JSON.stringify(plan(desiredState({}), live, NOW, OPTIONS)),
    );
    expect(validate(older), problems()).toBe(true);
  });
});

describe('refusalText says each refusal as before', () => {
  it.each<[Refusal, string]>([
    [
      { code: 'protected', address: 'ip_policies.office', id: 'ipp_1', action: 'replace' },
      'ip_policies.office: would replace ipp_1, which is protected (lifecycle.prevent_destroy); keep the entry with prevent_destroy: false, apply, then change it',
    ],
    [
      { code: 'threshold', destroyed: 4, managed: 11, percent: 36.4, max: 25 },
      'would delete or replace 4 of 11 managed resources (36.4%), more than --max-destroy-percent 25; review the plan and rerun with --force if it is intended',
    ],
    [
      {
        code: 'locked_out',
        scope: 'tcp_edges.edgtcp_1',
        policies: [],
        family: 6,
        today: { everyone: false, cidrs: ['2001:db8::/32'], addresses: '79228162514264337593543950336' },
      },
      'would lock out all IPv6 TCP edge edgtcp_1 traffic: after this plan its module names policies (none) that let no IPv6 address through, where today it lets through 2001:db8::/32 (79,228,162,514,264,337,593,543,950,336 addresses); add an allow rule that no deny rule covers, or rerun with --force if that is intended',
    ],
    [
      {
        code: 'locked_out',
        scope: 'dashboard',
        source: 'ip_restrictions.office',
        policies: ['ip_policies.office'],
        today: { everyone: false, cidrs: ['192.0.2.0/24'], addresses: '256' },
      },
      'would lock out all dashboard traffic: after this plan ip_restrictions.office names policies (ip_policies.office) that let no address through, where today it lets through 192.0.2.0/24 (256 addresses); add an allow rule that no deny rule covers, or rerun with --force if that is intended',
    ],
  ])('%o', (r, text) => {
    expect(refusalText(r)).toBe(text);
  });
});
