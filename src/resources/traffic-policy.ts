// A cloud endpoint's traffic policy document (shared/SPEC-endpoints.md "The policy document") as the
// file writes it and the API returns it: read with its `restrict-ips` actions checked (CIDRs as rules'
// are, IP policies as references), normalized so that two texts of one document compare equal, and its
// references to IP policies mapped (src/plan/references.ts resolves them, `accord export` names them).
import { createRequire } from 'node:module';
import { canonicalCidr, formatCidr, isCidrProblem, parseCidr } from '../net/cidr.js';
import { levenshtein } from '../suggest.js';
import { type PlannedId, plannedIdSet } from './known-after-apply.js';
import type { EntryReader, PathSegment } from './types.js';
import { isRecord, stringSet } from './values.js';

/** The phases, in the order they run (and plans show them). */
export const PHASES = ['on_tcp_connect', 'on_http_request', 'on_http_response'] as const;
export const RESTRICT_IPS = 'restrict-ips';

export type PolicyDocument = Readonly<Record<string, unknown>>;

/** Where problems of a document go: the desired-state file's reader, or a document file's. */
export interface PolicyReport {
  report(path: readonly PathSegment[], message: string): void;
  reference(path: readonly PathSegment[], value: string): void;
}

/** Each action of a document that is a mapping, with its path (`[phase, rule, 'actions', action]`), in order. */
function eachAction(
  document: unknown,
  visit: (path: PathSegment[], action: Readonly<Record<string, unknown>>) => void,
): void {
  if (!isRecord(document)) return;
  for (const [phase, rules] of Object.entries(document)) {
    if (!Array.isArray(rules)) continue;
    rules.forEach((rule, r) => {
      const actions = isRecord(rule) ? rule['actions'] : undefined;
      if (!Array.isArray(actions)) return;
      actions.forEach((action, a) => {
        if (isRecord(action)) visit([phase, r, 'actions', a], action);
      });
    });
  }
}

/** Each `restrict-ips` action's config of a document, with its path, in document order. */
export function restrictIpsConfigs(
  document: unknown,
): { path: PathSegment[]; config: Readonly<Record<string, unknown>> }[] {
  const found: { path: PathSegment[]; config: Readonly<Record<string, unknown>> }[] = [];
  eachAction(document, (path, action) => {
    if (action['type'] === RESTRICT_IPS && isRecord(action['config']))
      found.push({ path: [...path, 'config'], config: action['config'] });
  });
  return found;
}

/**
 * Checks what the schema cannot of a document it has checked (values of the wrong shape are skipped):
 * each `restrict-ips` CIDR as a rule's, once per action; its IP policies as references; and that it
 * allows something when it denies (the service refuses a deny with nothing allowed, ERR_NGROK_393).
 */
export function checkPolicyDocument(document: unknown, at: PolicyReport): void {
  checkActionTypes(document, at);
  for (const { path, config } of restrictIpsConfigs(document)) {
    const listed = checkCidrs(config, path, at);
    let allows = listed.allow > 0;
    const policies = config['ip_policies'];
    if (Array.isArray(policies)) {
      policies.forEach((p, i) => {
        if (typeof p !== 'string') return;
        allows = true;
        at.reference([...path, 'ip_policies', i], p);
      });
    }
    if (listed.deny > 0 && !allows) {
      at.report(
        path,
        'denies CIDRs but allows none, which would refuse every connection (the service refuses it, ERR_NGROK_393); add allow CIDRs (0.0.0.0/0 and ::/0 let in everything not denied) or ip_policies',
      );
    }
  }
}

/**
 * The action types production knows (ngrok docs, "Traffic Policy Actions"). A type within two edits of
 * one of them is a typo that production refuses or, worse, a restriction that never runs
 * (`restrict-ip`): an error with the type meant. A type far from all of them stays data.
 */
export const ACTION_TYPES: readonly string[] = [
  'add-headers',
  'ai-gateway',
  'basic-auth',
  'circuit-breaker',
  'close-connection',
  'compress-response',
  'custom-response',
  'deny',
  'forward-internal',
  'http-request',
  'jwt-validation',
  'log',
  'oauth',
  'openid-connect',
  'owasp-crs-request',
  'owasp-crs-response',
  'rate-limit',
  'redirect',
  'remove-headers',
  'request-body-find-replace',
  'response-body-find-replace',
  RESTRICT_IPS,
  'saml',
  'set-vars',
  'sse-find-replace',
  'terminate-tls',
  'url-rewrite',
  'verify-webhook',
];
const KNOWN_TYPES = new Set(ACTION_TYPES);

function checkActionTypes(document: unknown, at: PolicyReport): void {
  eachAction(document, (path, action) => {
    const type = action['type'];
    if (typeof type !== 'string' || KNOWN_TYPES.has(type)) return;
    const meant = nearestType(type);
    if (meant !== undefined)
      at.report([...path, 'type'], `"${type}" is not an action type; did you mean ${meant}?`);
  });
}

/** The known type within two edits of `type`, the nearest; undefined when none is that near. */
function nearestType(type: string): string | undefined {
  let best: { type: string; d: number } | undefined;
  for (const known of ACTION_TYPES) {
    const d = levenshtein(type.toLowerCase(), known);
    if (d <= 2 && (!best || d < best.d)) best = { type: known, d };
  }
  return best?.type;
}

/** A restrict-ips config's CIDRs checked as rules' are, each once; how many of each list are good. */
function checkCidrs(
  config: Readonly<Record<string, unknown>>,
  path: readonly PathSegment[],
  at: PolicyReport,
): { allow: number; deny: number } {
  const seen = new Map<string, string>();
  const good = { allow: 0, deny: 0 };
  for (const list of ['allow', 'deny'] as const) {
    const cidrs = config[list];
    if (!Array.isArray(cidrs)) continue;
    cidrs.forEach((text, i) => {
      if (typeof text !== 'string') return;
      const where = [...path, list, i];
      const parsed = parseCidr(text.trim());
      if (isCidrProblem(parsed)) {
        at.report(where, parsed.problem);
        return;
      }
      const cidr = formatCidr(parsed);
      const first = seen.get(cidr);
      if (first !== undefined) {
        at.report(where, `${cidr} is already in ${first} of this action; list each CIDR once`);
        return;
      }
      seen.set(cidr, `${list}[${i}]`);
      good[list]++;
    });
  }
  return good;
}

/** `checkPolicyDocument`'s report of a document in the desired-state file, at `at` in it. */
export function inlineReport(reader: EntryReader, at: readonly PathSegment[]): PolicyReport {
  return {
    report: (path, message) => reader.report([...at, ...path], message),
    reference: (path, value) => reader.reference([...at, ...path], 'ip_policies', value),
  };
}

/**
 * The document as compared: a copy with each `restrict-ips` action's `allow` and `deny` canonical,
 * sorted and unique, and its `ip_policies` a sorted set. Anything else stays as written.
 */
export function normalizePolicy(document: PolicyDocument): PolicyDocument {
  const copy = structuredClone(document) as Record<string, unknown>;
  for (const { config } of restrictIpsConfigs(copy)) {
    const c = config as Record<string, unknown>;
    for (const list of ['allow', 'deny'] as const) {
      const cidrs = c[list];
      if (Array.isArray(cidrs)) c[list] = stringSet(cidrs.map((t) => canonicalCidr(String(t)) ?? String(t)));
    }
    if (Array.isArray(c['ip_policies'])) c['ip_policies'] = stringSet(c['ip_policies']);
  }
  return copy;
}

/** A copy of the document with each IP policy reference `each(ref)`, each list a sorted set again. */
export function mapPolicyReferences(document: unknown, each: (ref: string) => PlannedId): unknown {
  if (!isRecord(document)) return document;
  const copy = structuredClone(document);
  for (const { config } of restrictIpsConfigs(copy)) {
    const c = config as Record<string, unknown>;
    if (Array.isArray(c['ip_policies']))
      c['ip_policies'] = plannedIdSet(c['ip_policies'].map((p) => each(String(p))));
  }
  return copy;
}

type YamlModule = typeof import('yaml');
let yaml: YamlModule | undefined;

/**
 * A live endpoint's policy text read: JSON (what accord sends) directly, YAML through the yaml package,
 * loaded only then (a run that reads no YAML policy does not pay for it). `document` undefined for an
 * empty text; `unreadable` when it is no mapping.
 */
export function readLivePolicy(
  text: string,
): { document: PolicyDocument | undefined } | { unreadable: true } {
  if (text.trim() === '') return { document: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    yaml ??= createRequire(import.meta.url)('yaml') as YamlModule;
    const parsed = yaml.parseDocument(text, { uniqueKeys: true });
    if (parsed.errors.length > 0) return { unreadable: true };
    value = parsed.toJS({ maxAliasCount: 100 });
  }
  if (value === null || value === undefined) return { document: undefined };
  return isRecord(value) ? { document: value } : { unreadable: true };
}
