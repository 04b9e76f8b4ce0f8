// IP restrictions (shared/SPEC.md "IP restrictions"): one per type; only `type` is immutable.

import { ID_PREFIXES } from '../ids.js';
import { plannedIds } from './known-after-apply.js';
import { readReferences, reportRepeated } from './reading.js';
import { type ManagedEntry, managedKind } from './types.js';
import { list, refIds, str } from './values.js';

export interface DesiredIpRestriction extends ManagedEntry {
  kind: 'ip_restriction';
  type: 'dashboard' | 'api' | 'agent' | 'endpoints';
  enforced: boolean;
  /** Keys of ip_policies or ipp_ IDs, as the file writes them; sorted, unique. */
  ip_policy_ids: string[];
}

export const ipRestriction = managedKind<DesiredIpRestriction, 'ip_restrictions'>({
  kind: 'ip_restriction',
  section: 'ip_restrictions',
  nouns: { one: 'IP restriction', many: 'IP restrictions' },
  idPrefix: ID_PREFIXES.ip_restriction,
  read: (e, shared, reader) => ({
    kind: 'ip_restriction',
    ...shared,
    type: e.type,
    enforced: e.enforced,
    ip_policy_ids: readReferences(
      reader,
      ['ip_restrictions', shared.key, 'ip_policies'],
      'ip_policies',
      e.ip_policies,
    ),
  }),
  checkEntries: (restrictions, reader) =>
    reportRepeated(
      restrictions,
      reader,
      'ip_restrictions',
      'type',
      'the service allows one IP restriction per type, so merge their ip_policies into one entry',
    ),
  fields: [
    { name: 'type', immutable: true },
    { name: 'enforced', immutable: false, request: (v) => ['enforced', v] },
    {
      name: 'ip_policies',
      immutable: false,
      request: (v) => ['ip_policy_ids', v],
      references: 'ip_policies',
    },
  ],
  normalizeLive: (live) => ({
    type: str(live['type']),
    enforced: live['enforced'] === true,
    ip_policies: refIds(live['ip_policies']),
  }),
  normalizeDesired: (d) => ({ type: d.type, enforced: d.enforced, ip_policies: [...d.ip_policy_ids] }),
  createBody: (v) => ({ type: v['type'], enforced: v['enforced'], ip_policy_ids: list(v['ip_policies']) }),
  slot: (values) => `IP restriction of type ${String(values['type'])}`,
  exportFields: (live) => ({
    type: str(live['type']),
    enforced: live['enforced'] === true,
    ip_policies: refIds(live['ip_policies']),
  }),
  // One per type: the type names it.
  exportName: (live) => str(live['type']),
  traffic: {
    role: 'restriction',
    field: 'ip_policies',
    maxPolicies: 100,
    keepsPolicies: true,
    protectsLastRule: (v) => str(v['type']) === 'dashboard',
    restricts: (v) => ({
      scope: str(v['type']),
      name: str(v['type']),
      inForce: v['enforced'] === true,
      policies: plannedIds(v['ip_policies']),
    }),
  },
});
