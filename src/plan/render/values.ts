// How plan values read in text: a PEM as its subject, expiry and fingerprint, never in full.

import { count } from '../../plural.js';
import { isRecord } from '../../resources/values.js';
import type { Action, Plan, PlanChange } from '../types.js';

export function formatValue(v: unknown): string {
  if (v === undefined) return '(unset)';
  if (isRecord(v) && typeof v['sha256'] === 'string') {
    const fp = v['sha256'].replace(/(..)(?!$)/g, '$1:');
    return `CN=${String(v['subject_common_name'])}, expires ${String(v['not_after'])}, SHA-256 ${fp}`;
  }
  return JSON.stringify(v);
}

export const SYMBOL: Record<Action, string> = {
  create: '+',
  patch: '~',
  put: '~',
  replace: '-/+',
  delete: '-',
  adopt: '~',
  'no-op': ' ',
};

const VERB: Record<Action, string> = {
  create: 'will be created',
  patch: 'will be updated in place',
  put: 'will be configured',
  replace: 'must be replaced',
  delete: 'will be deleted',
  adopt: 'will be adopted',
  'no-op': 'is unchanged',
};

export function headline(c: PlanChange): string {
  const order = c.replace_order ? ` [${c.replace_order}]` : '';
  return `${c.address} ${VERB[c.action]}${order}`;
}

/** Values not worth a line when creating or deleting. */
function isDefault(k: string, v: unknown): boolean {
  return v === undefined || (k === 'description' && v === '') || (k === 'protect' && v === false);
}

/** One line per shown field: `+ name = value`, `~ name = old -> new`, `- name = value`. */
export function fieldLines(c: PlanChange): { sign: string; text: string }[] {
  const lines: { sign: string; text: string }[] = [];
  if (c.action === 'create') {
    for (const [k, v] of Object.entries(c.after ?? {}))
      if (!isDefault(k, v)) lines.push({ sign: '+', text: `${k} = ${formatValue(v)}` });
  } else if (c.action === 'delete') {
    for (const [k, v] of Object.entries(c.before ?? {}))
      if (!isDefault(k, v)) lines.push({ sign: '-', text: `${k} = ${formatValue(v)}` });
  } else {
    for (const k of c.changed_fields) {
      const from = c.before?.[k];
      const to = c.after?.[k];
      const forces =
        c.action === 'replace' && c.reasons.includes(`${k} cannot be updated`)
          ? '   # forces replacement'
          : '';
      lines.push({ sign: '~', text: `${k} = ${formatValue(from)} -> ${formatValue(to)}${forces}` });
    }
  }
  return lines;
}

/** The last line of every text plan (DESIGN §4). */
export function summaryLine(plan: Plan): string {
  const s = plan.summary;
  return (
    `Plan: ${s.create} to create, ${s.patch} to patch, ${s.put} to put, ${s.replace} to replace, ` +
    `${s.delete} to delete, ${s.adopt} to adopt. ${s.no_op} unchanged, ${s.unmanaged} unmanaged left alone.`
  );
}

/** The sentence for a plan without changes: a targeted plan says it only of its part. */
export function noChangesLine(plan: Plan): string {
  return plan.selection
    ? 'No changes in the part of the file chosen by --target/--exclude.'
    : 'No changes. The account matches the file.';
}

/** The last line of a plan made with --target/--exclude, undefined for a full plan. */
export function leftOutLine(plan: Plan): string | undefined {
  if (!plan.selection) return undefined;
  const n = plan.selection.left_out.length;
  return `${count(n, 'change')} left out by --target/--exclude.`;
}

/** `--target a --exclude b`, as given. */
export function selectionFlags(plan: Plan): string {
  const s = plan.selection;
  if (!s) return '';
  return [...s.target.map((p) => `--target ${p}`), ...s.exclude.map((p) => `--exclude ${p}`)].join(' ');
}

/** True when the plan changes anything (every change but a no-op does). */
export function hasChanges(plan: Plan): boolean {
  return plan.changes.some((c) => c.action !== 'no-op');
}
