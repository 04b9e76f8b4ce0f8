// IP policy rules as a reviewer reads them (DESIGN §4 "Outputs"): grouped under their policy, one line
// each (`+ allow 198.51.100.0/24 (CI runners)`, `- deny 203.0.113.66/32`, a flip as
// `~ 10.0.0.0/8: allow -> deny`), and policies named by key where the plan knows it.
import { awaitedAddress } from '../references.js';
import { entryOf } from '../select.js';
import type { ChangeSource, Plan, PlanChange } from '../types.js';

const RULE = 'ip_policy_rule';

/** A rule change's line: its sign and text. */
export interface RuleLine {
  sign: '+' | '-' | '~';
  text: string;
}

export function isRuleChange(c: PlanChange): boolean {
  return c.kind === RULE;
}

/** The address of the policy a rule change belongs to (`ip_policies.office`). */
function policyAddress(c: PlanChange): string {
  const address = entryOf(c.address);
  return address.slice(0, address.indexOf('/'));
}

function described(values: Record<string, unknown> | null): string {
  const text = values?.['description'];
  return typeof text === 'string' && text !== '' ? ` (${text})` : '';
}

/** The rule changes of each policy, by policy address, as one line each, in CIDR order. */
export function ruleLines(changes: readonly PlanChange[]): Map<string, RuleLine[]> {
  const byPolicy = new Map<string, PlanChange[]>();
  for (const c of changes) {
    if (!isRuleChange(c) || c.action === 'no-op') continue;
    const list = byPolicy.get(policyAddress(c)) ?? [];
    list.push(c);
    byPolicy.set(policyAddress(c), list);
  }
  const out = new Map<string, RuleLine[]>();
  for (const [policy, list] of byPolicy) {
    const flips = new Map(list.filter((c) => c.address.includes('#')).map((c) => [c.key, c]));
    const lines: { cidr: string; line: RuleLine }[] = [];
    for (const c of list) {
      if (c.address.includes('#')) continue;
      const values = c.after ?? c.before ?? {};
      const cidr = String(values['cidr']);
      const action = String(values['action']);
      const flipped = flips.get(c.key);
      if (flipped && c.action === 'create') {
        lines.push({
          cidr,
          line: {
            sign: '~',
            text: `${cidr}: ${String(flipped.before?.['action'])} -> ${action}${described(c.after)}`,
          },
        });
      } else if (c.action === 'create') {
        lines.push({ cidr, line: { sign: '+', text: `${action} ${cidr}${described(c.after)}` } });
      } else if (c.action === 'delete') {
        lines.push({ cidr, line: { sign: '-', text: `${action} ${cidr}${described(c.before)}` } });
      } else {
        const why = c.changed_fields.includes('description')
          ? `description ${JSON.stringify(c.before?.['description'] ?? '')} -> ${JSON.stringify(c.after?.['description'] ?? '')}`
          : c.reasons.join('; ');
        lines.push({ cidr, line: { sign: '~', text: `${action} ${cidr}: ${why}` } });
      }
    }
    lines.sort((a, b) => (a.cidr < b.cidr ? -1 : a.cidr > b.cidr ? 1 : 0));
    out.set(
      policy,
      lines.map((l) => l.line),
    );
  }
  return out;
}

/** Policy IDs and placeholders the plan can name by key: `ipp_...` -> `office`. */
export function policyNames(plan: Plan): Map<string, string> {
  const names = new Map<string, string>();
  for (const c of plan.changes) {
    if (c.kind !== 'ip_policy' || c.action === 'delete' || c.address.includes('#')) continue;
    if (c.id !== null) names.set(c.id, c.key);
  }
  return names;
}

/** A restriction's `ip_policies` as keys where known: `office`, `office (new)`, or the ID. */
export function namedPolicies(ids: unknown, names: ReadonlyMap<string, string>): unknown {
  if (!Array.isArray(ids)) return ids;
  return ids.map((id) => {
    const awaited = awaitedAddress(id);
    if (awaited !== undefined) return `${awaited.slice(awaited.indexOf('.') + 1)} (known after apply)`;
    const key = names.get(String(id));
    return key === undefined ? id : `${key} (${String(id)})`;
  });
}

/**
 * Policies whose rules change while the policy itself does not: each shown as a group of its own, with
 * the policy's place in the files (its unchanged change's source, else that of its first rule change).
 */
export function rulesOnly(
  changes: readonly PlanChange[],
  rules: ReadonlyMap<string, RuleLine[]>,
): { address: string; id: string | null; source?: ChangeSource }[] {
  const shown = new Set(
    changes.filter((c) => c.action !== 'no-op' && !isRuleChange(c)).map((c) => c.address),
  );
  const sources = new Map<string, ChangeSource>();
  for (const c of changes) if (c.action === 'no-op' && c.source) sources.set(c.address, c.source);
  return [...rules.keys()]
    .filter((address) => !shown.has(address))
    .sort()
    .map((address) => {
      const rule = changes.find(
        (c) => isRuleChange(c) && c.action !== 'no-op' && policyAddress(c) === address,
      );
      const id = rule?.after?.['ip_policy'] ?? rule?.before?.['ip_policy'];
      const source = sources.get(address) ?? rule?.source;
      return {
        address,
        id: typeof id === 'string' && awaitedAddress(id) === undefined ? id : null,
        ...(source ? { source } : {}),
      };
    });
}
