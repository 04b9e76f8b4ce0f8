// The planner emits codes and facts, never words: the sentences a plan shows are filled in where it is
// handed to people (src/render/plan-words.ts), and src/plan and the rest of src import nothing from
// the rendering folder, which only the CLI (and the library's surface through it) uses.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accountOf } from '../../src/account/model.js';
import { plan } from '../../src/cli/worded-plan.js';
import { PlanError, planAccount } from '../../src/plan/planner.js';
import { withProblemWords, withWords } from '../../src/render/plan-words.js';
import { problemText } from '../../src/render/problems.js';
import { reasonText } from '../../src/render/reasons.js';
import { refusalText } from '../../src/render/refusals.js';
import { warningText } from '../../src/render/warnings.js';
import { desiredState, ipr, liveIpr, liveState, marker, NOW, OPTIONS } from './fixtures.js';

/**
 * A plan with reasons, a refusal (a protected delete) and a warning (an entry's `id:` that is gone, the
 * entry matched by its marker).
 */
function scene() {
  const desired = desiredState({
    ip_restrictions: [ipr('office', { id: 'ipx_gone' }), ipr('vpn', { type: 'api' })],
  });
  const live = liveState({
    ip_restriction: [
      liveIpr('ipx_1', { metadata: marker('office') }),
      liveIpr('ipx_2', { type: 'agent', metadata: marker('old', { protect: true }) }),
    ],
  });
  return { desired, live };
}

describe('the planner writes no words', () => {
  it('its plan carries codes; its sentences are empty until withWords fills them', () => {
    const { desired, live } = scene();
    const bare = planAccount(desired, accountOf(live), NOW, OPTIONS);
    expect(bare.changes.length).toBeGreaterThan(0);
    expect(bare.changes.every((c) => c.reasons.length === 0)).toBe(true);
    expect(bare.changes.some((c) => c.reason_codes.length > 0)).toBe(true);
    expect([bare.unsafe_reasons, bare.warnings]).toEqual([[], []]);
    expect(bare.unsafe_codes).not.toEqual([]);
    expect(bare.warning_codes).not.toEqual([]);
  });

  it('withWords gives each code its sentence, in place, and the JSON is the worded plan as before', () => {
    const { desired, live } = scene();
    const worded = withWords(planAccount(desired, accountOf(live), NOW, OPTIONS));
    for (const c of worded.changes) expect(c.reasons).toEqual(c.reason_codes.map(reasonText));
    expect(worded.unsafe_reasons).toEqual(worded.unsafe_codes!.map(refusalText));
    expect(worded.warnings).toEqual(worded.warning_codes!.map(warningText));
    expect(JSON.stringify(worded)).toBe(JSON.stringify(plan(desired, live, NOW, OPTIONS)));
    // The fields keep their places in the JSON: each sentence field before its codes.
    const keys = Object.keys(worded);
    expect(keys.indexOf('unsafe_reasons')).toBe(keys.indexOf('unsafe_codes') - 1);
    expect(keys.indexOf('warnings')).toBe(keys.indexOf('warning_codes') - 1);
    const changeKeys = Object.keys(worded.changes[0]!);
    expect(changeKeys.indexOf('reasons')).toBe(changeKeys.indexOf('reason_codes') - 1);
  });

  it('its PlanError carries the problems as codes; withProblemWords says them', () => {
    const desired = desiredState({ ip_restrictions: [ipr('office', { id: 'ipx_1' })] });
    const live = liveState({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('x', { owner: 'b' }) })] });
    let thrown: unknown;
    try {
      planAccount(desired, accountOf(live), NOW, OPTIONS);
    } catch (err) {
      thrown = err;
    }
    const bare = thrown as PlanError;
    expect(bare).toBeInstanceOf(PlanError);
    expect([bare.message, bare.messages]).toEqual(['id_other_owner', ['id_other_owner']]);
    const worded = withProblemWords(bare);
    expect(worded).toBeInstanceOf(PlanError);
    expect(worded.problems).toBe(bare.problems);
    expect(worded.messages).toEqual(bare.problems.map(problemText));
    expect(worded.message).toBe(`cannot plan:\n  - ${problemText(bare.problems[0]!)}`);
    expect(() => plan(desired, live, NOW, OPTIONS)).toThrow(worded.message);
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('only the CLI imports the rendering folder', () => {
  it('no file of src outside src/cli and src/render imports from src/render', () => {
    const importers = sourceFiles('src')
      .filter((f) => !f.startsWith(join('src', 'cli')) && !f.startsWith(join('src', 'render')))
      .filter((f) => /\sfrom\s+'(?:\.\.\/)+render\//.test(readFileSync(f, 'utf8')));
    expect(importers).toEqual([]);
  });
});
