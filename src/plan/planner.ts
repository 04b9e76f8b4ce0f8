// The pure planner (DESIGN §4): plan(desired, live, now, options) -> Plan. No I/O, no clock of its own.

import { type Account, accountOf, type LiveState } from '../account/model.js';
import type { DesiredState } from '../config/model.js';
import { AccordError, type ErrorReport } from '../errors.js';
import {
  descriptorFor,
  desiredOf,
  fromRegistry,
  isManaged,
  managedDescriptors,
  moduleDescriptors,
} from '../resources/index.js';
import { guardsNameEndpoints, mayChangeEndpoints, mayChangeListedEdges } from '../traffic/edges.js';
import { orderEndpointChanges } from '../traffic/endpoint-order.js';
import { keepEndpointsBetween } from '../traffic/endpoint-order-search.js';
import { guardedTwice } from '../traffic/guarded-twice.js';
import { guardsNamingNothing, guardVerdict, planScopeStates } from '../traffic/guards.js';
import {
  checkOnlyRuleDeletes,
  orderDashboardRules,
  orderPolicyDeletes,
  unseenReferenceWarnings,
} from '../traffic/holders.js';
import { judgeReach } from '../traffic/lockout.js';
import { deniesWithNothingAllowed } from '../traffic/named-policies.js';
import { isUnionStep, orderTrafficChanges, trafficWarnings } from '../traffic/order.js';
import { picturesOf } from '../traffic/reach.js';
import { brokenMarkerKeys } from './drift.js';
import { type KindContext, planEntry, planNested, planOrphans } from './entries.js';
import { withListedIds } from './listed-ids.js';
import { type EntryWarning, type KindMatch, matchLiveToDesired } from './match.js';
import { planModule } from './modules.js';
import type { PlanOptions } from './options.js';
import { References, type Target } from './references.js';
import { changeRequests } from './requests.js';
import { assessSafety, type Destroyed } from './safety.js';
import { type Selection, selectChanges } from './select.js';
import { orderSlotMoves } from './slot-moves.js';
import { isCleanup, keptKeys, slotOf } from './slots.js';
import { attachSources, locateCycles } from './sources.js';
import {
  PLAN_FORMAT_VERSION,
  type Plan,
  type PlanChange,
  type PlanProblem,
  type PlanSummary,
  type Warning,
} from './types.js';

/**
 * The files and the account cannot be planned together: each problem as data (`problems`). The planner
 * writes no words: as it throws the error, its message and `messages` are the problems' codes; where
 * the error is shown, `worded` gives it their sentences (src/render/problems.ts `withProblemWords`).
 */
export class PlanError extends AccordError {
  override name = 'PlanError';
  static override readonly code = 'ACCORD_PLAN';
  /** Each problem's sentence, in the order of `problems` (its code until the error is worded). */
  readonly messages: string[];
  constructor(
    readonly problems: PlanProblem[],
    words?: ProblemWords,
    options?: ErrorOptions,
  ) {
    super(words?.message ?? problems.map((p) => p.code).join(', '), options);
    this.messages = words?.messages ?? problems.map((p) => p.code);
  }

  /** The same problems with their words, the unworded error as its cause. */
  worded(words: ProblemWords): PlanError {
    return new PlanError(this.problems, words, { cause: this });
  }

  /** `--json` names each problem's code beside its sentence, so that scripts need not read the text. */
  override report(): ErrorReport {
    return {
      ...super.report(),
      plan_problems: this.problems.map((p, i) => ({ code: p.code, message: this.messages[i]! })),
    };
  }
}

/** A `PlanError`'s words: its message, and each problem's sentence in the order of its problems. */
export interface ProblemWords {
  message: string;
  messages: string[];
}

export function plan(desired: DesiredState, liveState: LiveState, now: Date, options: PlanOptions): Plan {
  return planAccount(desired, accountOf(liveState), now, options);
}

/**
 * `plan` of the account already typed (`accountOf`), as it is: with the TCP edges listed or not. A
 * caller that reads the account again after the plan (drift's guards, reach's pictures) builds it once
 * and passes it; one that lists the edges only when the plan asks for them plans in the two stages.
 */
export function planAccount(desired: DesiredState, live: Account, now: Date, options: PlanOptions): Plan {
  return finishPlan(matchAccount(desired, live, now, options), live);
}

/** A plan's first stage: the files matched to the account, each entry's change made, not yet ordered. */
export interface Matched {
  desired: DesiredState;
  now: Date;
  options: PlanOptions;
  changes: PlanChange[];
  destroyed: Destroyed[];
  warnings: EntryWarning[];
  errors: PlanProblem[];
  counts: { unmanaged: number; otherOwners: number; managed: number };
  /**
   * The rest of the plan could depend on the TCP edges the account lists, and the account matched did
   * not hold them: it deletes a policy, or changes the rules of one the account has, that a module the
   * files do not name may hold (DESIGN §2). The caller lists them and finishes the plan with them.
   */
  needsEdges: boolean;
  /**
   * As `needsEdges`, for the account's endpoints (each a scope, DESIGN §4 "Reach"): the plan changes
   * what a traffic policy may name, or the `endpoints` IP restriction, and they were not listed.
   */
  needsEndpoints: boolean;
}

/**
 * The first stage of a plan: every managed kind matched and planned, then every module the files name.
 * What it needs of the account is the lists of managed kinds and the modules named; `finishPlan` takes
 * the account with the TCP edges when `needsEdges` says so. A plan that cannot be made (its problems
 * are thrown by `finishPlan`) needs no edges.
 */
export function matchAccount(desired: DesiredState, live: Account, now: Date, options: PlanOptions): Matched {
  const { references, ...managed } = planManaged(desired, live, now, options);
  noteSwaps(managed.changes);
  for (const descriptor of moduleDescriptors) {
    for (const d of desiredOf(descriptor, desired)) {
      managed.changes.push(planModule(descriptor, d, live.modules, references, managed.errors));
    }
  }
  const plannable = managed.errors.length === 0;
  const needsEdges = live.tcpEdges === undefined && plannable && mayChangeListedEdges(managed.changes);
  const needsEndpoints =
    live.endpoints === undefined &&
    plannable &&
    (mayChangeEndpoints(managed.changes) || guardsNameEndpoints(desired.guards));
  return { desired, now, options, ...managed, needsEdges, needsEndpoints };
}

/**
 * The second stage of a plan, once, on the account (with the TCP edges when `matched.needsEdges`):
 * the changes ordered, their requests, the selection, the safety verdict and the reach. Takes the
 * changes of `matched` as its own (a first stage is finished once).
 */
export function finishPlan(matched: Matched, live: Account): Plan {
  const { desired, now, options, changes, errors } = matched;
  orderDashboardRules(changes, live);
  errors.push(...orderPolicyDeletes(changes, live));
  const traffic = orderTrafficChanges(changes, live);
  errors.push(...traffic.problems);
  orderEndpointChanges(changes, live, traffic.proposed);
  errors.push(...keepEndpointsBetween(changes, live, traffic.proposed));
  errors.push(...deniesWithNothingAllowed(changes, () => picturesOf(changes, live).after));
  errors.push(...checkOnlyRuleDeletes(changes, live));
  locateCycles(errors, changes, desired);
  if (errors.length > 0) throw new PlanError(errors);

  const context = { owner: desired.owner, createdAt: now };
  for (const c of changes) {
    c.requests = changeRequests(c, context);
  }
  const order = kindOrder();
  changes.sort((a, b) => byKindThenAddress(order, a, b));
  attachSources(changes, desired);
  const { selection } = options;
  const part = selection ? selectPart(changes, matched.destroyed, matched.warnings, selection) : undefined;
  const kept = part?.changes ?? changes;
  const safety = judgePlan(matched, part?.destroyed ?? matched.destroyed, kept, live);
  const warningCodes: Warning[] = [...(part?.warnings ?? matched.warnings), ...safety.warnings];
  return {
    format_version: PLAN_FORMAT_VERSION,
    tool_version: options.toolVersion,
    api_url: options.apiUrl,
    owner: desired.owner,
    created_at: now.toISOString(),
    files: options.files ?? desired.files.map((f) => f.shown),
    config_digest: desired.digest,
    ...(desired.fileDigests ? { file_digests: { ...desired.fileDigests } } : {}),
    safe: safety.reasons.length === 0,
    unsafe_reasons: [], // words: src/render/plan-words.ts withWords
    unsafe_codes: safety.reasons,
    safety: safety.safety,
    summary: summarizePlan(kept, matched.counts.unmanaged, matched.counts.otherOwners),
    changes: kept,
    warnings: [], // words: src/render/plan-words.ts withWords
    warning_codes: warningCodes,
    reach: safety.reach,
    reach_unchanged: safety.unchanged,
    ...(part ? { selection: part.record } : {}),
  };
}

/**
 * The safety verdict on the kept changes: the destroy threshold and protection (duplicates are
 * cleanup, not destruction: DESIGN §2), the lockout guard on their reach, and the guards.
 */
function judgePlan(matched: Matched, candidates: readonly Destroyed[], kept: PlanChange[], live: Account) {
  const { changes, options, desired } = matched;
  const stays = candidates.some((d) => d.change.step === 'duplicate')
    ? keptKeys(changes, (c) => slotOf(c.kind, c.after))
    : undefined;
  const destroying = stays
    ? candidates.filter((d) => !isCleanup(d.change, stays, slotOf(d.change.kind, d.change.before)))
    : candidates;
  const safety = assessSafety(destroying, matched.counts.managed, options);
  const traffic = judgeReach(kept, live);
  if (options.force)
    safety.warnings.push(
      ...traffic.refusals.map((refusal) => ({ code: 'refusal_forced', refusal }) as const),
    );
  else safety.reasons.push(...traffic.refusals);
  safety.warnings.push(...traffic.warnings, ...trafficWarnings(kept), ...unseenReferenceWarnings(kept, live));
  // Guards hold whatever the flags: --force is not looked at. One endpoint judged by two is a problem.
  const states = desired.guards?.length ? planScopeStates(traffic.was, traffic.will) : [];
  const twice = guardedTwice(desired.guards ?? [], states, traffic.was.picture, traffic.will.picture);
  // With the endpoints listed, a guard by a URL no endpoint has judges nothing: said, never passed.
  const nothing = Array.isArray(live.endpoints) ? guardsNamingNothing(desired.guards ?? [], states) : [];
  if (twice.length + nothing.length > 0) throw new PlanError([...twice, ...nothing]);
  const guards = desired.guards?.length
    ? guardVerdict(desired.guards, states)
    : { refusals: [], warnings: [] };
  safety.reasons.push(...guards.refusals);
  safety.warnings.push(...guards.warnings);
  return { ...safety, reach: traffic.reach, unchanged: traffic.unchanged };
}

/**
 * Every managed kind in registry order: matched, each entry planned, orphans deleted, nested kinds
 * within their parents; what each kind leaves is what later kinds' references by key resolve to.
 */
function planManaged(desired: DesiredState, live: Account, now: Date, options: PlanOptions) {
  const changes: PlanChange[] = [];
  const destroyed: Destroyed[] = [];
  const warnings: EntryWarning[] = [];
  const errors: PlanProblem[] = [];
  const counts = { unmanaged: 0, otherOwners: 0, managed: 0 };
  const references = new References();
  const matches = new Map<string, KindMatch>();
  for (const descriptor of managedDescriptors) {
    const liveObjects = live.managed[descriptor.kind] ?? [];
    const ctx: KindContext = {
      descriptor,
      owner: desired.owner,
      now,
      changes,
      destroyed,
      warnings,
      errors,
      holders: { descriptor, slots: new Map(), entryOf: new Map(), owner: desired.owner },
      brokenMarkers: new Map(),
      references,
      reportHeldSlots: options.reportHeldSlots ?? false,
      slotMoves: [],
    };
    const parents = descriptor.within && matches.get(descriptor.within.section);
    if (descriptor.within && parents) {
      counts.managed += planNested(ctx, descriptor.within, parents, liveObjects);
      continue;
    }
    const match = withListedIds(
      matchLiveToDesired(
        descriptor,
        desiredOf(descriptor, desired).map((d) => ({ desired: d, values: descriptor.normalizeDesired(d) })),
        liveObjects,
        desired.owner,
        options.allowTakeover ?? false,
      ),
      descriptor,
      live,
    );
    matches.set(descriptor.section, match);
    countMatch(ctx, match, counts);
    ctx.brokenMarkers = brokenMarkerKeys(liveObjects, desired.owner);
    const first = changes.length;
    for (const m of match.matched) planEntry(ctx, m);
    planOrphans(ctx, match);
    errors.push(...orderSlotMoves(ctx.slotMoves, changes.slice(first), ctx.reportHeldSlots ?? false));
    references.define(
      descriptor.section,
      descriptor.idPrefix,
      targets(changes.slice(first)),
      liveObjects.map((o) => o.id),
    );
    for (const d of desiredOf(descriptor, desired)) warnings.push(...(descriptor.warnings?.(d, now) ?? []));
  }
  return { changes, destroyed, warnings, errors, references, counts };
}

/**
 * What a kind's match tells the plan: its problems and warnings, the objects it counts, and for its
 * entries the slots and markers their changes ask about.
 */
function countMatch(
  ctx: KindContext,
  match: KindMatch,
  counts: { unmanaged: number; otherOwners: number; managed: number },
): void {
  const { descriptor, owner } = ctx;
  ctx.errors.push(...match.errors);
  ctx.warnings.push(...match.warnings);
  counts.unmanaged += match.unmanaged;
  counts.otherOwners += match.otherOwners;
  counts.managed +=
    match.owned + match.matched.filter((m) => m.live && m.live.marker?.owner !== owner).length;
  ctx.holders = {
    descriptor,
    slots: match.slots,
    // Only a kind with slots asks who holds one (slotHolderProblems).
    entryOf: descriptor.slot
      ? new Map(match.matched.flatMap((m) => (m.live ? [[m.live, m.desired] as const] : [])))
      : new Map(),
    owner,
  };
}

/**
 * --target/--exclude, after matching and ordering saw the whole account. The safety verdict is taken
 * on what this plan destroys (a protected resource left out does not refuse it), against every managed
 * resource; warnings about a change left out go with it.
 */
function selectPart(
  changes: readonly PlanChange[],
  destroyed: readonly Destroyed[],
  warnings: readonly EntryWarning[],
  selection: Selection,
) {
  const { kept, leftOut, record } = selectChanges(changes, selection);
  const keptSet = new Set(kept);
  const leftOutAddresses = new Set(leftOut.map((c) => c.address));
  return {
    changes: kept,
    destroyed: destroyed.filter((d) => keptSet.has(d.change)),
    warnings: warnings.filter((w) => !leftOutAddresses.has(w.address)),
    record,
  };
}

/**
 * Two entries of a kind with a slot that each take the other's object are a swap (DESIGN §2 "Slots"):
 * each change says so, with what they swap (`types swapped with vpn`), beside its rename.
 */
function noteSwaps(changes: PlanChange[]): void {
  const renamedFrom = new Map<string, string>();
  const id = (kind: string, key: string) => `${kind}\u0000${key}`;
  for (const c of changes) {
    for (const r of c.reason_codes) if (r.code === 'renamed') renamedFrom.set(id(c.kind, c.key), r.from);
  }
  if (renamedFrom.size === 0) return;
  for (const c of changes) {
    const from = renamedFrom.get(id(c.kind, c.key));
    if (from === undefined || renamedFrom.get(id(c.kind, from)) !== c.key) continue;
    const descriptor = descriptorFor(c.kind);
    if (!isManaged(descriptor) || !descriptor.slot) continue;
    const fields = descriptor.fields.filter((f) => f.immutable).map((f) => f.name);
    c.reason_codes.push({ code: 'swapped', fields, with: from });
  }
}

/** The entries a kind's changes leave, by key: what references by key resolve to. */
function targets(changes: readonly PlanChange[]): Map<string, Target> {
  const found = new Map<string, Target>();
  for (const c of changes) {
    if (c.action === 'delete' || c.step === 'union') continue;
    const made = c.action === 'create' || c.action === 'replace';
    found.set(c.key, { id: made ? null : c.id, address: c.address });
  }
  return found;
}

/** Each kind's place in the plan: the registry's order, managed kinds first. */
const kindOrder = fromRegistry(
  () => new Map([...managedDescriptors, ...moduleDescriptors].map((d, i) => [d.kind as string, i])),
);

/** Reproducible plans: kinds in registry order (`order`), then addresses. */
function byKindThenAddress(order: ReadonlyMap<string, number>, a: PlanChange, b: PlanChange): number {
  const k = order.get(a.kind)! - order.get(b.kind)!;
  if (k !== 0) return k;
  return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
}

/** Counts the changes by action, with the numbers of unmanaged and other owners' objects left alone. */
export function summarizePlan(
  changes: readonly PlanChange[],
  unmanaged: number,
  otherOwners: number,
): PlanSummary {
  const s: PlanSummary = {
    create: 0,
    patch: 0,
    put: 0,
    replace: 0,
    delete: 0,
    adopt: 0,
    no_op: 0,
    unmanaged,
    other_owners: otherOwners,
  };
  for (const c of changes) if (!isUnionStep(c)) s[c.action === 'no-op' ? 'no_op' : c.action]++;
  return s;
}
