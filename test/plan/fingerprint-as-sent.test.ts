// The fingerprint records what was written (DESIGN §4 "Drift"): a request naming an ID made by the
// same apply is fingerprinted once that ID is filled in; a fingerprint an earlier version wrote with
// a placeholder for such a field (`......`) is read as "not recorded", never as the file's.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attributeDrift, fingerprint } from '../../src/plan/drift.js';
import { fillKnownAfterApply, knownAfterApply } from '../../src/plan/references.js';
import {
  changeRequests,
  fingerprintFields,
  type ShownChange,
  shownMarker,
  withFingerprintAsSent,
} from '../../src/plan/requests.js';
import type { PlannedRequest } from '../../src/plan/types.js';
import { descriptorFor } from '../../src/resources/index.js';
import { plannedIdSet } from '../../src/resources/known-after-apply.js';
import { decodeMarker } from '../../src/resources/marker.js';

const OWNER = 'platform';
const MARKER = { owner: OWNER, key: 'x' };
const NOW = new Date('2026-01-01T00:00:00Z');
const RESTRICTION = fingerprintFields(descriptorFor('ip_restriction'));

const id = fc.stringMatching(/^[A-Za-z0-9]{1,27}$/).map((s) => `ipp_${s}`);
const key = fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/);

/** A restriction's change naming `live` policies by ID and `made` ones (keys) made by the same apply. */
function restrictionChange(
  action: 'create' | 'patch',
  live: readonly string[],
  made: readonly string[],
  data?: unknown,
): ShownChange {
  const policies = plannedIdSet([...live, ...made.map((k) => knownAfterApply(`ip_policies.${k}`))]);
  return {
    address: 'ip_restrictions.x',
    kind: 'ip_restriction',
    key: 'x',
    id: action === 'create' ? null : 'ipx_1',
    action,
    after: {
      type: 'api',
      enforced: true,
      ip_policies: policies,
      description: '',
      ...(data === undefined ? {} : { metadata: data }),
      protect: false,
      marker: shownMarker(OWNER, 'x'),
    },
    changed_fields: action === 'create' ? [] : ['ip_policies'],
  };
}

function sent(change: ShownChange, made: ReadonlyMap<string, string>): PlannedRequest {
  const idOf = (address: string) => made.get(address);
  const request = changeRequests(change, { owner: OWNER, createdAt: NOW })[0]!;
  return withFingerprintAsSent(fillKnownAfterApply(request, idOf) as PlannedRequest, change, OWNER, idOf);
}

describe('the fingerprint as sent', () => {
  it('property: is the fingerprint of the values written, the IDs made by the apply included', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('create' as const, 'patch' as const),
        fc.uniqueArray(id, { maxLength: 3 }),
        fc.uniqueArray(key, { minLength: 1, maxLength: 3 }),
        fc.option(fc.dictionary(key, fc.string()), { nil: undefined }),
        (action, live, made, data) => {
          const ids = new Map(made.map((k, i) => [`ip_policies.${k}`, `ipp_made${i}`]));
          const change = restrictionChange(action, live, made, data);
          const request = sent(change, ids);
          const written = fillKnownAfterApply(change.after, (a) => ids.get(a)) as Record<string, unknown>;
          // As the account lists them, and the planner compares them: a set, sorted.
          written['ip_policies'] = [...(written['ip_policies'] as string[])].sort();
          const marker = decodeMarker(request.body?.['metadata']);
          expect(marker?.applied).toBe(fingerprint(RESTRICTION, written, MARKER));
          expect(marker?.applied).not.toContain('......');
          // Everything else of the marker is as planned.
          const planned = decodeMarker(
            changeRequests(change, { owner: OWNER, createdAt: NOW })[0]!.body?.['metadata'],
          );
          expect({ ...marker, applied: undefined }).toEqual({ ...planned, applied: undefined });
        },
      ),
    );
  });

  it('leaves a request that names no ID made by the apply as planned', () => {
    const change = restrictionChange('patch', ['ipp_a', 'ipp_b'], []);
    const request = changeRequests(change, { owner: OWNER, createdAt: NOW })[0]!;
    expect(withFingerprintAsSent(request, change, OWNER, () => undefined)).toBe(request);
  });
});

describe('a fingerprint written with a placeholder by an earlier version', () => {
  const placeholder = { ip_policies: [knownAfterApply('ip_policies.p')] };
  const old = fingerprint(RESTRICTION, { type: 'api', enforced: true, ...placeholder }, MARKER);

  it('holds "......" for the field, as such versions wrote it', () => {
    expect(old.slice(3 + 12, 3 + 18)).toBe('......');
  });

  it('reads a change of that field as unknown (not the file’s), and still attributes the others', () => {
    const before = { type: 'api', enforced: false, ip_policies: ['ipp_EXT', 'ipp_p'] };
    const after = { type: 'api', enforced: true, ip_policies: ['ipp_p'] };
    expect(
      attributeDrift({
        fields: RESTRICTION,
        before,
        after,
        changed: ['enforced', 'ip_policies'],
        applied: old,
        markers: { live: MARKER, desired: MARKER },
      }).drift,
    ).toEqual({ enforced: 'outside', ip_policies: 'unknown' });
  });

  it('still reads an optional field the entry did not set as the file’s when the entry sets it', () => {
    const fields = fingerprintFields(descriptorFor('ssh_host_certificate'));
    const applied = fingerprint(fields, {}, { owner: OWNER, key: 'h' });
    expect(
      attributeDrift({
        fields,
        before: {},
        after: { valid_after: '2026-01-01T00:00:00.000Z' },
        changed: ['valid_after'],
        applied,
        markers: { live: { owner: OWNER, key: 'h' }, desired: { owner: OWNER, key: 'h' } },
      }).drift,
    ).toEqual({ valid_after: 'file' });
  });
});
