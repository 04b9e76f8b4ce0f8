// A saved plan does only what it shows (DESIGN §4): before the first request, `apply FILE` derives
// every change's requests and order from what the change shows, with the planner's own function
// (src/plan/requests.ts), and refuses the file where they differ. The checks that
// need the account (ownership, free keys, safety) are in src/apply/stale.ts.
import { hasDotSegment } from '../api/paths.js';
import { AccordError } from '../errors.js';
import { canonicalJson } from '../plan/digest.js';
import { summarizePlan } from '../plan/planner.js';
import { changeRequests, comparedFields, shownMarker, UnderivableChangeError } from '../plan/requests.js';
import type { Plan, PlanChange, PlannedRequest } from '../plan/types.js';
import { descriptorFor, isManaged } from '../resources/index.js';

/** A saved plan whose requests, order or objects are not what its changes show. Exit 1. */
export class PlanMismatchError extends AccordError {
  override name = 'PlanMismatchError';
  static override readonly code = 'ACCORD_PLAN_MISMATCH';
}

/** The refusal, naming the change and what differs, and what to do. */
export function mismatch(shownAs: string, address: string, detail: string): PlanMismatchError {
  return new PlanMismatchError(
    `${shownAs} does not match what it shows at ${address} (${detail}); make the plan again with accord plan --out FILE.`,
  );
}

/** Throws PlanMismatchError at the first change whose requests or order differ from the derived ones. */
export function verifyShownPlan(plan: Plan, shownAs: string): void {
  checkGraph(plan, shownAs);
  const context = { owner: plan.owner, createdAt: new Date(plan.created_at) };
  for (const c of plan.changes) {
    const problem = identityProblem(c, plan.owner) ?? orderProblem(c);
    if (problem) throw mismatch(shownAs, c.address, problem);
    let derived: PlannedRequest[];
    try {
      derived = changeRequests(c, context);
    } catch (err) {
      if (err instanceof UnderivableChangeError) throw mismatch(shownAs, c.address, err.message);
      throw err;
    }
    const differs = requestsDiffer(c.requests, derived);
    if (differs) throw mismatch(shownAs, c.address, differs);
  }
  const counted = summarizePlan(plan.changes, plan.summary.unmanaged, plan.summary.other_owners);
  const wrong = (Object.keys(counted) as (keyof typeof counted)[]).find(
    (k) => counted[k] !== plan.summary[k],
  );
  if (wrong !== undefined) {
    throw new PlanMismatchError(
      `${shownAs} does not match what it shows: its summary counts ${plan.summary[wrong]} ${wrong} but it holds ${counted[wrong]}; make the plan again with accord plan --out FILE.`,
    );
  }
}

/** Unique addresses, and dependencies on changes that exist: the executor would silently drop others. */
function checkGraph(plan: Plan, shownAs: string): void {
  const addresses = new Set<string>();
  for (const c of plan.changes) {
    if (addresses.has(c.address)) {
      throw new PlanMismatchError(
        `${shownAs}: ${c.address} appears twice; make the plan again with accord plan --out FILE.`,
      );
    }
    addresses.add(c.address);
  }
  for (const c of plan.changes) {
    const broken = c.depends_on.find((d) => d === c.address || !addresses.has(d));
    if (broken !== undefined) {
      throw new PlanMismatchError(
        `${shownAs}: ${c.address} depends on ${broken === c.address ? 'itself' : `${broken}, which is not in the plan`}; make the plan again with accord plan --out FILE.`,
      );
    }
    for (const r of c.requests) {
      if (!r.path.startsWith('/') || r.path.startsWith('//') || hasDotSegment(r.path)) {
        throw new PlanMismatchError(
          `${shownAs}: ${c.address} has a request path that is not relative to the API URL; make the plan again with accord plan --out FILE.`,
        );
      }
    }
  }
}

/** The address, key and id must name one object the same way; the shown values must agree. */
function identityProblem(c: PlanChange, owner: string): string | undefined {
  const descriptor = descriptorFor(c.kind);
  if (isManaged(descriptor)) {
    const base = `${descriptor.section}.${c.key}`;
    const duplicate = c.action === 'delete' && c.id !== null && c.address === `${base}#${c.id}`;
    if (c.address !== base && !duplicate) return `a ${c.kind} with key ${c.key} is ${base}`;
    if (c.id !== null && !c.id.startsWith(descriptor.idPrefix)) {
      return `id ${c.id} is not a ${c.kind} ID (${descriptor.idPrefix}...)`;
    }
    if (c.after !== null && c.after['marker'] !== shownMarker(owner, c.key)) {
      return `after.marker is ${JSON.stringify(c.after['marker'])}, expected "${shownMarker(owner, c.key)}"`;
    }
    const known = new Set(comparedFields(descriptor).map((f) => f.name));
    const unknown = c.changed_fields.find((f) => !known.has(f) && c.action !== 'create');
    if (unknown !== undefined) return `changed field ${unknown} is not a field of ${c.kind}`;
  } else {
    const identity = descriptor.identify(c.address);
    if (!identity) return `the address does not name a ${c.kind} module`;
    if (c.key !== descriptor.key(identity)) return `key ${c.key}, expected ${descriptor.key(identity)}`;
    if (c.id !== descriptor.id(identity)) return `id ${c.id}, expected ${descriptor.id(identity)}`;
  }
  if (c.after !== null && c.action !== 'no-op' && isManaged(descriptor))
    return descriptor.checkAfter?.(c.after);
  return undefined;
}

/**
 * A replace creates before it deletes, and no change waits for another (DESIGN §2 "Slots": the
 * planner matches by slot, so no create ever needs a delete first). A file that says otherwise was
 * edited, or made by a version that could leave a type unrestricted.
 */
function orderProblem(c: PlanChange): string | undefined {
  const expected = c.action === 'replace' ? 'create_before_delete' : undefined;
  if (c.replace_order !== expected) {
    return `replace_order ${c.replace_order ?? '(none)'}, expected ${expected ?? '(none)'}`;
  }
  if (c.depends_on.length > 0) return `depends_on [${[...c.depends_on].sort().join(', ')}], expected []`;
  return undefined;
}

/** What differs between the stored requests and the derived ones, for the refusal; undefined if none. */
export function requestsDiffer(
  stored: readonly PlannedRequest[],
  derived: readonly PlannedRequest[],
): string | undefined {
  if (stored.length !== derived.length) {
    return `${stored.length} requests (${stored.map(line).join(', ') || 'none'}), expected ${derived.length} (${derived.map(line).join(', ') || 'none'})`;
  }
  for (let i = 0; i < stored.length; i++) {
    const s = stored[i]!;
    const d = derived[i]!;
    if (s.method !== d.method) return `request ${i + 1} is ${line(s)}, expected ${line(d)}`;
    if (s.path !== d.path) return `request path ${s.path}, expected ${d.path}`;
    const field = bodyDifference(s.body, d.body);
    if (field !== undefined) return `${line(s)} body ${field}`;
  }
  return undefined;
}

function line(r: PlannedRequest): string {
  return `${r.method} ${r.path}`;
}

function bodyDifference(
  stored: Record<string, unknown> | undefined,
  derived: Record<string, unknown> | undefined,
): string | undefined {
  if (canonicalJson(stored ?? null) === canonicalJson(derived ?? null)) return undefined;
  if (!stored || !derived) return stored ? 'is not expected' : 'is missing';
  for (const k of new Set([...Object.keys(derived), ...Object.keys(stored)])) {
    if (canonicalJson(stored[k] ?? null) === canonicalJson(derived[k] ?? null)) continue;
    if (!(k in stored)) return `lacks ${k}`;
    if (!(k in derived)) return `has ${k}, which the change does not show`;
    return `${k} is ${brief(stored[k])}, expected ${brief(derived[k])}`;
  }
  return 'differs';
}

/** A value short enough for one line: never a whole PEM. */
function brief(v: unknown): string {
  const text = JSON.stringify(v) ?? 'undefined';
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
