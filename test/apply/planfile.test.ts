import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkPlanPaths,
  checkSameFiles,
  isInsidePath,
  PlanFileError,
  parsePlan,
} from '../../src/apply/planfile.js';
import type { Plan } from '../../src/plan/types.js';

const fixture = () =>
  JSON.parse(readFileSync(new URL('./fixtures/plan.json', import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;

describe('parsePlan', () => {
  it('reads a plan of this format, with the desired-state files it names', () => {
    const plan = parsePlan(JSON.stringify(fixture()), 'plan.json');
    expect(plan.files).toEqual(['accord.yaml']);
    expect(plan.changes).toHaveLength(1);
  });

  it('refuses a plan of another format with a message to plan again', () => {
    for (const version of [1, 2, 3]) {
      const text = JSON.stringify({ ...fixture(), format_version: version });
      expect(() => parsePlan(text, 'plan.json')).toThrow(
        `plan.json was saved by an earlier accord (plan format ${version}), which does not name the desired-state files this version plans again from; plan again with accord plan --out FILE.`,
      );
    }
    expect(() => parsePlan(JSON.stringify({ ...fixture(), format_version: 4 }), 'plan.json')).toThrow(
      'plan.json was saved by an earlier accord (plan format 4); plan again with accord plan --out FILE.',
    );
    expect(() => parsePlan(JSON.stringify({ ...fixture(), format_version: 6 }), 'plan.json')).toThrow(
      'plan.json was saved by a newer accord (plan format 6); apply it with that version, or plan again',
    );
  });

  it('refuses a plan without the files it was made from, or naming none', () => {
    const { files: _, ...without } = fixture();
    for (const [plan, where] of [
      [without, ''],
      [{ ...fixture(), files: [] }, ' at /files'],
      [{ ...fixture(), files: [''] }, ' at /files/0'],
    ] as const) {
      const read = () => parsePlan(JSON.stringify(plan), 'plan.json');
      expect(read).toThrow(PlanFileError);
      expect(read).toThrow(`plan.json is not a plan this version of accord can apply${where}:`);
    }
  });

  it('refuses what is not JSON, pointing at -f for a desired-state file', () => {
    expect(() => parsePlan('version: 1\n', 'accord.yaml')).toThrow(
      'accord.yaml is not JSON; give a plan saved by accord plan --out FILE (to apply a desired-state file, use -f accord.yaml).',
    );
  });
});

describe('the files of a saved plan', () => {
  const planOf = (files: string[]) => ({ ...fixture(), files }) as unknown as Plan;

  it.each([
    ['accord.yaml', true],
    ['shared/restrictions.yaml', true],
    ['..accord.yaml', true],
    ['/etc/passwd', false],
    ['C:\\accord.yaml', false],
    ['\\\\server\\share\\accord.yaml', false],
    ['../accord.yaml', false],
    ['shared/../../accord.yaml', false],
    ['shared\\..\\..\\accord.yaml', false],
    ['..', false],
    ['a\0b', false],
  ])('%j inside the working directory: %s', (path, inside) => {
    expect(isInsidePath(path)).toBe(inside);
    const check = () => checkPlanPaths(planOf(['accord.yaml', path]), 'plan.json');
    if (inside) expect(check).not.toThrow();
    else expect(check).toThrow(`plan.json names ${JSON.stringify(path)} among its desired-state files`);
  });

  it('property: the command must name the same set of files as the plan', () => {
    const name = fc.constantFrom('accord.yaml', 'a.yaml', 'shared/b.yml', 'envs/prod.yaml', 'c.yaml');
    fc.assert(
      fc.property(fc.uniqueArray(name, { minLength: 1 }), fc.array(name), (planned, given) => {
        const same = new Set(planned).size === new Set(given).size && given.every((g) => planned.includes(g));
        const check = () => checkSameFiles(planOf(planned), given, '-f', 'plan.json');
        if (same) expect(check).not.toThrow();
        else
          expect(check).toThrow(`the plan was made from other files: plan.json names ${planned.join(', ')}`);
      }),
    );
    // The same files in another order, or spelled ./a.yaml, are the same desired state.
    expect(() =>
      checkSameFiles(planOf(['a.yaml', 'b.yaml']), ['./b.yaml', 'a.yaml'], '-f', 'p'),
    ).not.toThrow();
  });
});
