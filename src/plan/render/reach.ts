// What `accord reach` shows (DESIGN §4 "Reach"): per scope, the addresses let through now (the account)
// and per the files (the account once the plan is applied), and for each address asked about, per
// scope, whether it is let through now and after and the rule that decides.
import type { AddressSetSummary } from '../../net/cidr-set.js';
import { count } from '../../plural.js';
import {
  type Decision,
  decide,
  describeDecision,
  type Filter,
  type Governance,
  letThrough,
  type ScopeGovernance,
} from '../governance.js';
import { addressCount } from '../guards.js';

/** 1: the first form. */
export const REACH_FORMAT_VERSION = 1;

export interface ReachState extends AddressSetSummary {
  filter: Filter;
}

export interface ScopeReach {
  scope: string;
  now: ReachState;
  after: ReachState;
}

export type AddressDecision = Decision & { decided_by: string };

export interface AddressReach {
  address: string;
  scopes: { scope: string; now: AddressDecision; after: AddressDecision }[];
}

export interface ReachReport {
  format_version: typeof REACH_FORMAT_VERSION;
  tool_version: string;
  api_url: string;
  owner: string;
  created_at: string;
  scopes: ScopeReach[];
  addresses: AddressReach[];
}

export function reachReport(
  scopes: readonly ScopeGovernance[],
  addresses: readonly string[],
  context: Pick<ReachReport, 'tool_version' | 'api_url' | 'owner' | 'created_at'>,
): ReachReport {
  const state = (g: Governance): ReachState => ({ filter: g.filter, ...letThrough(g).summary() });
  const decision = (g: Governance, address: string): AddressDecision => {
    const d = decide(g, address);
    return { ...d, decided_by: describeDecision(d) };
  };
  return {
    format_version: REACH_FORMAT_VERSION,
    ...context,
    scopes: scopes.map((s) => ({ scope: s.scope, now: state(s.before), after: state(s.after) })),
    addresses: addresses.map((address) => ({
      address,
      scopes: scopes.map((s) => ({
        scope: s.scope,
        now: decision(s.before, address),
        after: decision(s.after, address),
      })),
    })),
  };
}

export function renderReachJson(report: ReachReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** How many CIDRs a line shows before it says how many more there are. */
const SHOWN_CIDRS = 8;

/** `everyone`, `no one`, `10.0.0.0/8, 198.51.100.0/26 (16,777,280 addresses)`. */
export function describeSet(s: AddressSetSummary): string {
  if (s.everyone) return 'everyone';
  if (s.cidrs.length === 0) return 'no one';
  const more = s.cidrs.length > SHOWN_CIDRS ? ` and ${count(s.cidrs.length - SHOWN_CIDRS, 'more CIDR')}` : '';
  return `${s.cidrs.slice(0, SHOWN_CIDRS).join(', ')}${more} (${addressCount(s.addresses)})`;
}

const FILTERS: Record<Filter, string> = {
  enforced: '',
  'warn-only': ' (warn-only)',
  disabled: ' (module disabled)',
  none: ' (no restriction)',
};

function scopeName(scope: string): string {
  return scope.startsWith('tcp_edges.') ? `TCP edge ${scope.slice('tcp_edges.'.length)}` : scope;
}

function same(a: ReachState, b: ReachState): boolean {
  return a.filter === b.filter && a.addresses === b.addresses && a.cidrs.join() === b.cidrs.join();
}

export function renderReachText(report: ReachReport): string {
  const out = [
    `Who can reach what in ${report.api_url} (owner ${report.owner}): now, and per the files.`,
    '',
  ];
  for (const s of report.scopes) {
    const now = `${describeSet(s.now)}${FILTERS[s.now.filter]}`;
    const after = same(s.now, s.after) ? 'the same' : `${describeSet(s.after)}${FILTERS[s.after.filter]}`;
    out.push(`${scopeName(s.scope)}: now ${now}; per the files ${after}`);
  }
  for (const a of report.addresses) {
    out.push('', `${a.address}:`);
    for (const s of a.scopes) {
      const word = (d: AddressDecision) => `${d.let_through ? 'let through' : 'shut out'} (${d.decided_by})`;
      out.push(`  ${scopeName(s.scope)}: now ${word(s.now)}; per the files ${word(s.after)}`);
    }
  }
  return `${out.join('\n')}\n`;
}
