// What `accord drift` reports, and the plan's "changed outside accord" notes: only the fields the
// account no longer holds as accord wrote them (DESIGN §4 "Drift"), read from the plan's `drift`.

import { are, count } from '../../plural.js';
import type { Plan, PlanChange } from '../types.js';
import { formatValue } from './values.js';

export const DRIFT_FORMAT_VERSION = 1;

export interface OutsideField {
  field: string;
  /** `outside`: only the account changed; `both`: the file changed as well. */
  source: 'outside' | 'both';
  /** What accord last wrote; only known when the file did not change since (`outside`). */
  accord_wrote?: unknown;
  /** The value in the account now. */
  live: unknown;
  /** The file's value, which the next apply writes. */
  file: unknown;
}

export interface OutsideChange {
  address: string;
  kind: PlanChange['kind'];
  id: string | null;
  fields: OutsideField[];
}

export interface UnattributedChange {
  address: string;
  kind: PlanChange['kind'];
  id: string | null;
  action: PlanChange['action'];
  fields: string[];
}

export interface DriftReport {
  format_version: typeof DRIFT_FORMAT_VERSION;
  tool_version: string;
  api_url: string;
  owner: string;
  created_at: string;
  /** Objects with fields changed outside accord; empty when there is no drift. */
  changes: OutsideChange[];
  /** Changes no fingerprint can attribute (creates, edge modules, objects written before fingerprints). */
  unattributed: UnattributedChange[];
}

/** Fields of a change that the account changed outside accord. */
export function outsideFieldsOf(c: PlanChange): OutsideField[] {
  const fields: OutsideField[] = [];
  for (const [field, source] of Object.entries(c.drift)) {
    if (source !== 'outside' && source !== 'both') continue;
    const f: OutsideField = { field, source, live: c.before?.[field], file: c.after?.[field] };
    // The file still says what accord wrote: the fingerprint matched it.
    if (source === 'outside') f.accord_wrote = c.after?.[field];
    fields.push(f);
  }
  return fields;
}

export function driftReport(plan: Plan): DriftReport {
  const changes: OutsideChange[] = [];
  const unattributed: UnattributedChange[] = [];
  for (const c of plan.changes) {
    const fields = outsideFieldsOf(c);
    if (fields.length > 0) changes.push({ address: c.address, kind: c.kind, id: c.id, fields });
    const unknown = Object.keys(c.drift).filter((k) => c.drift[k] === 'unknown');
    if (unknown.length > 0)
      unattributed.push({ address: c.address, kind: c.kind, id: c.id, action: c.action, fields: unknown });
  }
  return {
    format_version: DRIFT_FORMAT_VERSION,
    tool_version: plan.tool_version,
    api_url: plan.api_url,
    owner: plan.owner,
    created_at: plan.created_at,
    changes,
    unattributed,
  };
}

export function renderDriftJson(report: DriftReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

function fieldCount(report: DriftReport): number {
  return report.changes.reduce((n, c) => n + c.fields.length, 0);
}

function headlineOf(report: DriftReport): string {
  const n = fieldCount(report);
  const objects = report.changes.length;
  return `${count(n, 'field')} of ${count(objects, 'object')} changed outside accord`;
}

function wroteText(f: OutsideField): string {
  return 'accord_wrote' in f ? formatValue(f.accord_wrote) : 'unknown (the file changed too)';
}

function unattributedNote(report: DriftReport): string | undefined {
  const n = report.unattributed.length;
  if (n === 0) return undefined;
  return (
    `${count(n, 'change')} of the plan cannot be attributed (objects missing from the account, ` +
    'edge modules, or objects accord last wrote before it kept fingerprints); accord plan shows them.'
  );
}

export function renderDriftText(report: DriftReport): string {
  const out: string[] = [];
  if (report.changes.length === 0) {
    out.push(`No changes outside accord (owner ${report.owner}, ${report.api_url}).`);
  } else {
    out.push(`Changed outside accord (owner ${report.owner}, ${report.api_url}):`, '');
    for (const c of report.changes) {
      out.push(`  ${c.address}${c.id ? ` (${c.id})` : ''}`);
      for (const f of c.fields) {
        const file = f.source === 'both' ? `; the file now says ${formatValue(f.file)}` : '';
        out.push(`    ${f.field}: accord wrote ${wroteText(f)}, now ${formatValue(f.live)}${file}`);
      }
      out.push('');
    }
    out.push(
      `${headlineOf(report)}. accord apply sets them back to the file; to keep a change, put it in the file.`,
    );
  }
  const note = unattributedNote(report);
  if (note) out.push(note);
  return `${out.join('\n')}\n`;
}

export const DRIFT_MARKDOWN_LIMIT = 60_000;

/** For a scheduled CI job that keeps one issue up to date: a headline, then one table row per field. */
export function renderDriftMarkdown(report: DriftReport, limit = DRIFT_MARKDOWN_LIMIT): string {
  const head = [`### accord drift (owner \`${report.owner}\`)`, ''];
  if (report.changes.length === 0) {
    head.push(`No changes outside accord in ${report.api_url}: the account holds what accord last wrote.`);
  } else {
    head.push(
      `**${headlineOf(report)}** in ${report.api_url} (checked ${report.created_at}).`,
      '',
      'The next `accord apply` sets them back to the file. To keep a change, put it in the file.',
    );
  }
  const note = unattributedNote(report);
  if (note) head.push('', `_${note}_`);
  let text = `${head.join('\n')}\n`;
  if (report.changes.length === 0) return text;
  text += `\n${outsideTable(report.changes, limit - text.length)}`;
  return text;
}

/** A table of the fields changed outside accord, cut to `room` characters with a note. */
export function outsideTable(changes: readonly OutsideChange[], room: number): string {
  const rows = changes.flatMap((c) =>
    c.fields.map(
      (f) =>
        `| \`${cell(c.address)}\`${c.id ? ` (\`${c.id}\`)` : ''} | \`${f.field}\` | ${code(wroteText(f))} | ${code(formatValue(f.live))} | ${code(formatValue(f.file))} |`,
    ),
  );
  let text =
    '| Object | Field | accord wrote | Now in the account | The file says |\n|---|---|---|---|---|\n';
  const reserve = 200;
  let shown = 0;
  for (const row of rows) {
    if (text.length + row.length + 1 > room - reserve) break;
    text += `${row}\n`;
    shown++;
  }
  if (shown < rows.length)
    text += `\n_${count(rows.length - shown, 'more field')} ${are(rows.length - shown)} not shown (length limit)._\n`;
  return text;
}

function code(s: string): string {
  return s.startsWith('unknown') ? s : `\`${cell(s).replaceAll('`', "'")}\``;
}

function cell(s: string): string {
  return s.replaceAll('|', '\\|').replaceAll('\n', ' ');
}
