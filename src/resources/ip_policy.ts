// IP policies (shared/SPEC-ip-policies.md "IP policy"): description and metadata, and in the file the
// policy's whole rule set (DESIGN §1, §2), which src/resources/ip_policy_rule.ts plans as its own kind.
import { ID_PREFIXES } from '../ids.js';
import { cidrLines, formatCidr, isCidrProblem, parseCidr } from '../net/cidr.js';
import { type DesiredIpPolicyRule, ipPolicyRuleKey } from './ip_policy_rule.js';
import type { EntryReader, ManagedDescriptorOf, ManagedEntry, PathSegment, SharedFields } from './types.js';

/** CIDR files (`allow_file`, `deny_file`) hold long lists; anything larger is a mistake. */
export const MAX_CIDR_FILE_BYTES = 10 * 1024 * 1024;

export interface DesiredIpPolicy extends ManagedEntry {
  kind: 'ip_policy';
  /** Every rule the policy should have, one per canonical CIDR. */
  rules: DesiredIpPolicyRule[];
}

interface WrittenRule {
  allow?: string;
  deny?: string;
  allow_file?: string;
  deny_file?: string;
  description?: string;
}

export const ipPolicy: ManagedDescriptorOf<DesiredIpPolicy, 'ip_policies'> = {
  kind: 'ip_policy',
  section: 'ip_policies',
  nouns: { one: 'IP policy', many: 'IP policies' },
  collectionPath: '/ip_policies',
  listKey: 'ip_policies',
  idPrefix: ID_PREFIXES.ip_policy,
  itemPath: (id) => `/ip_policies/${encodeURIComponent(id)}`,
  read: (e, shared, reader) => ({
    kind: 'ip_policy',
    ...shared,
    rules: readRules(Array.isArray(e.rules) ? (e.rules as WrittenRule[]) : [], shared, reader),
  }),
  fields: [],
  normalizeLive: () => ({}),
  normalizeDesired: () => ({}),
  createBody: () => ({}),
  exportFields: () => ({}),
  exportComments: [' Each policy lists its whole rule set: a rule the file does not list is deleted.'],
};

/** The rules of one policy, each CIDR once whatever its action; problems reported at their place. */
function readRules(written: readonly WrittenRule[], policy: SharedFields, reader: EntryReader) {
  const rules: DesiredIpPolicyRule[] = [];
  const seen = new Map<string, string>();
  const at = (i: number): PathSegment[] => ['ip_policies', policy.key, 'rules', i];
  const add = (
    rule: Omit<DesiredIpPolicyRule, 'kind' | 'key' | 'protect' | 'policy'>,
    where: string,
    path: PathSegment[],
  ) => {
    const first = seen.get(rule.cidr);
    if (first !== undefined) {
      reader.report(
        path,
        `${where}${rule.cidr} is already a rule of this policy (${first}); a policy holds each CIDR once, whatever the action: keep one`,
      );
      return;
    }
    seen.set(rule.cidr, where === '' ? `rules[${path.at(-1)}]` : where.slice(0, -2));
    rules.push({
      kind: 'ip_policy_rule',
      key: ipPolicyRuleKey(policy.key, rule.cidr),
      policy: policy.key,
      protect: false,
      ...rule,
    });
  };
  written.forEach((w, i) => {
    if (typeof w !== 'object' || w === null) return;
    const action = w.allow !== undefined || w.allow_file !== undefined ? 'allow' : 'deny';
    const inline = w[action];
    if (typeof inline === 'string') {
      const path = [...at(i), action];
      const parsed = parseCidr(inline.trim());
      if (isCidrProblem(parsed)) {
        reader.report(path, parsed.problem);
        return;
      }
      add(
        {
          action,
          cidr: formatCidr(parsed),
          description: typeof w.description === 'string' ? w.description : '',
          loc: reader.loc(at(i)),
        },
        '',
        path,
      );
      return;
    }
    const fileField = `${action}_file` as const;
    const name = w[fileField];
    if (typeof name !== 'string') return;
    const path = [...at(i), fileField];
    if (w.description !== undefined) {
      reader.report(
        [...at(i), 'description'],
        `a rule read from ${fileField} has no description of its own; write the CIDRs as ${action}: entries to describe them`,
      );
    }
    const content = reader.content([...at(i), action], undefined, fileField, name, MAX_CIDR_FILE_BYTES);
    if (!content) return;
    const loc = reader.loc(at(i));
    for (const { line, text } of cidrLines(content.text)) {
      const where = `${content.label} line ${line}: `;
      const parsed = parseCidr(text);
      if (isCidrProblem(parsed)) {
        // The file's content is never echoed: only the line number and what would be valid.
        reader.report(
          path,
          parsed.suggestion
            ? `${where}not written as a range the service takes; write ${parsed.suggestion}`
            : `${where}not a CIDR range such as 203.0.113.0/24 or 2001:db8::/32 (one per line, # comments)`,
        );
        continue;
      }
      add({ action, cidr: formatCidr(parsed), description: '', loc }, where, path);
    }
  });
  return rules;
}
