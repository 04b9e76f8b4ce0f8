// IP policy rules (shared/SPEC-ip-policies.md "IP policy rule"). The file writes them inside their
// policy (DESIGN §1): a managed policy owns its whole rule set, and a rule is named by its policy and
// its canonical CIDR, so its CIDR, action and policy cannot be updated (a flip is a delete and a create).

import { ID_PREFIXES } from '../ids.js';
import { canonicalCidr } from '../net/cidr.js';
import { plannedId } from './known-after-apply.js';
import { type ManagedEntry, managedKind } from './types.js';
import { isRecord, str } from './values.js';

export interface DesiredIpPolicyRule extends ManagedEntry {
  kind: 'ip_policy_rule';
  /** The key of the policy in the file. */
  policy: string;
  action: 'allow' | 'deny';
  /** Canonical (src/net/cidr.ts). */
  cidr: string;
}

/** A rule's marker key and the last part of its address: `POLICYKEY/CIDR`. */
export function ipPolicyRuleKey(policyKey: string, cidr: string): string {
  return `${policyKey}/${cidr}`;
}

export const ipPolicyRule = managedKind<DesiredIpPolicyRule, 'ip_policy_rules'>({
  kind: 'ip_policy_rule',
  section: 'ip_policy_rules',
  nouns: { one: 'IP policy rule', many: 'IP policy rules' },
  idPrefix: ID_PREFIXES.ip_policy_rule,
  // Read with their policy (src/resources/ip_policy.ts).
  read: () => undefined,
  within: {
    section: 'ip_policies',
    entries: (policy) => (policy as { rules?: DesiredIpPolicyRule[] }).rules ?? [],
    parentId: (values) => str(values['ip_policy']),
    identity: (values) => str(values['cidr']),
    key: ipPolicyRuleKey,
    // A policy key has no `/` ([a-z0-9._-]): the first one ends it.
    parentKey: (key) => key.slice(0, key.indexOf('/')),
    field: 'rules',
    exportEntry: (live) => {
      const description = str(live['description']);
      const cidr = canonicalCidr(str(live['cidr'])) ?? str(live['cidr']);
      return {
        [live['action'] === 'deny' ? 'deny' : 'allow']: cidr,
        ...(description ? { description } : {}),
      };
    },
  },
  fields: [
    { name: 'ip_policy', immutable: true, references: 'ip_policies' },
    { name: 'action', immutable: true },
    { name: 'cidr', immutable: true },
  ],
  normalizeLive: (live) => ({
    ip_policy: isRecord(live['ip_policy']) ? str(live['ip_policy']['id']) : '',
    action: str(live['action']),
    cidr: canonicalCidr(str(live['cidr'])) ?? str(live['cidr']),
  }),
  normalizeDesired: (d) => ({ ip_policy: d.policy, action: d.action, cidr: d.cidr }),
  createBody: (v) => ({ ip_policy_id: v['ip_policy'], action: v['action'], cidr: v['cidr'] }),
  // Written with their policy by src/resources/ip_policy.ts.
  exportFields: () => ({}),
  traffic: {
    role: 'rule',
    rule: (v) => ({
      policy: plannedId(v['ip_policy']),
      action: v['action'] === 'deny' ? 'deny' : 'allow',
      cidr: str(v['cidr']),
    }),
  },
});
