// The Terraform-like text plan. Colour only when asked (the CLI decides from TTY, NO_COLOR, FORCE_COLOR).

import type { Action, Plan, PlanChange } from '../plan/types.js';
import { count } from '../plural.js';
import { driftNotes } from './drift.js';
import { reachLines } from './reach.js';
import { reasonText } from './reasons.js';
import { isRuleChange, keyNames, ruleLines, rulesOnly } from './rules.js';
import {
  contextLines,
  fieldLines,
  headline,
  leftOutLine,
  noChangesLine,
  SYMBOL,
  sourceText,
  summaryLine,
} from './values.js';

export interface TextOptions {
  color: boolean;
}

const COLOR: Record<Action, number> = {
  create: 32,
  patch: 33,
  put: 33,
  replace: 35,
  delete: 31,
  adopt: 36,
  'no-op': 0,
};

export function renderText(plan: Plan, options: TextOptions): string {
  const ink = inkFor(options.color);
  const out: string[] = [];
  const active = plan.changes.filter((c) => c.action !== 'no-op');
  if (active.length === 0) out.push(noChangesLine(plan), '');
  else out.push(`accord will make these changes (owner ${plan.owner}, ${plan.api_url}):`, '');
  const reach = reachLines(plan);
  if (reach.length > 0) out.push('Who can reach what:', ...reach.map((l) => `  ${l}`), '');
  const names = keyNames(plan);
  const rules = ruleLines(plan.changes);
  const rulesOf = (policy: string) =>
    (rules.get(policy) ?? []).map((line) => `      ${ink.sign(line.sign)} ${line.text}`);
  for (const group of rulesOnly(plan.changes, rules)) {
    out.push(`  # ${ink.bold(`${group.address}: its rules will change`)}`);
    if (group.source) out.push(`  # ${group.source.file}:${group.source.line}`);
    out.push(`${ink.paint(COLOR.patch, '  ~')} ${group.address}${group.id ? ` (${group.id})` : ''}`);
    out.push(...rulesOf(group.address), '');
  }
  for (const c of active) {
    if (!isRuleChange(c)) out.push(...changeLines(c, names, rulesOf(c.address), ink));
  }
  out.push(...closingLines(plan, ink));
  return `${out.join('\n')}\n`;
}

/** ANSI colors when `color`, else the text as it is. */
interface Ink {
  paint(code: number, s: string): string;
  bold(s: string): string;
  /** A line's `+`, `-` or `~`, in green, red or yellow. */
  sign(sign: string): string;
}

function inkFor(color: boolean): Ink {
  const paint = (code: number, s: string) => (color && code ? `\u001b[${code}m${s}\u001b[0m` : s);
  return {
    paint,
    bold: (s) => (color ? `\u001b[1m${s}\u001b[0m` : s),
    sign: (sign) => paint(sign === '+' ? 32 : sign === '-' ? 31 : 33, sign),
  };
}

/** One change: its headline, source, reasons and order, its line, its fields and rules, and drift notes. */
function changeLines(c: PlanChange, names: ReturnType<typeof keyNames>, rules: string[], ink: Ink): string[] {
  const out = [`  # ${ink.bold(headline(c))}`];
  const source = sourceText(c);
  if (source) out.push(`  # ${source}`);
  for (const r of c.reasons) out.push(`  #   ${r}`);
  if (c.depends_on.length > 0) out.push(`  #   after: ${c.depends_on.join(', ')}`);
  // A rename says so where the eye lands: `~ ip_restrictions.office-vpn (ipx_...)  # renamed from office`.
  const renamed = c.reason_codes.find((r) => r.code === 'renamed');
  const note = renamed ? `  # ${reasonText(renamed)}` : '';
  out.push(
    `${ink.paint(COLOR[c.action], SYMBOL[c.action].padStart(3))} ${c.address}${c.id ? ` (${c.id})` : ''}${note}`,
  );
  for (const line of contextLines(c)) out.push(`        ${line}`);
  for (const line of fieldLines(c, names)) out.push(`      ${ink.sign(line.sign)} ${line.text}`);
  out.push(...rules);
  for (const note of driftNotes(c)) out.push(`      ${ink.paint(33, `# ${note}`)}`);
  out.push('');
  return out;
}

/** Warnings, refusals, the other owners' resources, the summary and what a selection left out. */
function closingLines(plan: Plan, ink: Ink): string[] {
  const out: string[] = [];
  if (plan.warnings.length > 0) {
    out.push('Warnings:');
    for (const w of plan.warnings) out.push(`  ${ink.paint(33, '!')} ${w}`);
    out.push('');
  }
  if (!plan.safe) {
    out.push(ink.paint(31, 'Refused:'));
    for (const r of plan.unsafe_reasons) out.push(`  ${ink.paint(31, 'x')} ${r}`);
    out.push('');
  }
  if (plan.summary.other_owners > 0) {
    out.push(`${count(plan.summary.other_owners, 'resource')} of other owners left alone.`);
  }
  out.push(summaryLine(plan));
  const leftOut = leftOutLine(plan);
  if (leftOut) out.push(leftOut);
  return out;
}
