// \`accord drift --markdown\` (DESIGN §4 "Drift"), for a scheduled CI job that keeps one issue up to
// date, and the plan's Markdown tables of drift (src/render/markdown.ts): cut to a length limit,
// saying how many rows are not shown.

import type { PlanChange } from '../plan/types.js';
import { are, count } from '../plural.js';
import {
  countsOf,
  type DriftReport,
  hasDrift,
  type OutsideChange,
  type OutsideField,
  planProblemTexts,
  UNKNOWN_WROTE,
  UNPLANNED,
  UNPLANNED_TO_DO,
  type UnattributedChange,
  type UnattributedWhy,
  unattributedText,
} from './drift.js';
import { fileName } from './names.js';
import { formatFieldValue } from './values.js';

export const DRIFT_MARKDOWN_LIMIT = 60_000;

const WHY_TITLE: Record<UnattributedWhy, string> = {
  missing: 'Missing from the account',
  marker_broken: 'Marker broken',
  slot_held: 'Held by an object accord does not manage',
  no_fingerprint: 'No fingerprint',
  not_written: 'Not yet written by accord',
  edge_module: 'Edge modules',
};

/**
 * For a scheduled CI job that keeps one issue up to date: a headline, a section of fields changed
 * outside accord, and a section per reason for the changes nothing can attribute.
 */
export function renderDriftMarkdown(report: DriftReport, limit = DRIFT_MARKDOWN_LIMIT): string {
  const head = [`### accord drift (owner \`${report.owner}\`)`, ''];
  if (!hasDrift(report)) {
    head.push(`No changes outside accord in ${report.api_url}: the account holds what accord last wrote.`);
    return `${head.join('\n')}\n`;
  }
  head.push(
    `**${countsOf(report).join('; ')}** in ${report.api_url} (checked ${report.created_at}).`,
    '',
    report.plan_error
      ? `${UNPLANNED}. ${UNPLANNED_TO_DO}`
      : `The next \`accord apply\` sets them to the file. To keep a change made in the account, put it in the file.`,
  );
  let text = `${head.join('\n')}\n`;
  if (report.guard_breaches.length > 0) {
    // Few and short (each names a guard of the files): never cut.
    text += `\n#### Guards broken\n\n${report.guard_breaches.map((b) => `- ${cell(b.message)}\n`).join('')}`;
  }
  if (report.plan_error) {
    const problems = planProblemTexts(report.plan_error).map((m) => `- ${cell(m)}\n`);
    text += `\n#### The files cannot be planned against the account\n\n${problems.join('')}`;
  }
  if (report.changes.length > 0) {
    const room = report.unattributed.length > 0 ? Math.floor((limit - text.length) / 2) : limit - text.length;
    text += `\n#### Changed outside accord\n\n${outsideTable(report.changes, room)}`;
  }
  if (report.unattributed.length > 0) {
    text += `\n#### Cannot be attributed\n\n${unattributedSections(report.unattributed, limit - text.length - 30)}`;
  }
  return text;
}

/** A table of the fields changed outside accord, cut to `room` characters with a note. */
export function outsideTable(changes: readonly OutsideChange[], room: number): string {
  const rows = changes.flatMap((c) =>
    c.fields.map(
      (f) =>
        `| ${object(c.address, c.id)} | \`${fileName(f.field)}\` | ${wroteCell(c.kind, f)} | ${code(formatFieldValue(c.kind, f.field, f.live))} | ${code(formatFieldValue(c.kind, f.field, f.file))} |`,
    ),
  );
  return fitRows(
    '| Object | Field | accord wrote | Now in the account | The file says |\n|---|---|---|---|---|\n',
    rows,
    room,
    'field',
  );
}

/** One section per reason, each a table with a row per differing field (or per object). */
export function unattributedSections(changes: readonly UnattributedChange[], room: number): string {
  const whys = [...new Set(changes.map((u) => u.why))];
  const share = Math.floor(room / Math.max(1, whys.length));
  let text = '';
  for (const why of whys) {
    const group = changes.filter((u) => u.why === why);
    const rows = group.flatMap((u) => {
      const why = cell(unattributedText(u));
      return u.fields.length === 0
        ? [`| ${object(u.address, u.id)} | ${why} | | | |`]
        : u.fields.map(
            (f) =>
              `| ${object(u.address, u.id)} | ${why} | \`${fileName(f.field)}\` | ${f.live === undefined ? 'not in the account' : code(formatFieldValue(u.kind, f.field, f.live))} | ${code(formatFieldValue(u.kind, f.field, f.file))} |`,
          );
    });
    text += `##### ${WHY_TITLE[why]}\n\n${fitRows(
      '| Object | Why | Field | Now in the account | The file says |\n|---|---|---|---|---|\n',
      rows,
      share - WHY_TITLE[why].length - 10,
      'row',
    )}\n`;
  }
  return text;
}

function fitRows(header: string, rows: readonly string[], room: number, noun: string): string {
  let text = header;
  const reserve = 120;
  let shown = 0;
  for (const row of rows) {
    if (text.length + row.length + 1 > room - reserve) break;
    text += `${row}\n`;
    shown++;
  }
  const left = rows.length - shown;
  if (left > 0) text += `\n_${count(left, `more ${noun}`)} ${are(left)} not shown (length limit)._\n`;
  return text;
}

function object(address: string, id: string | null): string {
  return `\`${cell(address)}\`${id ? ` (\`${id}\`)` : ''}`;
}

/** What accord wrote, as a table cell: a value in code, or the words saying it is not known. */
function wroteCell(kind: PlanChange['kind'], f: OutsideField): string {
  return 'accord_wrote' in f ? code(formatFieldValue(kind, f.field, f.accord_wrote)) : UNKNOWN_WROTE;
}

function code(s: string): string {
  return `\`${cell(s).replaceAll('`', "'")}\``;
}

function cell(s: string): string {
  return s.replaceAll('|', '\\|').replaceAll('\n', ' ');
}
