// IP policies (shared/SPEC-ip-policies.md "IP policy"): description and metadata, and in the file the
// policy's whole rule set (DESIGN §1, §2), which src/resources/ip_policy_rule.ts plans as its own kind.
import { ID_PREFIXES } from '../ids.js';
import { cidrLineProblem, cidrLines, formatCidr, isCidrProblem, parseCidr } from '../net/cidr.js';
import { type DesiredIpPolicyRule, ipPolicyRuleKey } from './ip_policy_rule.js';
import {
  type EntryReader,
  type ManagedEntry,
  managedKind,
  type PathSegment,
  type SharedFields,
} from './types.js';

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

export const ipPolicy = managedKind<DesiredIpPolicy, 'ip_policies'>({
  kind: 'ip_policy',
  section: 'ip_policies',
  nouns: { one: 'IP policy', many: 'IP policies' },
  idPrefix: ID_PREFIXES.ip_policy,
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
  traffic: { role: 'policy' },
});

/** The rules of one policy, each CIDR once whatever its action; problems reported at their place. */
function readRules(written: readonly WrittenRule[], policy: SharedFields, reader: EntryReader) {
  const rules = new PolicyRules(policy, reader);
  written.forEach((w, i) => {
    if (typeof w !== 'object' || w === null) return;
    const at: PathSegment[] = ['ip_policies', policy.key, 'rules', i];
    const action = w.allow !== undefined || w.allow_file !== undefined ? 'allow' : 'deny';
    const inline = w[action];
    if (typeof inline === 'string') {
      const path = [...at, action];
      const parsed = parseCidr(inline.trim());
      if (isCidrProblem(parsed)) {
        reader.report(path, parsed.problem);
        return;
      }
      const description = typeof w.description === 'string' ? w.description : '';
      rules.add({ action, cidr: formatCidr(parsed), description, loc: reader.loc(at) }, '', path);
      return;
    }
    const fileField = `${action}_file` as const;
    const name = w[fileField];
    if (typeof name !== 'string') return;
    if (w.description !== undefined) {
      reader.report(
        [...at, 'description'],
        `a rule read from ${fileField} has no description of its own; write the CIDRs as ${action}: entries to describe them`,
      );
    }
    rules.addFile(at, action, name);
  });
  return rules.list;
}

type RuleFields = Omit<DesiredIpPolicyRule, 'kind' | 'key' | 'protect' | 'policy'>;

/** The rules of one policy as they are read, and where each CIDR was first given. */
class PolicyRules {
  readonly list: DesiredIpPolicyRule[] = [];
  readonly #seen = new Map<string, string>();

  constructor(
    private readonly policy: SharedFields,
    private readonly reader: EntryReader,
  ) {}

  /** Adds a rule, `where` it was written (a file's line, '' for the rule's own entry) and its `path`. */
  add(rule: RuleFields, where: string, path: PathSegment[]): void {
    const first = this.#seen.get(rule.cidr);
    if (first !== undefined) {
      this.reader.report(
        path,
        `${where}${rule.cidr} is already a rule of this policy (${first}); a policy holds each CIDR once, whatever the action: keep one`,
      );
      return;
    }
    this.#seen.set(rule.cidr, where === '' ? `rules[${path.at(-2)}]` : where.slice(0, -2));
    const { key } = this.policy;
    this.list.push({
      kind: 'ip_policy_rule',
      key: ipPolicyRuleKey(key, rule.cidr),
      policy: key,
      protect: false,
      ...rule,
    });
  }

  /** Adds a rule for each CIDR line of the file that the rule at `at` names as `${action}_file`. */
  addFile(at: PathSegment[], action: 'allow' | 'deny', name: string): void {
    const fileField = `${action}_file` as const;
    const path = [...at, fileField];
    const content = this.reader.content([...at, action], undefined, fileField, name, MAX_CIDR_FILE_BYTES);
    if (!content) return;
    const loc = this.reader.loc(at);
    for (const { line, text } of cidrLines(content.text)) {
      const where = `${content.label} line ${line}: `;
      const parsed = parseCidr(text);
      if (isCidrProblem(parsed)) {
        this.reader.report(path, cidrLineProblem(content.label, line, parsed));
        continue;
      }
      this.add({ action, cidr: formatCidr(parsed), description: '', loc }, where, path);
    }
  }
}
