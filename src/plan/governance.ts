// What governs each scope's traffic (DESIGN §4 "Reach"), before a plan (the account) and after it (the
// account with the plan's changes made): whether an enforced restriction or an enabled TCP edge module
// filters it, and the rules of the policies it names. From this follow the addresses let through and,
// for one address, the rule that decides, as the service evaluates them: let through by an enforced
// restriction (or an enabled module) when an `allow` rule of its policies matches and no `deny` rule
// does; a warn-only restriction, a disabled module, or none, lets everything through.
import { GUARDED_TYPES } from '../config/guard-model.js';
import type { DesiredState } from '../config/model.js';
import { type Cidr, cidrContains, isCidrProblem, parseAddress, parseCidr } from '../net/cidr.js';
import { AddressSet } from '../net/cidr-set.js';
import { isRecord, type LiveObject, str } from '../resources/values.js';
import { awaitedAddress } from './references.js';
import type { LiveState } from './state.js';
import { isUnionStep } from './traffic.js';
import type { PlanChange } from './types.js';

export interface GovernedRule {
  action: 'allow' | 'deny';
  cidr: string;
}

export interface GovernedPolicy {
  /** How a reader knows it: its key in the files, else its ID. */
  name: string;
  rules: GovernedRule[];
}

/**
 * `enforced`: an enforced restriction or enabled module filters the traffic; `warn-only`: a restriction
 * that only warns; `disabled`: a module configured but disabled; `none`: nothing filters it.
 */
export type Filter = 'enforced' | 'warn-only' | 'disabled' | 'none';

export interface Governance {
  filter: Filter;
  /** The policies the restriction or module names (empty unless enforced). */
  policies: GovernedPolicy[];
}

export interface ScopeGovernance {
  /** `dashboard`, `api`, `agent`, `endpoints`, or `tcp_edges.<id>`. */
  scope: string;
  before: Governance;
  after: Governance;
}

const OPEN: Governance = { filter: 'none', policies: [] };

/** Every traffic type, then every TCP edge the plan has a module change for (no-ops included). */
export function governanceOf(changes: readonly PlanChange[], live: LiveState): ScopeGovernance[] {
  const rules = rulesBeforeAndAfter(changes, live);
  const names = policyNames(changes);
  const policy = (id: string, byId: ReadonlyMap<string, GovernedRule[]>): GovernedPolicy => ({
    name: names.get(id) ?? id,
    rules: byId.get(id) ?? [],
  });
  const governed = (filter: Filter, ids: readonly string[], byId: ReadonlyMap<string, GovernedRule[]>) =>
    filter === 'enforced'
      ? { filter, policies: ids.map((id) => policy(id, byId)) }
      : { filter, policies: [] };

  const types = restrictionsBeforeAndAfter(changes, live);
  const scopes: ScopeGovernance[] = GUARDED_TYPES.map((type) => {
    const t = types.get(type);
    return {
      scope: type,
      before: t?.before ? governed(t.before.filter, t.before.ids, rules.before) : OPEN,
      after: t?.after ? governed(t.after.filter, t.after.ids, rules.after) : OPEN,
    };
  });
  for (const c of changes) {
    if (c.kind !== 'tcp_edge_ip_restriction' || isUnionStep(c)) continue;
    const module = (v: Record<string, unknown> | null): { filter: Filter; ids: string[] } =>
      v === null
        ? { filter: 'none', ids: [] }
        : { filter: v['enabled'] === false ? 'disabled' : 'enforced', ids: strings(v['ip_policies']) };
    const before = module(c.before);
    const after = c.action === 'no-op' ? before : module(c.after);
    scopes.push({
      scope: `tcp_edges.${c.key}`,
      before: governed(before.filter, before.ids, rules.before),
      after: governed(after.filter, after.ids, rules.after),
    });
  }
  return scopes;
}

const strings = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);

interface Restriction {
  /** The live object's ID; undefined for one the plan creates. */
  id?: string;
  filter: Filter;
  ids: string[];
}

/** Per type, the restriction of the account and the one the plan leaves (undefined: none). */
function restrictionsBeforeAndAfter(changes: readonly PlanChange[], live: LiveState) {
  const types = new Map<string, { before?: Restriction; after?: Restriction }>();
  for (const obj of live.managed.ip_restriction ?? []) {
    const ids = Array.isArray(obj['ip_policies'])
      ? obj['ip_policies'].map((r) => (isRecord(r) ? str(r['id']) : ''))
      : [];
    const r: Restriction = {
      id: str(obj['id']),
      filter: obj['enforced'] === true ? 'enforced' : 'warn-only',
      ids,
    };
    types.set(str(obj['type']), { before: r, after: r });
  }
  const acting = changes.filter(
    (c) => c.kind === 'ip_restriction' && c.action !== 'no-op' && !isUnionStep(c),
  );
  // What a delete or replace takes out of its type first, then what a change puts in.
  for (const c of acting) {
    if (c.action !== 'delete' && c.action !== 'replace') continue;
    for (const t of types.values()) if (t.after?.id !== undefined && t.after.id === c.id) delete t.after;
  }
  for (const c of acting) {
    if (c.after === null || c.action === 'delete') continue;
    const type = str(c.after['type']);
    const t = types.get(type) ?? {};
    t.after = {
      ...(c.id !== null && c.action !== 'replace' ? { id: c.id } : {}),
      filter: c.after['enforced'] === true ? 'enforced' : 'warn-only',
      ids: strings(c.after['ip_policies']),
    };
    types.set(type, t);
  }
  return types;
}

/** Each policy's rules in the account, and as the plan's rule changes leave them. */
function rulesBeforeAndAfter(changes: readonly PlanChange[], live: LiveState) {
  const before = new Map<string, GovernedRule[]>();
  const after = new Map<string, GovernedRule[]>();
  const add = (to: Map<string, GovernedRule[]>, policy: string, rule: GovernedRule) => {
    const list = to.get(policy);
    if (list) list.push(rule);
    else to.set(policy, [rule]);
  };
  const ruleOf = (v: Record<string, unknown>): GovernedRule => ({
    action: v['action'] === 'deny' ? 'deny' : 'allow',
    cidr: str(v['cidr']),
  });
  const gone = new Set(
    changes
      .filter((c) => c.kind === 'ip_policy_rule' && (c.action === 'delete' || c.action === 'replace'))
      .map((c) => c.id),
  );
  for (const r of live.managed.ip_policy_rule ?? []) {
    const policy = isRecord(r['ip_policy']) ? str(r['ip_policy']['id']) : '';
    const rule = ruleOf(r as LiveObject);
    add(before, policy, rule);
    if (!gone.has(str(r['id']))) add(after, policy, rule);
  }
  for (const c of changes) {
    if (c.kind !== 'ip_policy_rule' || c.after === null) continue;
    if (c.action === 'create' || c.action === 'replace')
      add(after, str(c.after['ip_policy']), ruleOf(c.after));
  }
  return { before, after };
}

/** Policies by ID (or `(known after apply: ...)` for those the plan creates): their keys in the files. */
function policyNames(changes: readonly PlanChange[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const c of changes) {
    if (c.kind !== 'ip_policy' || c.address.includes('#')) continue;
    if (c.id !== null) names.set(c.id, c.key);
  }
  const placeholder = (v: unknown) => {
    const address = awaitedAddress(v);
    if (address?.startsWith('ip_policies.')) names.set(String(v), address.slice('ip_policies.'.length));
  };
  for (const c of changes) {
    if (c.after === null) continue;
    placeholder(c.after['ip_policy']);
    for (const v of strings(c.after['ip_policies'])) placeholder(v);
  }
  return names;
}

/**
 * What governs each scope per the files alone, where they determine it: a type whose restriction the
 * files hold, a TCP edge whose module they name, each naming only policies the files hold (by key, or
 * by the ID one of them adopts). Every other scope is `undetermined`, with why: the account decides it.
 */
export function filesGovernance(desired: DesiredState): {
  scopes: ScopeGovernance[];
  undetermined: { scope: string; why: string }[];
} {
  const byRef = new Map<string, GovernedPolicy>();
  for (const p of desired.ip_policies) {
    const rules = desired.ip_policy_rules
      .filter((r) => r.policy === p.key)
      .map((r) => ({ action: r.action, cidr: r.cidr }));
    byRef.set(p.key, { name: p.key, rules });
    if (p.id !== undefined) byRef.set(p.id, { name: p.key, rules });
  }
  const scopes: ScopeGovernance[] = [];
  const undetermined: { scope: string; why: string }[] = [];
  const add = (scope: string, address: string, filter: Filter, refs: readonly string[]) => {
    const unknown = filter === 'enforced' ? refs.filter((r) => !byRef.has(r)) : [];
    if (unknown.length > 0) {
      undetermined.push({
        scope,
        why: `${address} names ${unknown.join(', ')}, whose rules only the account holds`,
      });
      return;
    }
    const g: Governance =
      filter === 'enforced' ? { filter, policies: refs.map((r) => byRef.get(r)!) } : { filter, policies: [] };
    scopes.push({ scope, before: g, after: g });
  };
  for (const type of GUARDED_TYPES) {
    const r = desired.ip_restrictions.find((x) => x.type === type);
    if (r) add(type, `ip_restrictions.${r.key}`, r.enforced ? 'enforced' : 'warn-only', r.ip_policy_ids);
    else
      undetermined.push({ scope: type, why: 'the files hold no restriction of this type; the account may' });
  }
  for (const m of desired.tcp_edge_ip_restrictions) {
    const filter: Filter = m.state === 'absent' ? 'none' : m.enabled ? 'enforced' : 'disabled';
    add(`tcp_edges.${m.edge_id}`, `tcp_edges.${m.edge_id}.ip_restriction`, filter, m.ip_policy_ids);
  }
  return { scopes, undetermined };
}

/** The addresses a scope lets through. */
export function letThrough(g: Governance): AddressSet {
  if (g.filter !== 'enforced') return AddressSet.everyone;
  const of = (action: GovernedRule['action']) =>
    AddressSet.of(g.policies.flatMap((p) => p.rules.filter((r) => r.action === action).map((r) => r.cidr)));
  return of('allow').minus(of('deny'));
}

/**
 * Why one address is let through or not: the rule that decides (the narrowest deny that matches, else
 * the narrowest allow), or what lets everything through.
 */
export type Decision =
  | { let_through: true; by: 'no-restriction' | 'warn-only' | 'disabled' }
  | { let_through: true; by: 'allow'; cidr: string; policy: string }
  | { let_through: false; by: 'deny'; cidr: string; policy: string }
  | { let_through: false; by: 'no-allow' };

export function decide(g: Governance, address: string): Decision {
  if (g.filter === 'none') return { let_through: true, by: 'no-restriction' };
  if (g.filter !== 'enforced') return { let_through: true, by: g.filter };
  const parsed = parseAddress(address);
  const narrowest = (action: GovernedRule['action']) => {
    let best: { cidr: Cidr; text: string; policy: string } | undefined;
    for (const p of g.policies) {
      for (const r of p.rules) {
        if (r.action !== action) continue;
        const cidr = parseCidr(r.cidr);
        if (isCidrProblem(cidr) || !parsed || !cidrContains(cidr, parsed)) continue;
        if (!best || cidr.prefix > best.cidr.prefix) best = { cidr, text: r.cidr, policy: p.name };
      }
    }
    return best;
  };
  const deny = narrowest('deny');
  if (deny) return { let_through: false, by: 'deny', cidr: deny.text, policy: deny.policy };
  const allow = narrowest('allow');
  if (allow) return { let_through: true, by: 'allow', cidr: allow.text, policy: allow.policy };
  return { let_through: false, by: 'no-allow' };
}

/** A decision as people read it: `allow 10.0.0.0/8 of office`, `no allow matches`, `warn-only`. */
export function describeDecision(d: Decision): string {
  switch (d.by) {
    case 'allow':
    case 'deny':
      return `${d.by} ${d.cidr} of ${d.policy}`;
    case 'no-allow':
      return 'no allow matches';
    case 'no-restriction':
      return 'no restriction';
    case 'warn-only':
      return 'warn-only';
    case 'disabled':
      return 'module disabled';
  }
}
