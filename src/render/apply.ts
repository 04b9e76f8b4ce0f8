// How an apply reads: one line per finished change, a summary line, or the result as JSON.
import type { ApiStatsSnapshot } from '../api/stats.js';
import type { WrittenCertificate } from '../apply/certs.js';
import type { ApplyResult, ChangeResult } from '../apply/types.js';
import type { Plan } from '../plan/types.js';
import { VERSION } from '../version.js';
import { SYMBOL } from './values.js';

export const APPLY_RESULT_FORMAT_VERSION = 1;

/** `+ ip_restrictions.office (ipx_...) 120 ms`, or `x ... failed after 120 ms: why`. */
export function progressLine(r: ChangeResult): string {
  if (r.status === 'failed') {
    return `x ${r.address}${r.id ? ` (${r.id})` : ''} failed after ${r.duration_ms} ms: ${r.error?.message ?? 'unknown error'}`;
  }
  const ids = r.replaced_id ? `${r.id}, replaces ${r.replaced_id}` : r.id;
  const recovered = r.recovered ? ' (found by its marker after an unanswered create)' : '';
  return `${SYMBOL[r.action]} ${r.address}${ids ? ` (${ids})` : ''} ${r.duration_ms} ms${recovered}`;
}

/** What an apply did, in one line (a plan's own is summaryLine in src/render/values.ts). */
export function applySummaryLine(result: ApplyResult): string {
  const s = result.summary;
  const done = `${s.created} created, ${s.patched} patched, ${s.put} put, ${s.replaced} replaced, ${s.deleted} deleted, ${s.adopted} adopted`;
  const took = formatDuration(result.duration_ms);
  if (result.status === 'complete') return `Apply complete: ${done} in ${took}.`;
  const notDone = `${s.failed} failed, ${s.skipped} skipped${s.not_started > 0 ? `, ${s.not_started} not started` : ''}`;
  if (result.status === 'interrupted') {
    return `Apply interrupted: ${done}; ${notDone} in ${took}. What was done stays done; run apply again to finish.`;
  }
  return `Apply failed: ${done}; ${notDone} in ${took}. What was done stays done; fix the cause and run apply again.`;
}

/** `340 ms` below a second (as the per-change lines), `2.1 s` from a second on. */
export function formatDuration(ms: number): string {
  const whole = Math.round(ms);
  return whole < 1000 ? `${whole} ms` : `${(whole / 1000).toFixed(1)} s`;
}

/**
 * The lines after the progress: what was skipped and why (`skipped X: it waits for Y, which failed`).
 * No sign in front: `-` is a delete's.
 */
export function skippedLines(result: ApplyResult): string[] {
  return result.changes
    .filter((c) => c.status === 'skipped')
    .map((c) => `skipped ${c.address}: ${c.error?.message ?? 'a change it waits for did not succeed'}`);
}

export function renderResultJson(
  plan: Plan,
  result: ApplyResult,
  certificates: readonly WrittenCertificate[],
  requests: ApiStatsSnapshot,
): string {
  return `${JSON.stringify(
    {
      format_version: APPLY_RESULT_FORMAT_VERSION,
      tool_version: VERSION,
      api_url: plan.api_url,
      owner: plan.owner,
      status: result.status,
      duration_ms: result.duration_ms,
      summary: result.summary,
      changes: result.changes,
      certificates,
      requests: {
        total: requests.totalRequests,
        retries: requests.retries,
        by_method: requests.requests,
      },
    },
    null,
    2,
  )}\n`;
}

/** For a CI job's summary page: the summary line and a table of what did not go as planned. */
export function renderResultMarkdown(result: ApplyResult): string {
  const out = [`### accord apply: ${result.status}`, '', applySummaryLine(result), ''];
  const notDone = result.changes.filter((c) => c.status !== 'done');
  if (notDone.length > 0) {
    out.push('| change | status | why |', '|---|---|---|');
    for (const c of notDone.slice(0, 200)) {
      out.push(
        `| \`${c.address}\` | ${c.status} | ${(c.error?.message ?? '').replaceAll('|', '\\|').replaceAll('\n', ' ')} |`,
      );
    }
    if (notDone.length > 200) out.push('', `(${notDone.length - 200} more not shown)`);
  }
  return `${out.join('\n')}\n`;
}
