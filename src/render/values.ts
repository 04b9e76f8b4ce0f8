// How plan values read in text: a PEM as its subject, expiry and fingerprint, never in full.

import type { Action, Plan, PlanChange, ResourceKind } from '../plan/types.js';
import { count } from '../plural.js';
import { descriptorFor, isManaged } from '../resources/index.js';
import type { PlannedId } from '../resources/known-after-apply.js';
import { instantText } from '../resources/values.js';
import { fileName } from './names.js';
import { namedReferences } from './rules.js';

function formatValue(v: unknown): string {
  if (v === undefined) return '(unset)';
  if (typeof v === 'string') return JSON.stringify(instantText(v));
  return JSON.stringify(v);
}

/**
 * A field's value as a person reads it: in its kind's own form when the kind has one (a certificate as
 * its CN, expiry and SHA-256; `valid_for` as `90d`), else as JSON with timestamps in whole seconds.
 */
export function formatFieldValue(kind: ResourceKind, field: string, v: unknown): string {
  const descriptor = descriptorFor(kind);
  const shown = v === undefined || !isManaged(descriptor) ? undefined : descriptor.shown?.[field]?.(v);
  return shown ?? formatValue(v);
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
 * what fields reference by key (src/render/rules.ts).
 */
export function fieldLines(
  c: PlanChange,
  names: ReadonlyMap<PlannedId, string> = new Map(),
): { sign: string; text: string }[] {
  const referencing = new Set(
    descriptorFor(c.kind)
      .fields.filter((f) => f.references)
      .map((f) => f.name),
  );
  const value = (k: string, v: unknown) =>
    formatFieldValue(c.kind, k, referencing.has(k) ? namedReferences(v, names) : v);
  const lines: { sign: string; text: string }[] = [];
  const shown = (k: string, v: unknown) => `${fileName(k)} = ${value(k, v)}`;
  const descriptor = descriptorFor(c.kind);
  const diffs = isManaged(descriptor) ? descriptor.shownDiff : undefined;
  // A structured value's change as lines of its own (a traffic policy's rules and actions).
  const structured = (sign: string, k: string, before: unknown, after: unknown): boolean => {
    const diff = diffs?.[k];
    if (!diff) return false;
    const name = (ref: unknown) => String((namedReferences([ref], names) as unknown[])[0]);
    lines.push({ sign, text: `${fileName(k)}:` });
    for (const l of diff(before, after, name))
      lines.push({ sign: l.sign, text: `${'  '.repeat(l.depth)}${l.text}` });
    return true;
  };
  if (c.action === 'create') {
    for (const [k, v] of Object.entries(c.after ?? {}))
      if (!isDefault(k, v) && !structured('+', k, undefined, v)) lines.push({ sign: '+', text: shown(k, v) });
  } else if (c.action === 'delete') {
    for (const [k, v] of Object.entries(c.before ?? {}))
      if (!isDefault(k, v) && !structured('-', k, v, undefined)) lines.push({ sign: '-', text: shown(k, v) });
  } else {
    for (const k of c.changed_fields) {
      const from = c.before?.[k];
      const to = c.after?.[k];
      if (structured('~', k, from, to)) continue;
      const forces =
        c.action === 'replace' && c.reason_codes.some((r) => r.code === 'immutable' && r.field === k)
          ? '   # forces replacement'
          : '';
      lines.push({
        sign: '~',
        text: `${fileName(k)} = ${value(k, from)} -> ${value(k, to)}${forces}`,
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
    .map((f) => `${fileName(f.name)}: ${String(values?.[f.name])}`);
}
