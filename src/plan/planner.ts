// The pure planner (DESIGN §4): plan(desired, live, now, options) -> Plan. No I/O, no clock of its own.

import { type Account, accountOf, type LiveState } from '../account/model.js';
import type { DesiredState } from '../config/model.js';
import { AccordError, type ErrorReport } from '../errors.js';
import {
  descriptorFor,
  desiredOf,
  isManaged,
  managedDescriptors,
  moduleDescriptors,
} from '../resources/index.js';
import { guardVerdict, planScopeStates } from '../traffic/guards.js';
import {
  checkOnlyRuleDeletes,
  orderDashboardRules,
  orderPolicyDeletes,
  unseenReferenceWarnings,
} from '../traffic/holders.js';
import { judgeReach } from '../traffic/lockout.js';
import { isUnionStep, orderTrafficChanges, trafficWarnings } from '../traffic/order.js';
import { brokenMarkerKeys } from './drift.js';
import { type KindContext, planEntry, planModule, planNested, planOrphans } from './entries.js';
import { type EntryWarning, type KindMatch, matchLiveToDesired } from './match.js';
import type { PlanOptions } from './options.js';
import { References, type Target } from './references.js';
import { changeRequests } from './requests.js';
import { assessSafety, type Destroyed } from './safety.js';
import { type Selection, selectChanges } from './select.js';
import { isCleanup, keptKeys, slotOf } from './slots.js';
import { attachSources } from './sources.js';
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
 * `plan` of the account already typed (`accountOf`): a caller that reads it again after the plan
 * (drift's guards, reach's pictures) or plans twice builds it once and passes it.
 */
export function planAccount(desired: DesiredState, live: Account, now: Date, options: PlanOptions): Plan {
  const { changes, destroyed, warnings, errors, references, counts } = planManaged(
    desired,
    live,
    now,
    options,
  );
  noteSwaps(changes);
  for (const descriptor of moduleDescriptors) {
    for (const d of desiredOf(descriptor, desired)) {
      changes.push(planModule(descriptor, d, live.modules, references, errors));
    }
  }
  orderDashboardRules(changes, live);
  errors.push(...orderPolicyDeletes(changes, live));
  errors.push(...orderTrafficChanges(changes, live));
  errors.push(...checkOnlyRuleDeletes(changes, live));
  if (errors.length > 0) throw new PlanError(errors);

  const context = { owner: desired.owner, createdAt: now };
  for (const c of changes) {
    c.requests = changeRequests(c, context);
  }
  changes.sort(byKindThenAddress);
  attachSources(changes, desired);
  const part = options.selection ? selectPart(changes, destroyed, warnings, options.selection) : undefined;
  const kept = part?.changes ?? changes;
  // Duplicates are cleanup, not destruction (DESIGN §2): they count toward no threshold or protect.
  const candidates = part?.destroyed ?? destroyed;
  const stays = candidates.some((d) => d.change.step === 'duplicate')
    ? keptKeys(changes, (c) => slotOf(c.kind, c.after))
    : undefined;
  const destroying = stays
    ? candidates.filter((d) => !isCleanup(d.change, stays, slotOf(d.change.kind, d.change.before)))
    : candidates;
  const safety = assessSafety(destroying, counts.managed, options);
  const traffic = judgeReach(kept, live);
  if (options.force)
    safety.warnings.push(
      ...traffic.refusals.map((refusal) => ({ code: 'refusal_forced', refusal }) as const),
    );
  else safety.reasons.push(...traffic.refusals);
  safety.warnings.push(...traffic.warnings, ...trafficWarnings(kept), ...unseenReferenceWarnings(kept, live));
  // Guards hold whatever the flags: --force is not looked at.
  const guards = desired.guards?.length
    ? guardVerdict(desired.guards, planScopeStates(traffic.was, traffic.will))
    : { refusals: [], warnings: [] };
  safety.reasons.push(...guards.refusals);
  safety.warnings.push(...guards.warnings);
  const summary = summarizePlan(kept, counts.unmanaged, counts.otherOwners);
  const warningCodes: Warning[] = [...(part?.warnings ?? warnings), ...safety.warnings];
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
    summary,
    changes: kept,
    warnings: [], // words: src/render/plan-words.ts withWords
    warning_codes: warningCodes,
    reach: traffic.reach,
    reach_unchanged: traffic.unchanged,
    ...(part ? { selection: part.record } : {}),
  };
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
    };
    const parents = descriptor.within && matches.get(descriptor.within.section);
    if (descriptor.within && parents) {
      counts.managed += planNested(ctx, descriptor.within, parents, liveObjects);
      continue;
    }
    const match = matchLiveToDesired(
      descriptor,
      desiredOf(descriptor, desired).map((d) => ({ desired: d, values: descriptor.normalizeDesired(d) })),
      liveObjects,
      desired.owner,
      options.allowTakeover ?? false,
    );
    matches.set(descriptor.section, match);
    errors.push(...match.errors);
    warnings.push(...match.warnings);
    counts.unmanaged += match.unmanaged;
    counts.otherOwners += match.otherOwners;
    counts.managed +=
      match.owned + match.matched.filter((m) => m.live && m.live.marker?.owner !== desired.owner).length;
    ctx.holders = {
      descriptor,
      slots: match.slots,
      // Only a kind with slots asks who holds one (slotHolderProblems).
      entryOf: descriptor.slot
        ? new Map(match.matched.flatMap((m) => (m.live ? [[m.live, m.desired] as const] : [])))
        : new Map(),
      owner: desired.owner,
    };
    ctx.brokenMarkers = brokenMarkerKeys(liveObjects, desired.owner);
    const first = changes.length;
    for (const m of match.matched) planEntry(ctx, m);
    planOrphans(ctx, match);
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

const KIND_ORDER: readonly string[] = [...managedDescriptors, ...moduleDescriptors].map((d) => d.kind);

/** Reproducible plans: kinds in descriptor order, then addresses. */
function byKindThenAddress(a: PlanChange, b: PlanChange): number {
  const k = KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind);
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
