// What `accord drift` reports, and the plan's drift notes (DESIGN §4 "Drift"), read from the plan's
// `drift`: the fields the account no longer holds as accord wrote them, and every change no
// fingerprint can attribute, each by address with what differs and why it cannot be told. `unknown` is
// never silent: it is drift as much as `outside` is (exit 2).
import type { ErrorReport } from '../errors.js';
import { outsideFields } from '../plan/drift.js';
import type { Plan, PlanChange, Reason, SlotHeld } from '../plan/types.js';
import { count } from '../plural.js';
import { descriptorFor, isManaged } from '../resources/index.js';
import type { GuardBreach, GuardRule } from '../traffic/guards.js';
import { isUnionStep } from '../traffic/order.js';
import { describeBreach } from './guards.js';
import { fileName } from './names.js';
import { reasonText } from './reasons.js';
import { formatFieldValue } from './values.js';

/**
 * 4: `plan_error`, when the files cannot be planned against the account and the account breaks a
 * guard. 3: `guard_breaches` lists each guard the account breaks. 2: `unattributed` lists each change
 * with `why`, `reason` and its differing fields' values.
 */
export const DRIFT_FORMAT_VERSION = 4;

export interface OutsideField {
  field: string;
  /** `outside`: only the account changed; `both`: the file changed as well. */
  source: 'outside' | 'both';
  /** What accord last wrote; only known when the file did not change since (`outside`). */
  accord_wrote?: unknown;
  /** The value in the account now. */
  live: unknown;
  /** The file's value, which the next apply writes. */
  file: unknown;
}

export interface OutsideChange {
  address: string;
  kind: PlanChange['kind'];
  id: string | null;
  fields: OutsideField[];
}

/**
 * Why no fingerprint tells who made a change: `edge_module` (modules have no metadata to keep one in),
 * `missing` (an entry not in the account: deleted outside accord, or new and not applied yet),
 * `marker_broken` (the object is there but its marker no longer reads as one), `slot_held` (the
 * entry's slot is held by an object accord does not manage: its marker emptied or given to another
 * owner outside accord, or never accord's), `no_fingerprint` (this owner's marker holds none this
 * version can read), `not_written` (accord never wrote the object: an adoption or takeover by `id:` not
 * applied yet).
 */
export type UnattributedWhy =
  | 'edge_module'
  | 'missing'
  | 'marker_broken'
  | 'slot_held'
  | 'no_fingerprint'
  | 'not_written';

export interface UnattributedField {
  field: string;
  /** The value in the account now (absent when nothing is live). */
  live?: unknown;
  /** The file's value, which the next apply writes (absent for a delete). */
  file?: unknown;
}

/** Why no fingerprint tells who made a change, with the facts its sentence says (`unattributedText`). */
export type Unattributed =
  /** `module`: the file sets it `absent`, the account has it `not_configured`, or its values `differ`. */
  | { why: 'edge_module'; module: 'absent' | 'not_configured' | 'differ' }
  | { why: 'missing' }
  /** `holder`: the object whose metadata still names the entry's key. */
  | { why: 'marker_broken'; holder: string }
  | { why: 'slot_held'; held: SlotHeld }
  | { why: 'no_fingerprint' }
  | { why: 'not_written' };

/** A change no fingerprint can attribute, as data; `unattributedText` says its why. */
export type UnattributedChange = {
  address: string;
  kind: PlanChange['kind'];
  id: string | null;
  action: PlanChange['action'];
  /** The fields that differ; empty when the whole object is missing or is to be removed. */
  fields: UnattributedField[];
} & Unattributed;

/** An unattributed change as `accord drift --json` writes it: its `why` said for people as `reason`. */
export interface UnattributedJson {
  address: string;
  kind: PlanChange['kind'];
  id: string | null;
  action: PlanChange['action'];
  why: UnattributedWhy;
  reason: string;
  fields: UnattributedField[];
}

export interface DriftReport {
  format_version: typeof DRIFT_FORMAT_VERSION;
  tool_version: string;
  api_url: string;
  owner: string;
  created_at: string;
  /** Objects with fields changed outside accord. */
  changes: OutsideChange[];
  /** Changes no fingerprint can attribute: drift too, as nothing shows they are the file's. */
  unattributed: UnattributedChange[];
  /** Each guard of the files that the account breaks now, whoever made it so (DESIGN §1 "Guards"). */
  guard_breaches: GuardBreachReport[];
  /**
   * Only when the files cannot be planned against the account (the error `accord plan` exits 1 with):
   * the guard breaches, which need no plan, are listed all the same; `changes` and `unattributed`,
   * which do, are empty and not known.
   */
  plan_error?: ErrorReport;
}

/** A guard the account breaks: which, where it is written, the scope and the addresses. */
export interface GuardBreachReport {
  /** The guard's scope as written: `dashboard`, `tcp_edges.edgtcp_x`, `all`. */
  guard: string;
  file: string;
  line: number;
  scope: string;
  rule: GuardRule;
  /** `always_let_in`: the addresses shut out; `only_let_in`: those let in; minimal, sorted, whole. */
  cidrs: string[];
  addresses: string;
  /** `enforced`: what filters the scope instead (`none`, `warn-only`, `disabled`). */
  filter?: string;
  /** The breach said for people. */
  message: string;
}

function breachReport(b: GuardBreach): GuardBreachReport {
  return {
    guard: b.guard,
    file: b.at.file,
    line: b.at.line,
    scope: b.scope,
    rule: b.rule,
    cidrs: b.cidrs,
    addresses: b.addresses,
    ...(b.filter !== undefined ? { filter: b.filter } : {}),
    message: describeBreach(b, 'now'),
  };
}

/** Fields of a change that the account changed outside accord. */
export function outsideFieldsOf(c: PlanChange): OutsideField[] {
  const fields: OutsideField[] = [];
  for (const [field, source] of Object.entries(c.drift)) {
    if (source !== 'outside' && source !== 'both') continue;
    const f: OutsideField = { field, source, live: c.before?.[field], file: c.after?.[field] };
    // The file still says what accord wrote: the fingerprint matched it.
    if (source === 'outside') f.accord_wrote = c.after?.[field];
    fields.push(f);
  }
  return fields;
}

/** The reasons a change acts on an object that is not this owner's (src/plan/match.ts `AdoptReason`). */
const ADOPTION: ReadonlySet<Reason['code']> = new Set(['adopt_unmanaged', 'takeover', 'adopt_nested']);

/** Whether, and why, no fingerprint tells who made this change; undefined when one does (or no-op). */
export function unattributedOf(c: PlanChange): UnattributedChange | undefined {
  if (c.action === 'no-op') return undefined;
  const unknown = Object.keys(c.drift).filter((k) => c.drift[k] === 'unknown');
  const module = !isManaged(descriptorFor(c.kind));
  if (unknown.length === 0 && !module) return undefined;
  const base = { address: c.address, kind: c.kind, id: c.id, action: c.action };
  const fieldsOf = (names: readonly string[]): UnattributedField[] =>
    names.map((field) => ({ field, live: c.before?.[field], file: c.after?.[field] }));
  if (module) {
    const state = c.action === 'delete' ? 'absent' : c.before === null ? 'not_configured' : 'differ';
    return {
      ...base,
      why: 'edge_module',
      module: state,
      fields: c.action === 'delete' ? [] : fieldsOf(c.changed_fields),
    };
  }
  if (c.action === 'create') {
    for (const r of c.reason_codes) {
      if (r.code === 'marker_broken') return { ...base, why: 'marker_broken', holder: r.id, fields: [] };
      if (r.code === 'slot_held') return { ...base, why: 'slot_held', held: r.problem, fields: [] };
    }
    return { ...base, why: 'missing', fields: [] };
  }
  // An object that is not this owner's is adopted (its reason says so): accord never wrote it. This
  // owner's object kept no fingerprint this version reads.
  const adopted = c.reason_codes.some((r) => ADOPTION.has(r.code));
  return { ...base, why: adopted ? 'not_written' : 'no_fingerprint', fields: fieldsOf(unknown) };
}

/** Why no fingerprint tells who made the change, said for people. */
export function unattributedText(u: Unattributed): string {
  switch (u.why) {
    case 'edge_module':
      return u.module === 'absent'
        ? 'edge module configured in the account while the file says "absent"; modules keep no fingerprint, so nothing tells whether the file or someone outside accord changed it'
        : u.module === 'not_configured'
          ? 'edge module not configured in the account; modules keep no fingerprint, so nothing tells whether it was removed outside accord or is new in the file'
          : 'edge module; modules keep no fingerprint, so nothing tells whether the file or someone outside accord changed it';
    case 'missing':
      return 'not in the account: deleted outside accord, or a new entry not applied yet';
    case 'marker_broken':
      return reasonText({ code: 'marker_broken', id: u.holder });
    case 'slot_held':
      return reasonText({ code: 'slot_held', problem: u.held });
    case 'no_fingerprint':
      return 'its marker holds no fingerprint this version can read (written by an earlier accord, or edited by hand)';
    case 'not_written':
      return 'accord has not written it yet (adopted with id:, not applied yet)';
  }
}

/** The drift of `plan`, with the guards the account breaks now (`breaches`, of the state before it). */
export function driftReport(plan: Plan, breaches: readonly GuardBreach[] = []): DriftReport {
  const changes: OutsideChange[] = [];
  const unattributed: UnattributedChange[] = [];
  for (const c of plan.changes) {
    if (isUnionStep(c)) continue;
    const fields = outsideFieldsOf(c);
    if (fields.length > 0) changes.push({ address: c.address, kind: c.kind, id: c.id, fields });
    const u = unattributedOf(c);
    if (u) unattributed.push(u);
  }
  return {
    format_version: DRIFT_FORMAT_VERSION,
    tool_version: plan.tool_version,
    api_url: plan.api_url,
    owner: plan.owner,
    created_at: plan.created_at,
    changes,
    unattributed,
    guard_breaches: breaches.map(breachReport),
  };
}

/**
 * The report of an account the files cannot be planned against: the guards it breaks now, which need
 * no plan, and the plan's error (`PlanError.report()`) in place of the changes, which do.
 */
export function unplannedDriftReport(
  context: Pick<DriftReport, 'tool_version' | 'api_url' | 'owner' | 'created_at'>,
  breaches: readonly GuardBreach[],
  planError: ErrorReport,
): DriftReport {
  return {
    format_version: DRIFT_FORMAT_VERSION,
    ...context,
    changes: [],
    unattributed: [],
    guard_breaches: breaches.map(breachReport),
    plan_error: planError,
  };
}

/** The plan error's problems, one sentence each (its message when it lists none). */
export function planProblemTexts(error: ErrorReport): string[] {
  return error.plan_problems?.map((p) => p.message) ?? [error.message];
}

export const UNPLANNED =
  'The files cannot be planned against the account, so what else was changed outside accord is not known';

export const UNPLANNED_TO_DO =
  'Fix what keeps the files from being planned (accord plan says the same), then run accord drift again to see the rest.';

/**
 * The plan's drift notes on one change: the fields changed outside accord, and why nothing can tell who
 * changed it. A create says nothing more: its reason already says the object is not in the account.
 */
export function driftNotes(c: PlanChange): string[] {
  const notes: string[] = [];
  const outside = outsideFields(c.drift);
  if (outside.length > 0) notes.push(`changed outside accord: ${outside.map(fileName).join(', ')}`);
  const u = unattributedOf(c);
  if (u && u.why !== 'missing') notes.push(`who changed it cannot be told: ${unattributedText(u)}`);
  return notes;
}

/**
 * True when `accord drift` must exit 2: something changed outside accord, or nothing tells who, or
 * the account breaks a guard.
 */
export function hasDrift(report: DriftReport): boolean {
  return report.changes.length > 0 || report.unattributed.length > 0 || report.guard_breaches.length > 0;
}

/** The report as `--json` writes it: each unattributed change's facts said as its `reason`. */
export function renderDriftJson(report: DriftReport): string {
  const unattributed = report.unattributed.map(
    (u): UnattributedJson => ({
      address: u.address,
      kind: u.kind,
      id: u.id,
      action: u.action,
      why: u.why,
      reason: unattributedText(u),
      fields: u.fields,
    }),
  );
  return `${JSON.stringify({ ...report, unattributed }, null, 2)}\n`;
}

function headlineOf(report: DriftReport): string {
  const n = report.changes.reduce((sum, c) => sum + c.fields.length, 0);
  return `${count(n, 'field', 'fields')} of ${count(report.changes.length, 'object', 'objects')} changed outside accord`;
}

/** What the report holds, counted: `1 guard breach in the account`, `2 fields of 1 object changed ...`. */
export function countsOf(report: DriftReport): string[] {
  const breaches = report.guard_breaches.length;
  return [
    ...(breaches > 0 ? [`${count(breaches, 'guard breach', 'guard breaches')} in the account`] : []),
    ...(report.changes.length > 0 ? [headlineOf(report)] : []),
    ...(report.unattributed.length > 0 ? [unattributedHeadline(report)] : []),
  ];
}

function unattributedHeadline(report: DriftReport): string {
  const n = report.unattributed.length;
  return `${count(n, 'change', 'changes')} that no fingerprint can attribute`;
}

export const UNKNOWN_WROTE = 'unknown (the file changed too)';

function wroteText(kind: PlanChange['kind'], f: OutsideField): string {
  return 'accord_wrote' in f ? formatFieldValue(kind, f.field, f.accord_wrote) : UNKNOWN_WROTE;
}

function unattributedFieldText(kind: PlanChange['kind'], f: UnattributedField): string {
  const live =
    'live' in f && f.live !== undefined
      ? `now ${formatFieldValue(kind, f.field, f.live)}`
      : 'not in the account';
  return `${fileName(f.field)}: ${live}, the file says ${formatFieldValue(kind, f.field, f.file)}`;
}

const WHAT_TO_DO =
  'accord apply sets them to the file; to keep a change made in the account, put it in the file.';

export function renderDriftText(report: DriftReport): string {
  const out: string[] = [];
  const where = `(owner ${report.owner}, ${report.api_url})`;
  if (!hasDrift(report)) return `No changes outside accord ${where}.\n`;
  if (report.guard_breaches.length > 0) {
    out.push(`Guards the account breaks ${where}:`, '');
    for (const b of report.guard_breaches) out.push(`  ${b.message}`);
    out.push('');
  }
  if (report.changes.length > 0) {
    out.push(`Changed outside accord ${where}:`, '');
    for (const c of report.changes) {
      out.push(`  ${c.address}${c.id ? ` (${c.id})` : ''}`);
      for (const f of c.fields) {
        const file =
          f.source === 'both' ? `; the file now says ${formatFieldValue(c.kind, f.field, f.file)}` : '';
        out.push(
          `    ${fileName(f.field)}: accord wrote ${wroteText(c.kind, f)}, now ${formatFieldValue(c.kind, f.field, f.live)}${file}`,
        );
      }
      out.push('');
    }
  }
  if (report.plan_error) {
    out.push(`${UNPLANNED}:`, '');
    for (const m of planProblemTexts(report.plan_error)) out.push(`  - ${m}`);
    out.push('');
  }
  if (report.unattributed.length > 0) {
    out.push(
      `Cannot be attributed: the account differs from the file and nothing tells who changed it ${where}:`,
      '',
    );
    for (const u of report.unattributed) {
      out.push(`  ${u.address}${u.id ? ` (${u.id})` : ''}`, `    # ${unattributedText(u)}`);
      for (const f of u.fields) out.push(`    ${unattributedFieldText(u.kind, f)}`);
      out.push('');
    }
  }
  out.push(`${countsOf(report).join('; ')}. ${report.plan_error ? UNPLANNED_TO_DO : WHAT_TO_DO}`);
  return `${out.join('\n')}\n`;
}
