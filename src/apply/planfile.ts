// Reading a plan saved by `accord plan --out FILE`: JSON checked against schemas/plan.schema.json (by
// the validator generated from it). Nothing in it is trusted beyond that: `apply FILE` plans again
// from the files it names and compares (src/apply/stale.ts).
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
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
 * The desired-state files the plan was made from, as named relative to `cwd` (where plan ran): apply
 * plans again from the same list. PlanFileError when one is not there.
 */
export function desiredFilesOf(plan: Plan, shownAs: string, cwd: string): string[] {
  const missing = plan.files.filter((path) => !existsSync(resolve(cwd, path)));
  if (missing.length > 0) {
    throw new PlanFileError(
      `${shownAs} was made from ${missing.join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not in ${cwd}: apply a saved plan where accord plan ran, with the same files (in CI: the same commit checked out).`,
    );
  }
  return plan.files;
}
