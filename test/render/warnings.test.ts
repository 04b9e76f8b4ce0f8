// A plan's warnings are data (`warning_codes`) and its `warnings` are their sentences: nothing reads a
// warning's text back to learn which entry it is about.
import { describe, expect, it } from 'vitest';
import { validate } from '../../src/apply/generated/plan-validator.js';
import { plan } from '../../src/cli/worded-plan.js';
import type { Warning } from '../../src/plan/types.js';
import { warningText } from '../../src/render/warnings.js';
import {
  ca,
  desiredState,
  emptyLive,
  ipr,
  liveIpr,
  liveState,
  marker,
  NOW,
  OPTIONS,
} from '../plan/fixtures.js';

/** The generated validator's last errors, for the failure message. */
const problems = () => JSON.stringify((validate as { errors?: unknown }).errors);

describe('warning_codes', () => {
  it('a CA expiring soon: the facts beside the sentence, valid against the plan schema', () => {
    const desired = desiredState({
      certificate_authorities: [ca('soon', 's1', { not_after: '2026-12-01T00:00:00.000Z' })],
    });
    const p = plan(desired, emptyLive(), NOW, OPTIONS);
    expect(p.warning_codes).toEqual([
      expect.objectContaining({
        code: 'ca_expiry',
        address: 'certificate_authorities.soon',
        days: expect.any(Number),
      }),
    ]);
    expect(p.warnings).toEqual(p.warning_codes!.map(warningText));
    expect(validate(JSON.parse(JSON.stringify(p))), problems()).toBe(true);
  });

  it('an id: that is gone is matched by marker, and the warning names the entry and id as facts', () => {
    const desired = desiredState({ ip_restrictions: [ipr('office', { id: 'ipx_gone' })] });
    const live = liveState({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('office') })] });
    const p = plan(desired, live, NOW, OPTIONS);
    expect(p.warning_codes).toEqual([
      expect.objectContaining({ code: 'id_gone', address: 'ip_restrictions.office', id: 'ipx_gone' }),
    ]);
    expect(validate(JSON.parse(JSON.stringify(p))), problems()).toBe(true);
  });

  it('a saved plan of format 5 without warning_codes still reads', () => {
    const p = plan(desiredState({}), emptyLive(), NOW, OPTIONS);
    const { warning_codes: _, ...older } = JSON.parse(JSON.stringify(p));
    expect(validate(older)).toBe(true);
  });
});

describe('warningText says each warning as before', () => {
  it.each<[Warning, string]>([
    [
      { code: 'allows_everything', address: 'ip_policies.office/0.0.0.0/0', cidr: '0.0.0.0/0' },
      'ip_policies.office/0.0.0.0/0: allow 0.0.0.0/0 allows every address',
    ],
    [
      { code: 'no_reach', scope: 'tcp_edges.edgtcp_1', policies: [] },
      'TCP edge edgtcp_1: no address is let through, today or after this plan (policies: none)',
    ],
    [
      { code: 'threshold_forced', destroyed: 4, managed: 11, percent: 36.4, max: 25 },
      'would delete or replace 4 of 11 managed resources (36.4%), more than --max-destroy-percent 25; allowed by --force',
    ],
    [
      { code: 'unseen_tcp_edges', address: 'ip_policies.office', id: 'ipp_1', edges: 'unlisted' },
      'ip_policies.office: the TCP edges were not listed, so TCP edge IP restriction modules the files do not name may still name ipp_1; check them before applying',
    ],
    [
      {
        code: 'ambiguous_rename',
        address: 'ip_policies.b',
        objects: [{ id: 'ipp_1', address: 'ip_policies.a' }],
        rivals: ['ip_policies.c'],
      },
      'ip_policies.b: the immutable values equal those of ipp_1 (ip_policies.a), but so does ip_policies.c; planned as a create and a delete; give the entry id: ipp_1 to make it a rename',
    ],
    [
      {
        code: 'valid_for_kept',
        address: 'ssh_host_certificates.web',
        id: 'shcrt_1',
        valid_for: 90 * 86_400,
        lifetime: 30 * 86_400,
        valid_until: '2027-01-01T00:00:00Z',
      },
      'ssh_host_certificates.web: valid_for 90d applies only when a certificate is created; shcrt_1 was issued for about 30d (valid until 2027-01-01T00:00:00Z) and keeps it. It gets the new lifetime when it is replaced: add renew_before (e.g. renew_before: 30d) to replace it once its expiry is nearer than that, or delete it in the account to have the next apply create it again.',
    ],
  ])('%o', (w, text) => {
    expect(warningText(w)).toBe(text);
  });
});
