// What `accord reach` shows (DESIGN §4 "Reach"; the plan's own reach lines are render/reach.ts): per
// scope, the addresses let through now (the account) and per the files (the account once the plan is
// applied), and for each address asked about, per scope, whether it is let through now and after and
// the rule that decides.
import type { ErrorReport } from '../errors.js';
import type { AddressSetSummary } from '../net/cidr-set.js';
import { idLabel, type PlannedId } from '../resources/known-after-apply.js';
import { describeDecision, type Filter, type ScopeSide, scopeStates } from '../traffic/governance.js';
import { type Decision, decide, scopeLabel, scopesOf, type TrafficPicture } from '../traffic/reach.js';
import { setText } from './reach-text.js';

/**
 * 3: endpoints are scopes (named by URL, `address` for one the files manage), with `at_most` on a side
 * whose reach is a pair of bounds, and the endpoint decisions (`restrict-ips`, `endpoints restriction`,
 * `no restrict-ips`, `no endpoint`; `where`, `sometimes`). 2: `plan_error`, when the files cannot be
 * planned against the account: then every `after` is null (not known) and `now` is shown all the
 * same. 1: the first form.
 */
export const REACH_FORMAT_VERSION = 3;

/** What a side lets through (an endpoint: what every connection gets), and what some connection gets when more. */
export interface ReachState extends AddressSetSummary {
  filter: Filter;
  at_most?: AddressSetSummary;
}

export interface ScopeReach {
  scope: string;
  /** An endpoint an entry of the files manages: its address (`cloud_endpoints.KEY`). */
  address?: string;
  now: ReachState;
  /** Null when the files cannot be planned against the account (`plan_error`). */
  after: ReachState | null;
}

/** Whether one address gets through, what decides (`by`; the rule's CIDR and policy for allow and deny). */
export interface AddressDecision {
  /** An endpoint the address reaches only sometimes: true, with `sometimes`. */
  let_through: boolean;
  by: Decision['by'];
  cidr?: string;
  /** The policy's key in the files, else its ID. */
  policy?: string;
  /** An endpoint's `restrict-ips` that decides: `on_http_request rule 1 action 1`. */
  where?: string;
  /** The deciding action runs only for some connections. */
  sometimes?: boolean;
  /** An endpoint that lets the address in for some connections only: an action that runs only sometimes would shut it out. */
  only_sometimes?: true;
  /** Said for people: `allow 10.0.0.0/8 of office`. */
  decided_by: string;
}

export interface AddressReach {
  address: string;
  /** `after` is null when the files cannot be planned against the account (`plan_error`). */
  scopes: { scope: string; now: AddressDecision; after: AddressDecision | null }[];
}

export interface ReachReport {
  format_version: typeof REACH_FORMAT_VERSION;
  tool_version: string;
  api_url: string;
  owner: string;
  created_at: string;
  scopes: ScopeReach[];
  addresses: AddressReach[];
  /** What the report could not see (a service without a list of TCP edges). */
  notes: string[];
  /** Only when the files cannot be planned against the account: the error `accord plan` exits 1 with. */
  plan_error?: ErrorReport;
}

/**
 * The report of the account (`before`) and the account once the plan is applied (`after`), with
 * policies named by their keys in the files (`names`, by ID) where they have one. Without `after` (the
 * files cannot be planned against the account: `planError`), what the account does now all the same.
 */
export function reachReport(
  pictures: { before: TrafficPicture; after?: TrafficPicture },
  names: ReadonlyMap<PlannedId, string>,
  addresses: readonly string[],
  context: Pick<ReachReport, 'tool_version' | 'api_url' | 'owner' | 'created_at'>,
  notes: readonly string[] = [],
  planError?: ErrorReport,
): ReachReport {
  const { before } = pictures;
  const after = pictures.after ?? before;
  const known = pictures.after !== undefined;
  const scopes = scopesOf(before, after);
  const state = (side: ScopeSide): ReachState => ({
    filter: side.filter,
    ...side.reach.summary(),
    ...(side.most ? { at_most: side.most.summary() } : {}),
  });
  const decision = (picture: TrafficPicture, scope: string, address: string): AddressDecision => {
    const d = decide(picture, scope, address);
    return {
      let_through: d.let,
      by: d.by,
      ...decisionFacts(d, names),
      decided_by: describeDecision(d, names),
    };
  };
  return {
    format_version: REACH_FORMAT_VERSION,
    ...context,
    scopes: scopeStates(before, after, scopes).map((s) => ({
      scope: s.scope,
      ...addressOf(s.names),
      now: state(s.before),
      after: known ? state(s.after) : null,
    })),
    addresses: addresses.map((address) => ({
      address,
      scopes: scopes.map((scope) => ({
        scope,
        now: decision(before, scope, address),
        after: known ? decision(after, scope, address) : null,
      })),
    })),
    notes: [...notes],
    ...(planError ? { plan_error: planError } : {}),
  };
}

/** The rule that decides (its CIDR and policy) and, for an endpoint's action, where it is. */
function decisionFacts(d: Decision, names: ReadonlyMap<PlannedId, string>): Partial<AddressDecision> {
  if (d.by === 'allow' || d.by === 'deny') {
    return { cidr: d.rule.cidr, policy: names.get(d.rule.policy) ?? idLabel(d.rule.policy) };
  }
  if (d.by === 'endpoints restriction') return decisionFacts(d.inner, names);
  if (d.by !== 'restrict-ips') return {};
  return {
    ...(d.cidr !== undefined ? { cidr: d.cidr } : {}),
    ...(d.policy !== undefined ? { policy: names.get(d.policy) ?? idLabel(d.policy) } : {}),
    where: d.where,
    sometimes: d.sometimes,
    ...(d.let && d.verdict !== 'allow' ? { only_sometimes: true as const } : {}),
  };
}

/** An endpoint's address in the files, among its names (its URLs have `://`). */
function addressOf(names: readonly string[] | undefined): { address?: string } {
  const address = names?.find((n) => !n.includes('://'));
  return address !== undefined ? { address } : {};
}

export function renderReachJson(report: ReachReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

const FILTERS: Record<Filter, string> = {
  enforced: '',
  'warn-only': ' (warn-only)',
  disabled: ' (module disabled)',
  none: ' (no restriction)',
  sometimes: ' (a restrict-ips runs only sometimes)',
  absent: ' (no such endpoint)',
};

function same(a: ReachState, b: ReachState): boolean {
  const most = (s: ReachState) => `${s.at_most?.addresses}${s.at_most?.cidrs.join()}`;
  return (
    a.filter === b.filter &&
    a.addresses === b.addresses &&
    a.cidrs.join() === b.cidrs.join() &&
    most(a) === most(b)
  );
}

/** A side in words: `10.0.0.0/8 (16,777,216 addresses)`, `at least X at most Y`. */
function stateText(s: ReachState): string {
  if (s.filter === 'absent') return 'no such endpoint';
  const set = s.at_most ? `at least ${setText(s)} at most ${setText(s.at_most)}` : setText(s);
  return `${set}${FILTERS[s.filter]}`;
}

/** Said for what the files would do when they cannot be planned against the account. */
const NOT_KNOWN = 'not known';

export function renderReachText(report: ReachReport): string {
  const where = `Who can reach what in ${report.api_url} (owner ${report.owner})`;
  const out = [
    report.plan_error
      ? `${where}: now; per the files not known, as they cannot be planned against the account (below).`
      : `${where}: now, and per the files.`,
    '',
  ];
  for (const s of report.scopes) {
    const now = stateText(s.now);
    const after = s.after === null ? NOT_KNOWN : same(s.now, s.after) ? 'the same' : stateText(s.after);
    const label = s.address !== undefined ? `${scopeLabel(s.scope)} (${s.address})` : scopeLabel(s.scope);
    out.push(`${label}: now ${now}; per the files ${after}`);
  }
  for (const a of report.addresses) {
    out.push('', `${a.address}:`);
    for (const s of a.scopes) {
      const verdict = (d: AddressDecision) =>
        d.only_sometimes ? 'let through only sometimes' : d.let_through ? 'let through' : 'shut out';
      const word = (d: AddressDecision | null) =>
        d === null ? NOT_KNOWN : `${verdict(d)} (${d.decided_by})`;
      out.push(`  ${scopeLabel(s.scope)}: now ${word(s.now)}; per the files ${word(s.after)}`);
    }
  }
  if (report.plan_error) {
    out.push(
      '',
      'The files cannot be planned against the account, so what they would let through is not known:',
    );
    for (const p of report.plan_error.plan_problems ?? [report.plan_error]) out.push(`  - ${p.message}`);
  }
  for (const note of report.notes) out.push('', `Note: ${note}`);
  return `${out.join('\n')}\n`;
}
