// Reading a plan saved by `accord plan --out FILE`: JSON checked against schemas/plan.schema.json before
// anything in it is trusted.
import { readFileSync } from 'node:fs';
import type { ErrorObject } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { hasDotSegment } from '../api/paths.js';
import { AccordError } from '../errors.js';
import type { Plan } from '../plan/types.js';

export const PLAN_SCHEMA_URL = new URL('../../schemas/plan.schema.json', import.meta.url);

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
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new PlanFileError(
      `${shownAs} is not JSON; give a plan saved by accord plan --out FILE (to apply a desired-state file, use -f ${shownAs}).`,
    );
  }
  const schema = JSON.parse(readFileSync(PLAN_SCHEMA_URL, 'utf8')) as object;
  const ajv = new Ajv2020({ allErrors: false, strictTypes: false });
  (addFormats as unknown as typeof addFormats.default)(ajv, ['date-time']);
  const validate = ajv.compile(schema);
  if (!validate(data)) {
    const e = validate.errors?.[0] as ErrorObject | undefined;
    const where = e?.instancePath ? ` at ${e.instancePath}` : '';
    throw new PlanFileError(
      `${shownAs} is not a plan this version of accord can apply${where}: ${e?.message ?? 'invalid'}; make it again with accord plan --out FILE.`,
    );
  }
  const plan = data as Plan;
  const addresses = new Set<string>();
  for (const c of plan.changes) {
    if (addresses.has(c.address)) {
      throw new PlanFileError(
        `${shownAs}: ${c.address} appears twice; make the plan again with accord plan --out FILE.`,
      );
    }
    addresses.add(c.address);
  }
  for (const c of plan.changes) {
    // The executor orders by depends_on: an edge to nowhere or to itself would silently drop an order.
    const broken = c.depends_on.find((d) => d === c.address || !addresses.has(d));
    if (broken !== undefined) {
      throw new PlanFileError(
        `${shownAs}: ${c.address} depends on ${broken === c.address ? 'itself' : `${broken}, which is not in the plan`}; make the plan again with accord plan --out FILE.`,
      );
    }
    for (const r of c.requests) {
      if (!r.path.startsWith('/') || r.path.startsWith('//') || hasDotSegment(r.path)) {
        throw new PlanFileError(
          `${shownAs}: ${c.address} has a request path that is not relative to the API URL.`,
        );
      }
    }
  }
  return plan;
}
