// The apply summary line: its duration reads in milliseconds below a second, as the per-change lines
// do, and in seconds from there on.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../src/apply/types.js';
import { applySummaryLine, formatDuration, skippedLines } from '../../src/render/apply.js';

function result(status: ApplyResult['status'], duration_ms: number): ApplyResult {
  return {
    status,
    summary: {
      created: 2,
      patched: 0,
      put: 1,
      replaced: 0,
      deleted: 0,
      adopted: 0,
      failed: status === 'failed' ? 1 : 0,
      skipped: 0,
      not_started: status === 'interrupted' ? 3 : 0,
    },
    changes: [],
    duration_ms,
    responses: new Map(),
  };
}

describe('the lines of skipped changes', () => {
  it('say what each waits for, with no sign a reader could take for a delete', () => {
    const r = result('failed', 10);
    r.changes = [
      {
        address: 'ip_restrictions.dep',
        kind: 'ip_restriction',
        key: 'dep',
        action: 'create',
        id: null,
        status: 'skipped',
        duration_ms: 0,
        error: { code: 'ACCORD_DEPENDENCY', message: 'it waits for ip_policies.office, which failed' },
      },
    ] as ApplyResult['changes'];
    expect(skippedLines(r)).toEqual([
      'skipped ip_restrictions.dep: it waits for ip_policies.office, which failed',
    ]);
  });
});

describe('the apply summary line', () => {
  it.each([
    [0, '0 ms'],
    [7, '7 ms'],
    [340, '340 ms'],
    [999, '999 ms'],
    [1000, '1.0 s'],
    [1049, '1.0 s'],
    [2140, '2.1 s'],
    [95_000, '95.0 s'],
  ])('%d ms reads as %s', (ms, shown) => {
    expect(applySummaryLine(result('complete', ms))).toBe(
      `Apply complete: 2 created, 0 patched, 1 put, 0 replaced, 0 deleted, 0 adopted in ${shown}.`,
    );
  });

  it('uses the same form when the apply failed or was interrupted', () => {
    expect(applySummaryLine(result('failed', 120))).toMatch(
      /; 1 failed, 0 skipped in 120 ms\. What was done/,
    );
    expect(applySummaryLine(result('interrupted', 80))).toMatch(/, 3 not started in 80 ms\. What was done/);
  });

  it('never shows a duration as zero seconds, and keeps it within rounding of the truth', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), (ms) => {
        const shown = formatDuration(ms);
        const m = /^(\d+) ms$|^(\d+\.\d) s$/.exec(shown);
        expect(m, shown).not.toBeNull();
        if (m![1] !== undefined) {
          expect(ms).toBeLessThan(1000);
          expect(Number(m![1])).toBe(ms);
        } else {
          expect(ms).toBeGreaterThanOrEqual(1000);
          // In whole milliseconds: 16.1 * 1000 is 16100.000000000002 in floating point.
          expect(Math.abs(Math.round(Number(m![2]) * 1000) - ms)).toBeLessThanOrEqual(50);
        }
      }),
      { examples: [[16_050]] },
    );
  });
});
