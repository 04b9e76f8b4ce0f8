// Reading a plan saved by `accord plan --out FILE`: JSON checked against schemas/plan.schema.json (by
// the validator generated from it). Nothing in it is trusted beyond that: `apply FILE` plans again
// from the files the apply command names, which must be the ones the plan names, and compares
// (src/apply/stale.ts).
import { readFileSync } from 'node:fs';
import { isAbsolute, posix, win32 } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { AccordError } from '../errors.js';
import { PLAN_FORMAT_VERSION, type Plan } from '../plan/types.js';
import { isRecord } from '../resources/values.js';
import { validate as generatedValidate } from './generated/plan-validator.js';

const validate = generatedValidate as unknown as ValidateFunction;

export class PlanFileError extends AccordError {
  override name = 'PlanFileError';
  static override readonly code = 'ACCORD_PLAN_FILE';
}

export function readPlanFile(path: string, shownAs: string): Plan {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new PlanFileError(
      `${shownAs} ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code})`}; give a plan saved by accord plan --out FILE.`,
      { cause: err },
    );
  }
  return parsePlan(text, shownAs);
}

/** The plan in `text`, if it has this version's shape; PlanFileError otherwise. */
export function parsePlan(text: string, shownAs: string): Plan {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new PlanFileError(
      `${shownAs} is not JSON; give a plan saved by accord plan --out FILE (to apply a desired-state file, use -f ${shownAs}).`,
      { cause: err },
    );
  }
  const version = isRecord(data) ? data['format_version'] : undefined;
  if (typeof version === 'number' && version !== PLAN_FORMAT_VERSION) {
    throw new PlanFileError(
      version < 4
        ? `${shownAs} was saved by an earlier accord (plan format ${version}), which does not name the desired-state files this version plans again from; plan again with accord plan --out FILE.`
        : version < PLAN_FORMAT_VERSION
          ? `${shownAs} was saved by an earlier accord (plan format ${version}); plan again with accord plan --out FILE.`
          : `${shownAs} was saved by a newer accord (plan format ${version}); apply it with that version, or plan again with accord plan --out FILE.`,
    );
  }
  if (!validate(data)) {
    const e = validate.errors?.[0] as ErrorObject | undefined;
    const where = e?.instancePath ? ` at ${e.instancePath}` : '';
    throw new PlanFileError(
      `${shownAs} is not a plan this version of accord can apply${where}: ${e?.message ?? 'invalid'}; plan again with accord plan --out FILE.`,
    );
  }
  return data as Plan;
}

/**
 * Refuses a plan whose `files` are not all relative paths inside the working directory, before any
 * file is read: the list is only compared with the apply command's own (checkSameFiles), and a path
 * that could leave the directory has no business in it.
 */
export function checkPlanPaths(plan: Plan, shownAs: string): void {
  const bad = plan.files.filter((path) => !isInsidePath(path));
  if (bad.length === 0) return;
  throw new PlanFileError(
    `${shownAs} names ${bad.map((b) => JSON.stringify(b)).join(', ')} among its desired-state files: a plan names its files relative to the directory plan ran in, never absolute or leaving it, so this plan was not made by accord plan --out; nothing was read or changed. Plan again with accord plan --out FILE.`,
  );
}

/** A relative, `/`-separated path that stays inside its directory. */
export function isInsidePath(path: string): boolean {
  if (path === '' || path.includes('\0')) return false;
  if (isAbsolute(path) || win32.isAbsolute(path)) return false;
  return !path.split(/[\\/]/).includes('..');
}

/** Where the apply command's desired-state files came from, for messages. */
export type FilesSource = '-f' | 'ACCORD_FILES' | 'the default';

/**
 * Refuses the plan unless it was made from `files`, the desired-state files the apply command names
 * (its -f, ACCORD_FILES or the default, each directory stood for by its YAML files, relative to the
 * working directory): a plan file never chooses what is applied (DESIGN §4 "Saved plans"). The same
 * files in another order are the same desired state.
 */
export function checkSameFiles(
  plan: Plan,
  files: readonly string[],
  source: FilesSource,
  shownAs: string,
): void {
  const outside = files.filter((path) => !isInsidePath(path));
  if (outside.length > 0) {
    throw new PlanFileError(
      `${outside.join(', ')} (from ${source}) ${outside.length === 1 ? 'is' : 'are'} outside the working directory, and a saved plan names its files relative to it: run accord plan --out and accord apply ${shownAs} in a directory that holds the desired-state files.`,
    );
  }
  const planned = [...new Set(plan.files.map(normalizePath))].sort();
  const given = [...new Set(files.map(normalizePath))].sort();
  if (planned.length === given.length && planned.every((p, i) => p === given[i])) return;
  throw new PlanFileError(
    `the plan was made from other files: ${shownAs} names ${plan.files.join(', ')}, and this apply reads ${files.join(', ') || 'none'} (from ${source}); nothing was changed. Give apply the files the plan was made from (accord apply ${shownAs} -f FILE..., or ACCORD_FILES), or plan again from these files.`,
  );
}

function normalizePath(path: string): string {
  return posix.normalize(path);
}
