// How plan values read in text: a PEM as its subject, expiry and fingerprint, never in full.

import { count } from '../../plural.js';
import { descriptorFor, isManaged } from '../../resources/index.js';
import { isRecord } from '../../resources/values.js';
import { fileName } from '../names.js';
import type { Action, Plan, PlanChange } from '../types.js';
import { namedPolicies } from './rules.js';

export function formatValue(v: unknown): string {
  if (v === undefined) return '(unset)';
  if (isRecord(v) && typeof v['sha256'] === 'string') {
    const fp = v['sha256'].replace(/(..)(?!$)/g, '$1:');
    return `CN=${String(v['subject_common_name'])}, expires ${shownInstant(String(v['not_after']))}, SHA-256 ${fp}`;
  }
  if (typeof v === 'string') return JSON.stringify(shownInstant(v));
  return JSON.stringify(v);
}

/** A plan field's name as the file writes it (`protect` -> `lifecycle.prevent_destroy`). */
export const displayName = fileName;

/** A field's value in the file's form: `valid_for` as a duration (`90d`), timestamps in whole seconds. */
export function formatFieldValue(field: string, v: unknown): string {
  if (field === 'valid_for_seconds' && typeof v === 'number') return JSON.stringify(durationText(v));
  return formatValue(v);
}

/** Seconds as the file writes a duration: in the largest of d, h, m that divides them. */
export function durationText(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const) {
    if (seconds > 0 && seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}

const ISO_WHOLE_SECOND = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.000Z$/;

/** An instant as the file and the service write it, without toISOString's `.000`; other text as it is. */
function shownInstant(text: string): string {
  const m = ISO_WHOLE_SECOND.exec(text);
  return m ? `${m[1]}Z` : text;
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

/** `accord/shared/policies.yaml:12`: the entry a change comes from (DESIGN §1 "Several files"). */
export function sourceText(c: PlanChange): string | undefined {
  return c.source ? `${c.source.file}:${c.source.line}` : undefined;
}

/** Values not worth a line when creating or deleting. */
function isDefault(k: string, v: unknown): boolean {
  return v === undefined || (k === 'description' && v === '') || (k === 'protect' && v === false);
}

/**
 * One line per shown field: `+ name = value`, `~ name = old -> new`, `- name = value`. `names` names
 * IP policies by key (src/plan/render/rules.ts).
 */
export function fieldLines(
  c: PlanChange,
  names: ReadonlyMap<string, string> = new Map(),
): { sign: string; text: string }[] {
  const value = (k: string, v: unknown) =>
    formatFieldValue(k, k === 'ip_policies' ? namedPolicies(v, names) : v);
  const lines: { sign: string; text: string }[] = [];
  const shown = (k: string, v: unknown) => `${displayName(k)} = ${value(k, v)}`;
  if (c.action === 'create') {
    for (const [k, v] of Object.entries(c.after ?? {}))
      if (!isDefault(k, v)) lines.push({ sign: '+', text: shown(k, v) });
  } else if (c.action === 'delete') {
    for (const [k, v] of Object.entries(c.before ?? {}))
      if (!isDefault(k, v)) lines.push({ sign: '-', text: shown(k, v) });
  } else {
    for (const k of c.changed_fields) {
      const from = c.before?.[k];
      const to = c.after?.[k];
      const forces =
        c.action === 'replace' && c.reasons.includes(`${displayName(k)} cannot be updated`)
          ? '   # forces replacement'
          : '';
      lines.push({
        sign: '~',
        text: `${displayName(k)} = ${value(k, from)} -> ${value(k, to)}${forces}`,
      });
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

/**
 * What names the object of a change when its change does not show it: for a kind with a slot (one IP
 * restriction per type), its immutable fields (`type: dashboard`), so that a rename or a swap shows
 * which traffic it is about.
 */
export function contextLines(c: PlanChange): string[] {
  const descriptor = descriptorFor(c.kind);
  if (!isManaged(descriptor) || !descriptor.slot || c.action === 'create' || c.action === 'delete') return [];
  const values = c.after ?? c.before;
  return descriptor.fields
    .filter((f) => f.immutable && !c.changed_fields.includes(f.name) && values?.[f.name] !== undefined)
    .map((f) => `${displayName(f.name)}: ${String(values?.[f.name])}`);
}
