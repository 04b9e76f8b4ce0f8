// IP policy rules as a reviewer reads them (DESIGN §4 "Outputs"): grouped under their policy, one line
// each (`+ allow 198.51.100.0/24 (CI runners)`, `- deny 203.0.113.66/32`, a flip as
// `~ 10.0.0.0/8: allow -> deny`), and policies named by key where the plan knows it.

import { knownAfterApply } from '../plan/references.js';
import type { ChangeSource, Plan, PlanChange } from '../plan/types.js';
import { descriptorFor, isManaged, type TrafficRule } from '../resources/index.js';
import { isPlannedId, KnownAfterApply, type PlannedId } from '../resources/known-after-apply.js';

/** A rule change's line: its sign and text. */
export interface RuleLine {
  sign: '+' | '-' | '~';
  text: string;
}

export function isRuleChange(c: PlanChange): boolean {
  return descriptorFor(c.kind).traffic?.role === 'rule';
}

/** What a rule change's values say of the rule (its descriptor's traffic hook). */
function ruleOf(c: PlanChange, values: Record<string, unknown> | null): TrafficRule | undefined {
  const role = descriptorFor(c.kind).traffic;
  return role?.role === 'rule' && values ? role.rule(values) : undefined;
}

/** The address of the policy a rule change belongs to (`ip_policies.office`): its parent entry's. */
function policyAddress(c: PlanChange): string {
  const descriptor = descriptorFor(c.kind);
  const within = isManaged(descriptor) ? descriptor.within : undefined;
  return within ? `${within.section}.${within.parentKey(c.key)}` : c.address;
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
    // A flip's delete is shown with its create, as one line.
    const flipDelete = (c: PlanChange) => c.step === 'flip' && c.action === 'delete';
    const flips = new Map(list.filter(flipDelete).map((c) => [c.key, c]));
    const lines: { cidr: string; line: RuleLine }[] = [];
    for (const c of list) {
      if (flipDelete(c)) continue;
      const rule = ruleOf(c, c.after ?? c.before);
      if (!rule) continue;
      const { cidr, action } = rule;
      const flipped = flips.get(c.key);
      if (flipped && c.action === 'create') {
        lines.push({
          cidr,
          line: {
            sign: '~',
            text: `${cidr}: ${ruleOf(flipped, flipped.before)?.action} -> ${action}${described(c.after)}`,
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

/**
 * IDs the plan can name by key (`ipp_...` -> `office`): those of the objects its entries' changes act
 * on, and the IDs known after apply of those it makes (that of `ip_policies.office` -> `office`),
 * for the values of fields that reference them.
 */
export function keyNames(plan: Plan): Map<PlannedId, string> {
  const names = new Map<PlannedId, string>();
  for (const c of plan.changes) {
    if (!isManaged(descriptorFor(c.kind)) || c.action === 'delete') continue;
    // What an entry's values name before apply makes it is its ID known after apply: the entry's key as well.
    if (c.action === 'create' || c.action === 'replace') names.set(knownAfterApply(c.address), c.key);
    if (c.step === undefined && c.id !== null) names.set(c.id, c.key);
  }
  return names;
}

/** A referencing field's IDs as keys where known: `office`, `office (known after apply)`, or the ID. */
export function namedReferences(ids: unknown, names: ReadonlyMap<PlannedId, string>): unknown {
  if (!Array.isArray(ids)) return ids;
  return ids.map((id) => {
    const key = isPlannedId(id) ? names.get(id) : undefined;
    if (key === undefined) return id;
    return id instanceof KnownAfterApply ? `${key} (known after apply)` : `${key} (${String(id)})`;
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
  if (rules.size === 0) return [];
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
      const id = rule && ruleOf(rule, rule.after ?? rule.before)?.policy;
      const source = sources.get(address) ?? rule?.source;
      return {
        address,
        id: typeof id === 'string' ? id : null,
        ...(source ? { source } : {}),
      };
    });
}
