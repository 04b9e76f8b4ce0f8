// The plan as a pull-request comment: summary line, a table of changes, details in <details>; never
// longer than MARKDOWN_LIMIT characters.

import type { Plan, PlanChange } from '../plan/types.js';
import { are, count } from '../plural.js';
import type { PlannedId } from '../resources/known-after-apply.js';
import { driftNotes, driftReport } from './drift.js';
import { outsideTable, unattributedSections } from './drift-markdown.js';
import { reachLines } from './reach.js';
import { isRuleChange, keyNames, ruleLines, rulesOnly } from './rules.js';
import {
  contextLines,
  fieldLines,
  headline,
  leftOutLine,
  noChangesLine,
  SYMBOL,
  selectionFlags,
  sourceText,
  summaryLine,
} from './values.js';

export const MARKDOWN_LIMIT = 60_000;

export function renderMarkdown(plan: Plan, limit = MARKDOWN_LIMIT): string {
  const leftOut = leftOutLine(plan);
  // The last line of a targeted plan survives any truncation of what comes before it.
  if (leftOut === undefined) return renderBody(plan, limit);
  const tail = `\n${leftOut}\n`;
  return renderBody(plan, limit - tail.length) + tail;
}

function renderBody(plan: Plan, limit: number): string {
  const active = plan.changes.filter((c) => c.action !== 'no-op');
  const head = headLines(plan, limit);
  if (active.length === 0) {
    head.push(noChangesLine(plan));
    return clip(`${head.join('\n')}\n`, limit);
  }
  const { columns, rows, details } = changeTable(plan, active);
  // Keep as many rows and details as fit, reserving room for the truncation note.
  const reserve = 300;
  let text = `${head.join('\n')}\n${columns}`;
  let shownRows = 0;
  for (const row of rows) {
    if (text.length + row.length + 1 > limit - reserve) break;
    text += `${row}\n`;
    shownRows++;
  }
  if (shownRows < rows.length) {
    const more = rows.length - shownRows;
    text += `\n_${count(more, 'more change')} ${are(more)} not shown: the comment would pass ${limit} characters. Run \`accord plan\` to see them all._\n`;
    return clip(text, limit);
  }
  const open = '\n<details><summary>Details</summary>\n\n```diff\n';
  const close = '```\n\n</details>\n';
  let body = '';
  let shownDetails = 0;
  for (const d of details) {
    if (text.length + open.length + body.length + d.length + close.length > limit - reserve) break;
    body += d;
    shownDetails++;
  }
  text += open + body + close;
  if (shownDetails < details.length)
    text += `\n_Details of ${count(details.length - shownDetails, 'change')} are not shown (length limit)._\n`;
  return clip(text, limit);
}

/** What comes before the changes: drift first, the summary, the selection, refusals and warnings. */
function headLines(plan: Plan, limit: number): string[] {
  const head: string[] = [`### accord plan (owner \`${plan.owner}\`)`, ''];
  const reach = reachLines(plan);
  // First: what an allowlist change means, before the rule lines that make it.
  if (reach.length > 0) head.push('#### Who can reach what', '', ...reach.map((l) => `- ${cell(l)}`), '');
  // First, so that a reviewer sees what the apply would revert before what the file changes.
  const report = driftReport(plan);
  if (report.changes.length > 0) {
    head.push(
      '#### Changed outside accord',
      '',
      'These fields no longer hold what accord wrote; applying this plan sets them to the file.',
      '',
      outsideTable(report.changes, Math.floor(limit / 4)),
    );
  }
  // Creates are left out: in a pull request they are mostly new entries, and their reason says so.
  const unknown = report.unattributed.filter((u) => u.why !== 'missing');
  if (unknown.length > 0) {
    head.push(
      '#### Who changed these cannot be told',
      '',
      'No fingerprint attributes them to the file or to a change made in the account; applying this plan sets them to the file.',
      '',
      unattributedSections(unknown, Math.floor(limit / 4)),
    );
  }
  head.push(`**${summaryLine(plan)}**`, '');
  if (plan.selection) {
    head.push(
      `Only part of the file was planned (\`${selectionFlags(plan).replaceAll('`', "'")}\`); the account may still differ from the rest of it.`,
      '',
    );
  }
  if (plan.summary.other_owners > 0)
    head.push(`${count(plan.summary.other_owners, 'resource')} of other owners left alone.`, '');
  if (!plan.safe) {
    head.push('> [!CAUTION]', '> **Refused by a safety rule:**');
    for (const r of plan.unsafe_reasons) head.push(`> - ${cell(r)}`);
    head.push('');
  }
  if (plan.warnings.length > 0) {
    head.push('> [!WARNING]');
    for (const w of plan.warnings) head.push(`> - ${cell(w)}`);
    head.push('');
  }
  return head;
}

/**
 * The table's header, a row per change, and each change's details; rules grouped under their policy
 * (src/render/rules.ts): a row and details per policy.
 */
function changeTable(
  plan: Plan,
  active: readonly PlanChange[],
): { columns: string; rows: string[]; details: string[] } {
  const names = keyNames(plan);
  const rules = ruleLines(plan.changes);
  const groups = rulesOnly(plan.changes, rules);
  const shown = active.filter((c) => !isRuleChange(c));
  const ruleCount = (address: string) => {
    const lines = rules.get(address) ?? [];
    const n = (sign: string) => lines.filter((l) => l.sign === sign).length;
    return `rules: ${n('+')} to create, ${n('~')} to change, ${n('-')} to delete`;
  };
  // A column for what names an object its change does not show (an IP restriction's type).
  const context = shown.map((c) => contextLines(c).join(', '));
  const withContext = context.some((x) => x !== '');
  const contextCell = (x = '') => (withContext ? (x ? ` ${cell(x)} |` : ' |') : '');
  const rows = [
    ...groups.map(
      (g) =>
        `| \`~\` rules | \`${cell(g.address)}\` | ${g.id ? `\`${g.id}\`` : ''} |${contextCell()} ${ruleCount(g.address)} |`,
    ),
    ...shown.map((c, i) => {
      const why = [...c.reasons, ...(rules.has(c.address) ? [ruleCount(c.address)] : [])];
      return `| \`${SYMBOL[c.action]}\` ${c.action} | \`${cell(c.address)}\` | ${c.id ? `\`${c.id}\`` : ''} |${contextCell(context[i])} ${cell(why.join('; '))} |`;
    }),
  ];
  const ruleDetail = (address: string) =>
    (rules.get(address) ?? []).map((l) => `${l.sign}     ${l.text.replaceAll('```', "'''")}`);
  const details = [
    ...groups.map(
      (g) =>
        `# ${g.address}: its rules will change\n${g.source ? `# ${g.source.file}:${g.source.line}\n` : ''}~ ${g.address}\n${ruleDetail(g.address).join('\n')}\n\n`,
    ),
    ...shown.map((c) => detail(c, names, ruleDetail(c.address))),
  ];
  const columns = withContext
    ? '| Action | Address | ID | Context | Reasons |\n|---|---|---|---|---|\n'
    : '| Action | Address | ID | Reasons |\n|---|---|---|---|\n';
  return { columns, rows, details };
}

function detail(c: PlanChange, names: ReadonlyMap<PlannedId, string>, rules: readonly string[]): string {
  const source = sourceText(c);
  const lines = [`# ${headline(c)}`, ...(source ? [`# ${source}`] : []), ...c.reasons.map((r) => `#   ${r}`)];
  if (c.depends_on.length > 0) lines.push(`#   after: ${c.depends_on.join(', ')}`);
  lines.push(`${SYMBOL[c.action]} ${c.address}${c.id ? ` (${c.id})` : ''}`);
  for (const l of contextLines(c)) lines.push(`       ${l}`);
  for (const l of fieldLines(c, names)) lines.push(`${l.sign}     ${l.text.replaceAll('```', "'''")}`);
  lines.push(...rules);
  for (const note of driftNotes(c)) lines.push(`#     ${note}`);
  return `${lines.join('\n')}\n\n`;
}

function cell(s: string): string {
  return s.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function clip(s: string, limit: number): string {
  return s.length <= limit ? s : `${s.slice(0, limit - 80)}\n\n_(truncated at ${limit} characters)_\n`;
}
