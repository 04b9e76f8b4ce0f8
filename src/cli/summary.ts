import { appendFileSync } from 'node:fs';
import type { Plan } from '../plan/types.js';
import type { Io } from './io.js';
import { redacted } from './output.js';

/**
 * In GitHub Actions, appends markdown to the job's summary page (the file named by
 * $GITHUB_STEP_SUMMARY); elsewhere does nothing, and does not even render. A summary that cannot be
 * written is a warning: it must not fail a plan or an apply that otherwise worked.
 */
export async function appendStepSummary(io: Io, render: () => string | Promise<string>): Promise<void> {
  const file = io.env['GITHUB_STEP_SUMMARY'];
  if (file === undefined || file.trim() === '') return;
  const markdown = redacted(io, await render());
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
  return appendStepSummary(io, async () => (await import('../render/markdown.js')).renderMarkdown(plan));
}
