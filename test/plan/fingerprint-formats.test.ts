// The marker part of the `applied` fingerprint is of the marker's fields (owner, key), never of how a
// plan shows the marker: here plans show it in another form than `owner/key`, and fingerprints of
// format "3" (written now) and "2" (written by earlier versions, of the text `owner/key`) still read.
import { describe, expect, it, vi } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import type { PlanChange } from '../../src/plan/types.js';
import { decodeMarker } from '../../src/resources/marker.js';
import type { LiveObject } from '../../src/resources/values.js';
import { FakeAccount } from '../support/account.js';
import { desiredState, IPP_1, ipr, NOW, OPTIONS, OWNER } from './fixtures.js';

vi.mock('../../src/plan/requests.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/plan/requests.js')>()),
  shownMarker: (owner: string, key: string) => `${key} of ${owner}`,
}));

/** As an earlier version wrote them for these entries (format "2": the marker part of `platform/KEY`). */
const FORMAT_2: Record<string, string> = {
  office: '2ImKZWE6Xtb6kG2U2844OEq4yyx47DEQp_LzxZZ',
  k0: '2H_KZWE6Xtb6kG2U2844OEq4yyx47DEQp_LzxZZ',
};
/** As this version writes them (format "3": the marker part of its fields). */
const FORMAT_3: Record<string, string> = {
  office: '3bKKZWE6Xtb6kG2U2844OEq4yyx47DEQp_LzxZZ',
  k0: '3E6KZWE6Xtb6kG2U2844OEq4yyx47DEQp_LzxZZ',
};

const entry = (key: string, enforced = true) =>
  ipr(key, { type: 'dashboard', enforced, ip_policy_ids: [IPP_1] });

function editAccord(obj: LiveObject, edit: (accord: Record<string, unknown>) => void) {
  const m = JSON.parse(String(obj['metadata']));
  edit(m.accord);
  obj['metadata'] = JSON.stringify(m);
}

/** `written` applied, its marker's fingerprint then set to `applied` and `outside` done to it. */
function account(written: string, applied?: string, outside?: (obj: LiveObject) => void): FakeAccount {
  const a = new FakeAccount(NOW, {});
  const desired = desiredState({ ip_restrictions: [entry(written)] });
  a.execute(plan(desired, a.live(desired), NOW, OPTIONS));
  a.edit('ip_restriction', (o) => {
    if (applied !== undefined) editAccord(o, (m) => (m['applied'] = applied));
    outside?.(o);
  });
  return a;
}

function change(a: FakeAccount, key: string, enforced = true): PlanChange {
  const desired = desiredState({ ip_restrictions: [entry(key, enforced)] });
  return plan(desired, a.live(desired), NOW, OPTIONS).changes[0]!;
}

const liveApplied = (a: FakeAccount) =>
  decodeMarker(String(a.objects('ip_restriction')[0]!['metadata']))!.applied;

describe('the fingerprint of the marker', () => {
  it('is written of the marker’s fields, whatever form plans show the marker in', () => {
    const a = account('office');
    expect(liveApplied(a)).toBe(FORMAT_3['office']);
    expect(change(a, 'office').after!['marker']).toBe(`office of ${OWNER}`);
  });

  it.each([
    ['3', FORMAT_3],
    ['2', FORMAT_2],
  ])('format "%s": an object as accord left it is no change', (_format, written) => {
    const c = change(account('office', written['office']), 'office');
    expect([c.action, c.drift]).toEqual(['no-op', {}]);
  });

  it.each([
    ['3', FORMAT_3],
    ['2', FORMAT_2],
  ])('format "%s": a field changed outside accord is told from one changed in the file', (_f, written) => {
    const outside = account('office', written['office'], (o) => (o['enforced'] = false));
    expect(change(outside, 'office').drift).toEqual({ enforced: 'outside' });
    expect(change(account('office', written['office']), 'office', false).drift).toEqual({ enforced: 'file' });
  });

  it.each([
    ['3', FORMAT_3],
    ['2', FORMAT_2],
  ])('format "%s": a key rewritten outside accord is told from a rename in the file', (_f, written) => {
    const rewritten = account('k0', written['k0'], (o) => editAccord(o, (m) => (m['key'] = 'k1')));
    expect(change(rewritten, 'k0').drift).toEqual({ marker: 'outside' });
    expect(change(account('k0', written['k0']), 'k1').drift).toEqual({ marker: 'file' });
    const both = account('k0', written['k0'], (o) => editAccord(o, (m) => (m['key'] = 'k1')));
    expect(change(both, 'k2').drift).toEqual({ marker: 'both' });
  });
});
