// A saved plan is a promise, not a program (DESIGN §4 "Saved plans do only what they show"): `apply
// FILE` plans again from the files the plan names, with the plan's selection, and applies that fresh
// plan only if it equals the saved one. Every request, the owner, the times and the safety verdict come
// from the fresh plan; the file only says what was promised. So no edit of the file can act beyond
// what the reviewed files produce against the account as it is.
import type { DesiredState } from '../config/model.js';
import { AccordError } from '../errors.js';
import type { Selection } from '../plan/select.js';
import type { Plan, PlanChange } from '../plan/types.js';
import { isRecord, jsonEqual, jsonTextEqual } from '../resources/values.js';

export class StalePlanError extends AccordError {
  override name = 'StalePlanError';
  static override readonly code = 'ACCORD_STALE_PLAN';
}

export class UnsafePlanError extends AccordError {
  override name = 'UnsafePlanError';
  static override readonly code = 'ACCORD_UNSAFE_PLAN';
  override readonly exitCode = 3;
}

/** What a plan made now must share with the saved one before its changes are compared. */
export type PlanHeader = Pick<Plan, 'api_url' | 'owner' | 'config_digest' | 'file_digests'>;

/**
 * Throws StalePlanError when the plan was made for another API, or from other files (their digest, or
 * the owner they set). Needs nothing from the account, so `apply FILE` checks it before reading it.
 */
export function checkSavedHeader(saved: Plan, now: PlanHeader, shownAs: string): void {
  if (saved.api_url !== now.api_url) {
    throw new StalePlanError(
      `plan is stale: it was made for ${saved.api_url}, not ${now.api_url}; run plan again against this API.`,
    );
  }
  if (saved.config_digest !== now.config_digest) {
    const changed = filesChanged(saved.file_digests, now.file_digests) ?? [
      `was made from other contents of ${saved.files.join(', ')}`,
    ];
    throw new StalePlanError(
      `the files changed since the plan was made: plan again (${shownAs} ${changed.join('; it ')}; accord plan --out FILE, review, then apply that file).`,
    );
  }
  if (saved.owner !== now.owner) {
    throw new StalePlanError(
      `plan is stale: its owner is "${saved.owner}", but ${saved.files.join(', ')} sets "${now.owner}"; run plan again.`,
    );
  }
}

/**
 * What differs between the files a plan was made from and those read now, each file by name (a CIDR
 * file a guard or an `allow_file` reads as much as a YAML file); undefined when either side has no
 * digest of its own per file (a plan made before they were kept) or none differs.
 */
function filesChanged(
  saved: Readonly<Record<string, string>> | undefined,
  now: Readonly<Record<string, string>> | undefined,
): string[] | undefined {
  if (!saved || !now) return undefined;
  const names = (keep: (name: string) => boolean, from: Readonly<Record<string, string>>) =>
    Object.keys(from).sort().filter(keep).join(', ');
  const edited = names((n) => now[n] !== undefined && now[n] !== saved[n], saved);
  const added = names((n) => saved[n] === undefined, now);
  const dropped = names((n) => now[n] === undefined, saved);
  const said = [
    edited && `was made from other contents of ${edited}`,
    added && `was made without ${added}, which the files now name`,
    dropped && `was made from ${dropped} too, which the files no longer name`,
  ].filter(Boolean);
  return said.length > 0 ? said : undefined;
}

/**
 * The plan `apply FILE` applies for `saved`, with what `planNow` returned besides: `desired` is loaded
 * from the files the saved plan names; `planNow` plans it against the account with this apply's own
 * flags and the given files and selection (the saved plan's). Throws StalePlanError or UnsafePlanError,
 * before any request, when the promise is not kept.
 */
export async function planSavedAgain<T extends { plan: Plan }>(
  saved: Plan,
  desired: Pick<DesiredState, 'owner' | 'digest' | 'fileDigests'>,
  shownAs: string,
  apiUrl: string,
  planNow: (context: { files: string[]; selection?: Selection }) => Promise<T>,
): Promise<T & { verdict: SavedPlanVerdict }> {
  checkSavedHeader(
    saved,
    {
      api_url: apiUrl,
      owner: desired.owner,
      config_digest: desired.digest,
      ...(desired.fileDigests ? { file_digests: { ...desired.fileDigests } } : {}),
    },
    shownAs,
  );
  const part = saved.selection;
  const made = await planNow({
    files: saved.files,
    ...(part ? { selection: { target: part.target, exclude: part.exclude } } : {}),
  });
  return { ...made, verdict: judgeFreshPlan(saved, made.plan, shownAs) };
}

/**
 * `apply`: the fresh plan keeps the promise and is what to apply. `applied`: the saved plan had changes
 * and the account already matches its result (a plan made now has none).
 */
export type SavedPlanVerdict = 'apply' | 'applied';

/**
 * Judges `fresh`, planned now from the files `saved` names with its selection and this apply's flags.
 * Throws StalePlanError naming the first change that differs, UnsafePlanError when a safety rule
 * refuses the fresh plan.
 */
export function judgeFreshPlan(saved: Plan, fresh: Plan, shownAs: string): SavedPlanVerdict {
  checkSavedHeader(saved, fresh, shownAs);
  // A change the selection leaves out now was never the plan's to make: its selection was edited.
  const leftOut = new Set(fresh.selection?.left_out ?? []);
  const outside = saved.changes.find((c) => c.action !== 'no-op' && leftOut.has(c.address));
  if (outside) {
    throw new StalePlanError(
      `plan is stale: it shows ${outside.address} (${outside.action}), which its own selection leaves out; run plan again.`,
    );
  }
  const active = (p: Plan) => p.changes.some((c) => c.action !== 'no-op');
  if (active(saved) && !active(fresh)) return 'applied';
  const difference = firstDifference(saved.changes, fresh.changes);
  if (difference !== undefined) throw new StalePlanError(`plan is stale: ${difference}; run plan again.`);
  if (!fresh.safe) {
    throw new UnsafePlanError(
      `${shownAs} is refused by a safety rule: ${fresh.unsafe_reasons.join('; ')}. Nothing was changed.`,
    );
  }
  return 'apply';
}

/** The first change, in the saved plan's order, that a plan made now shows otherwise. */
function firstDifference(saved: readonly PlanChange[], fresh: readonly PlanChange[]): string | undefined {
  const now = new Map(fresh.map((c) => [c.address, c]));
  const seen = new Set<string>();
  for (const s of saved) {
    if (seen.has(s.address)) return `${s.address} appears twice in the plan`;
    seen.add(s.address);
    const f = now.get(s.address);
    if (!f) return `the plan shows ${s.address} (${s.action}), which a plan made now does not`;
    const why = changeDifference(s, f);
    if (why !== undefined) return `${s.address}: ${why}`;
  }
  const extra = fresh.find((c) => !seen.has(c.address));
  return extra && `a plan made now also shows ${extra.address} (${extra.action}), which the plan does not`;
}

/**
 * What the plan shows (reasons and drift are derived, requests follow from the rest: not compared),
 * said as what differs and where: the field of the account (`before`) or of the result (`after`).
 */
function changeDifference(s: PlanChange, f: PlanChange): string | undefined {
  const why = valuesDifference('before', s.before, f.before) ?? valuesDifference('after', s.after, f.after);
  for (const field of ['kind', 'action', 'id'] as const) {
    if (s[field] === f[field]) continue;
    if (field !== 'action') return `its ${field} is ${brief(s[field])} in the plan, ${brief(f[field])} now`;
    const change = `the plan ${actionText(s.action)}, a plan made now ${actionText(f.action)}`;
    return why === undefined ? change : `${change}: ${why}`;
  }
  if (why !== undefined) return why;
  if (!jsonEqual(s.changed_fields, f.changed_fields)) {
    return `changes [${s.changed_fields.join(', ')}] in the plan, [${f.changed_fields.join(', ')}] now`;
  }
  return undefined;
}

function actionText(action: PlanChange['action']): string {
  return action === 'no-op' ? 'leaves it as it is' : `would ${action} it`;
}

/** The first field of one side that differs: `before` is the account, `after` what the change makes. */
function valuesDifference(side: 'before' | 'after', saved: unknown, fresh: unknown): string | undefined {
  if (jsonTextEqual(saved, fresh)) return undefined;
  const [was, now] = [saved, fresh].map((v) => (v === null || v === undefined ? 'nothing' : brief(v)));
  if (!isRecord(saved) || !isRecord(fresh))
    return side === 'before'
      ? `the account shows ${now} now, ${was} in the plan`
      : `it makes ${was} in the plan, ${now} now`;
  const field = [...new Set([...Object.keys(saved), ...Object.keys(fresh)])]
    .sort()
    .find((k) => !jsonTextEqual(saved[k], fresh[k]))!;
  return side === 'before'
    ? `its ${field} is ${brief(fresh[field])} in the account now, ${brief(saved[field])} in the plan`
    : `it sets ${field} to ${brief(saved[field])} in the plan, ${brief(fresh[field])} now`;
}

/** A value short enough for one line: never a whole PEM. */
function brief(v: unknown): string {
  const text = v === undefined ? '(none)' : JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
