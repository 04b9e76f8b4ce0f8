import { appendFileSync } from 'node:fs';
import type { ApplyResult } from '../apply/types.js';
import type { Plan } from '../plan/types.js';
import type { Io } from './io.js';

/**
 * In GitHub Actions, appends markdown to the job's summary page (the file named by
 * $GITHUB_STEP_SUMMARY); elsewhere does nothing, and does not even render. A summary that cannot be
 * written is a warning: it must not fail a plan or an apply that otherwise worked.
 */
export async function appendStepSummary(io: Io, render: () => string | Promise<string>): Promise<void> {
  const file = io.env['GITHUB_STEP_SUMMARY'];
  if (file === undefined || file.trim() === '') return;
  const markdown = await render();
  try {
    appendFileSync(file, markdown.endsWith('\n') ? `${markdown}\n` : `${markdown}\n\n`);
  } catch (err) {
    const code = (err as { code?: string }).code ?? String(err);
    io.stderr(
      `Warning: could not append to GITHUB_STEP_SUMMARY file ${file} (${code}); output is unaffected.\n`,
    );
  }
}

/** The plan's pull-request markdown, as the step summary. */
export function appendPlanSummary(io: Io, plan: Plan): Promise<void> {
  return appendStepSummary(io, async () => (await import('../plan/render/markdown.js')).renderMarkdown(plan));
}

/** What an apply did, as a table: one row per change with its outcome. */
export function appendApplySummary(io: Io, plan: Plan, result: ApplyResult): Promise<void> {
  return appendStepSummary(io, async () => {
    const { summaryLine } = await import('../apply/render.js');
    const { SYMBOL } = await import('../plan/render/values.js');
    const lines = [`### accord apply (owner \`${plan.owner}\`)`, ''];
    if (result.changes.length === 0)
      return [...lines, '**No changes.** The account already matched.'].join('\n');
    lines.push(
      `**${summaryLine(result)}**`,
      '',
      '| Result | Action | Address | ID | Time |',
      '|---|---|---|---|---|',
    );
    const shown = result.changes.slice(0, APPLY_SUMMARY_ROWS);
    for (const c of shown) {
      const outcome = c.status === 'done' ? 'done' : `**${c.status.replace('_', ' ')}**`;
      const why = c.error ? `: ${c.error.replaceAll('|', '\\|').replaceAll('\n', ' ')}` : '';
      const id = c.replaced_id ? `\`${c.id}\` (replaces \`${c.replaced_id}\`)` : c.id ? `\`${c.id}\`` : '';
      lines.push(
        `| ${outcome}${why} | \`${SYMBOL[c.action]}\` ${c.action} | \`${c.address}\` | ${id} | ${c.duration_ms} ms |`,
      );
    }
    if (result.changes.length > shown.length) {
      lines.push(
        '',
        `(${result.changes.length - shown.length} more changes not shown; the job log has them all.)`,
      );
    }
    return lines.join('\n');
  });
}

/** Keeps the summary far below GitHub's 1 MiB per step. */
const APPLY_SUMMARY_ROWS = 1000;
