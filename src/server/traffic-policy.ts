// An endpoint's traffic policy document (shared/SPEC-endpoints.md "The policy document"): YAML or JSON
// text, read with the yaml package (which reads both), checked as a whole before it is saved, and then
// kept as the text that was sent. Codes are the production service's: 2236 when the text does not
// parse, 18002 for a structure that is not a policy document's, 2230 for a phase the endpoint's
// protocol does not run, the rules' CIDR codes (cidrs.ts) inside `restrict-ips`, 2216 for an IP policy
// the account does not have, 393 for denying with nothing allowed.
import { parseDocument } from 'yaml';
import { isIdOf } from '../ids.js';
import { readCidr } from './cidrs.js';
import type { ServiceContext } from './collections.js';
import { ServiceError } from './errors.js';

export const PHASES = ['on_tcp_connect', 'on_http_request', 'on_http_response'];
/** The phases a TCP or TLS endpoint runs; HTTP and HTTPS endpoints run all three. */
const TCP_PHASES = ['on_tcp_connect'];
const RULE_KEYS = ['name', 'expressions', 'actions'];
const ACTION_KEYS = ['type', 'config'];
const RESTRICT_IPS_KEYS = ['enforce', 'allow', 'deny', 'ip_policies'];

/** One `restrict-ips` action of a document: where it is, and its lists. */
export interface RestrictIps {
  where: string;
  allow: string[];
  deny: string[];
  ipPolicies: string[];
}

type Mapping = Record<string, unknown>;

const isMapping = (value: unknown): value is Mapping =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const FIELD = 'field "traffic_policy"';

function invalid(where: string, what: string): ServiceError {
  return new ServiceError(
    'ERR_NGROK_18002',
    `${FIELD}${where ? `: ${where}` : ''} ${what}; see "Traffic policies" in docs/service.md`,
  );
}

/** The document the text holds (null for an empty text); 2236 when it is neither YAML nor JSON. */
export function parsePolicyText(text: string): unknown {
  const document = parseDocument(text, { uniqueKeys: true });
  const [first] = document.errors;
  if (first) {
    const what = (first.message.split('\n')[0] ?? '').replace(/:$/, '');
    throw new ServiceError(
      'ERR_NGROK_2236',
      `${FIELD} cannot be read as YAML or JSON (${what.slice(0, 200)}); send one policy document`,
    );
  }
  return document.toJS({ maxAliasCount: 100 });
}

/**
 * Checks the document's structure for an endpoint of protocol `proto`; returns its `restrict-ips`
 * actions. Action types other than `restrict-ips` are taken as they are.
 */
export function readPolicyDocument(text: string, proto: string): RestrictIps[] {
  const doc = parsePolicyText(text);
  if (doc === null || doc === undefined) {
    throw invalid(
      '',
      'is empty: give a mapping of phases (on_tcp_connect, on_http_request, on_http_response)',
    );
  }
  if (!isMapping(doc)) {
    throw invalid('', 'must be a mapping of phases (on_tcp_connect, on_http_request, on_http_response)');
  }
  const found: RestrictIps[] = [];
  for (const [phase, rules] of Object.entries(doc)) {
    if (!PHASES.includes(phase)) {
      throw invalid('', `has an unknown phase "${phase.slice(0, 64)}"; the phases are ${PHASES.join(', ')}`);
    }
    if ((proto === 'tcp' || proto === 'tls') && !TCP_PHASES.includes(phase)) {
      throw new ServiceError(
        'ERR_NGROK_2230',
        `${FIELD}: phase "${phase}" does not run on a ${proto} endpoint, which has only on_tcp_connect; ` +
          'move its rules there or remove them',
      );
    }
    if (!Array.isArray(rules)) throw invalid(phase, 'must be a list of rules');
    rules.forEach((rule, i) => {
      found.push(...readRule(rule, `${phase}[${i}]`));
    });
  }
  return found;
}

function readRule(rule: unknown, where: string): RestrictIps[] {
  if (!isMapping(rule)) throw invalid(where, 'must be a rule: a mapping of name, expressions and actions');
  checkKeys(rule, RULE_KEYS, where, 'a rule');
  if (rule.name !== undefined && typeof rule.name !== 'string')
    throw invalid(`${where}.name`, 'must be a string');
  const { expressions, actions } = rule;
  if (expressions !== undefined) {
    if (!Array.isArray(expressions)) throw invalid(`${where}.expressions`, 'must be a list of strings');
    expressions.forEach((e, i) => {
      if (typeof e !== 'string')
        throw invalid(`${where}.expressions[${i}]`, 'must be a string (a CEL expression)');
    });
  }
  if (actions === undefined) throw invalid(where, 'has no "actions"; a rule runs at least one action');
  if (!Array.isArray(actions) || actions.length === 0) {
    throw invalid(`${where}.actions`, 'must be a list of at least one action');
  }
  return actions.flatMap((action, i) => readAction(action, `${where}.actions[${i}]`));
}

function readAction(action: unknown, where: string): RestrictIps[] {
  if (!isMapping(action)) throw invalid(where, 'must be an action: a mapping of type and config');
  checkKeys(action, ACTION_KEYS, where, 'an action');
  if (typeof action.type !== 'string' || action.type === '') {
    throw invalid(`${where}.type`, 'must be the name of the action (such as restrict-ips)');
  }
  if (action.config !== undefined && !isMapping(action.config)) {
    throw invalid(`${where}.config`, 'must be a mapping');
  }
  if (action.type !== 'restrict-ips') return [];
  return [readRestrictIps(action.config ?? {}, `${where}.config`)];
}

function readRestrictIps(config: Mapping, where: string): RestrictIps {
  checkKeys(config, RESTRICT_IPS_KEYS, where, 'a restrict-ips config');
  if (config.enforce !== undefined && typeof config.enforce !== 'boolean') {
    throw invalid(`${where}.enforce`, 'must be true or false');
  }
  const list = (field: string): string[] => {
    const value = config[field] ?? [];
    if (!Array.isArray(value)) throw invalid(`${where}.${field}`, 'must be a list of strings');
    value.forEach((item, i) => {
      if (typeof item !== 'string') throw invalid(`${where}.${field}[${i}]`, 'must be a string');
    });
    return value as string[];
  };
  const allow = list('allow');
  const deny = list('deny');
  for (const [field, cidrs] of [
    ['allow', allow],
    ['deny', deny],
  ] as const) {
    cidrs.forEach((cidr, i) => {
      readCidr(cidr, `${FIELD}: ${where}.${field}[${i}]`);
    });
  }
  return { where, allow, deny, ipPolicies: list('ip_policies') };
}

function checkKeys(value: Mapping, known: string[], where: string, what: string): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      throw invalid(where, `has an unknown field "${key.slice(0, 64)}"; ${what} has ${known.join(', ')}`);
    }
  }
}

/**
 * Checks a document for an endpoint of protocol `proto` against the account: its structure, the IP
 * policies its `restrict-ips` actions name (2216), and that none denies with nothing allowed (393).
 */
export function checkPolicyDocument(ctx: ServiceContext, text: string, proto: string): void {
  for (const action of readPolicyDocument(text, proto)) {
    let allows = action.allow.length > 0;
    let denies = action.deny.length > 0;
    action.ipPolicies.forEach((id, i) => {
      if (!isIdOf('ip_policy', id) || !ctx.store.get('ip_policy', id)) {
        throw new ServiceError(
          'ERR_NGROK_2216',
          `${FIELD}: ${action.where}.ip_policies[${i}] names IP policy "${id.slice(0, 64)}", which the ` +
            'account does not have; create it first, or name one it has',
        );
      }
      for (const json of ctx.store.children('ip_policy_rule', id)) {
        if ((JSON.parse(json) as { action: string }).action === 'allow') allows = true;
        else denies = true;
      }
    });
    if (denies && !allows) {
      throw new ServiceError(
        'ERR_NGROK_393',
        `${FIELD}: ${action.where} denies CIDRs but allows none, which would refuse every connection; ` +
          'give at least one CIDR to allow (0.0.0.0/0 and ::/0 let in everything the deny lists do not name)',
      );
    }
  }
}

/** The IP policy IDs a stored document's `restrict-ips` actions name (none when it does not read). */
export function policiesNamedBy(text: string): string[] {
  let doc: unknown;
  try {
    doc = parsePolicyText(text);
  } catch {
    return [];
  }
  if (!isMapping(doc)) return [];
  const named: string[] = [];
  for (const rules of Object.values(doc)) {
    for (const rule of Array.isArray(rules) ? rules : []) {
      const actions = isMapping(rule) && Array.isArray(rule.actions) ? rule.actions : [];
      for (const action of actions) {
        if (!isMapping(action) || action.type !== 'restrict-ips' || !isMapping(action.config)) continue;
        const ids = action.config.ip_policies;
        if (Array.isArray(ids)) named.push(...ids.filter((id): id is string => typeof id === 'string'));
      }
    }
  }
  return named;
}

/** The endpoints whose traffic policy names the IP policy, by ID, with their URLs. */
export function endpointsNaming(ctx: ServiceContext, policyId: string): { id: string; url: string }[] {
  const naming: { id: string; url: string }[] = [];
  for (const json of ctx.store.all('endpoint')) {
    if (!json.includes(policyId)) continue;
    const endpoint = JSON.parse(json) as { id: string; url: string; traffic_policy: string };
    if (policiesNamedBy(endpoint.traffic_policy).includes(policyId)) {
      naming.push({ id: endpoint.id, url: endpoint.url });
    }
  }
  return naming.sort((a, b) => a.id.localeCompare(b.id));
}
