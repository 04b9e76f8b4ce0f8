// An endpoint's traffic policy as reach reads it (SPEC-endpoints.md "Who can reach an endpoint"): the
// `restrict-ips` actions of `on_tcp_connect` and `on_http_request` (never `on_http_response`, which
// runs once the upstream was reached), each with what it lets through and whether it runs for every
// connection or only for some. Pure: the document in, the actions and the bounds out.
//
// An action runs always when its rule has no expressions and nothing before it (an earlier action of
// its rule, an earlier rule, an earlier phase) may end the processing; one after an action that always
// ends it never runs; any other runs only sometimes. Terminating actions end every later phase too.

import { canonicalCidr, parseAddress } from '../net/cidr.js';
import { AddressSet, CidrBlocks } from '../net/cidr-set.js';
import { isPlannedId, type PlannedId } from '../resources/known-after-apply.js';
import { isRecord } from '../resources/values.js';

/** The phases whose `restrict-ips` actions decide reach, in the order they run. */
export const REACH_PHASES = ['on_tcp_connect', 'on_http_request'] as const;
export type ReachPhase = (typeof REACH_PHASES)[number];

/** One `restrict-ips` action of a policy document. */
export interface RestrictAction {
  phase: ReachPhase;
  /** Its rule's position in the phase, from 0, and its rule's name when it has one. */
  rule: number;
  ruleName?: string;
  /** Its position among its rule's actions, from 0. */
  action: number;
  /** `enforce: false` only logs: the action lets everyone through. */
  enforce: boolean;
  /** Its own CIDRs, canonical (a bare address as its /32 or /128). */
  allow: string[];
  deny: string[];
  /** The IP policies it names: live IDs, or known-after-apply references. */
  policies: PlannedId[];
  /** Runs for every connection (false: only for some). */
  always: boolean;
}

/** Actions that always end the processing when they run (`forward-internal` unless `on_error: continue`). */
const ENDS_ALWAYS = new Set(['deny', 'custom-response', 'redirect', 'close-connection', 'forward-internal']);
/**
 * Actions that never end it for an address they let through. `restrict-ips` ends it only for the
 * addresses it shuts out, which are shut out anyway. Every other type may end it (rate limits,
 * authentication, types accord does not know): what follows runs only sometimes.
 */
const NEVER_ENDS = new Set([
  'restrict-ips',
  'add-headers',
  'remove-headers',
  'url-rewrite',
  'log',
  'set-vars',
  'compress-response',
]);

type Ending = 0 | 1 | 2; // never, maybe, always

function endingOf(action: Record<string, unknown>): Ending {
  const type = action['type'];
  if (typeof type !== 'string' || NEVER_ENDS.has(type)) return 0;
  if (!ENDS_ALWAYS.has(type)) return 1;
  const config = action['config'];
  const continues = type === 'forward-internal' && isRecord(config) && config['on_error'] === 'continue';
  return continues ? 1 : 2;
}

/** The `restrict-ips` actions of a document that may run, in the order they run. */
export function restrictActions(document: Readonly<Record<string, unknown>> | undefined): RestrictAction[] {
  const found: RestrictAction[] = [];
  let ended: Ending = 0;
  for (const phase of REACH_PHASES) {
    const rules = document?.[phase];
    if (!Array.isArray(rules)) continue;
    for (const [ri, rule] of rules.entries()) {
      if (ended === 2) return found;
      if (!isRecord(rule) || !Array.isArray(rule['actions'])) continue;
      const expressions = rule['expressions'];
      const conditional = Array.isArray(expressions) && expressions.length > 0;
      const name = typeof rule['name'] === 'string' ? { ruleName: rule['name'] } : {};
      let inRule: Ending = 0;
      for (const [ai, action] of rule['actions'].entries()) {
        if (inRule === 2) break;
        if (!isRecord(action)) continue;
        if (action['type'] === 'restrict-ips') {
          const always = !conditional && ended === 0 && inRule === 0;
          found.push({ phase, rule: ri, ...name, action: ai, always, ...configOf(action['config']) });
        }
        inRule = Math.max(inRule, endingOf(action)) as Ending;
      }
      ended = Math.max(ended, conditional ? Math.min(inRule, 1) : inRule) as Ending;
    }
  }
  return found;
}

function configOf(config: unknown): Pick<RestrictAction, 'enforce' | 'allow' | 'deny' | 'policies'> {
  const c = isRecord(config) ? config : {};
  return {
    enforce: c['enforce'] !== false,
    allow: cidrList(c['allow']),
    deny: cidrList(c['deny']),
    policies: Array.isArray(c['ip_policies']) ? c['ip_policies'].filter(isPlannedId) : [],
  };
}

/** Canonical CIDRs of a list; a bare address is its one-address block; what is neither is left out. */
function cidrList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const out: string[] = [];
  for (const item of value) {
    if (typeof item !== 'string') continue;
    const text = item.trim();
    const cidr = canonicalCidr(text);
    if (cidr !== undefined) out.push(cidr);
    else {
      const address = parseAddress(text);
      if (address) out.push(canonicalCidr(`${text}/${address.version === 4 ? 32 : 128}`) ?? text);
    }
  }
  return out;
}

/** A policy's allow and deny CIDRs as blocks, read once per policy. */
export type PolicyBlocksOf = (policy: PlannedId) => { allow: CidrBlocks; deny: CidrBlocks };

/**
 * What one action lets through: its allows and its policies' minus its denies and theirs. Each side
 * is built from the blocks in one native sort and one pass, not merged set by set: an endpoint names
 * a few policies of a hundred rules each, and a plan reads a hundred endpoints.
 */
export function actionSet(a: RestrictAction, blocksOf: PolicyBlocksOf): AddressSet {
  const allow = [CidrBlocks.of(a.allow)];
  const deny = [CidrBlocks.of(a.deny)];
  for (const policy of a.policies) {
    const blocks = blocksOf(policy);
    allow.push(blocks.allow);
    deny.push(blocks.deny);
  }
  return AddressSet.ofBlocks(allow).minus(AddressSet.ofBlocks(deny));
}

/** An endpoint's reach: what every connection gets (at least) and what some connection gets (at most). */
export interface ReachBounds {
  atLeast: AddressSet;
  atMost: AddressSet;
}

/**
 * The bounds of an endpoint's reach: `account` (what the account-wide `endpoints` restriction lets
 * through) intersected with every enforced action that may run (at least) or with only those that run
 * always (at most). Equal when every enforced action runs always: then the reach is exact.
 */
export function endpointBounds(
  actions: readonly RestrictAction[],
  setOf: (a: RestrictAction) => AddressSet,
  account: AddressSet,
): ReachBounds {
  let atLeast = account;
  let atMost = account;
  for (const a of actions) {
    if (!a.enforce) continue;
    const set = setOf(a);
    // While the bounds are one set (every action so far runs always), an action that runs always
    // narrows both alike: intersected once.
    const same = atLeast === atMost;
    atLeast = atLeast.intersect(set);
    if (a.always) atMost = same ? atLeast : atMost.intersect(set);
  }
  return { atLeast, atMost };
}

/** How messages name an action: `on_http_request rule 2 "admin" action 1`. */
export function actionLabel(a: Pick<RestrictAction, 'phase' | 'rule' | 'ruleName' | 'action'>): string {
  const name = a.ruleName !== undefined ? ` "${a.ruleName}"` : '';
  return `${a.phase} rule ${a.rule + 1}${name} action ${a.action + 1}`;
}
