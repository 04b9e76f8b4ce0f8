// IP restrictions (shared/SPEC.md "IP restrictions"): one per type; only `type` is immutable.
import type { DesiredIpRestriction } from '../config/model.js';
import type { ManagedDescriptor } from './types.js';
import { list, refIds, str } from './values.js';

export const ipRestriction: ManagedDescriptor<DesiredIpRestriction> = {
  kind: 'ip_restriction',
  section: 'ip_restrictions',
  collectionPath: '/ip_restrictions',
  listKey: 'ip_restrictions',
  idPrefix: 'ipx_',
  itemPath: (id) => `/ip_restrictions/${encodeURIComponent(id)}`,
  desired: (state) => state.ip_restrictions,
  fields: [
    { name: 'type', immutable: true },
    { name: 'enforced', immutable: false, request: (v) => ['enforced', v] },
    { name: 'ip_policies', immutable: false, request: (v) => ['ip_policy_ids', v] },
  ],
  normalizeLive: (live) => ({
    type: str(live['type']),
    enforced: live['enforced'] === true,
    ip_policies: refIds(live['ip_policies']),
  }),
  normalizeDesired: (d) => ({ type: d.type, enforced: d.enforced, ip_policies: [...d.ip_policy_ids] }),
  createBody: (v) => ({ type: v['type'], enforced: v['enforced'], ip_policy_ids: list(v['ip_policies']) }),
  slot: (values) => `IP restriction of type ${String(values['type'])}`,
};
