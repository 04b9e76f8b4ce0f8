// The account's endpoints as the list of endpoints shows them (GET /endpoints, every type: cloud, agent,
// edge), each typed once: its traffic policy text parsed here, and never again. Listed only when a
// plan's reach could change through them (src/plan/planner.ts `matchAccount`); each is a scope of the
// plan's reach (shared/SPEC-endpoints.md "Who can reach an endpoint").

import { parseDocument } from 'yaml';
import { endpointUrl } from '../resources/scope.js';
import { isRecord, type LiveObject, str } from '../resources/values.js';

/** An endpoint as listed: what traffic needs of it. */
export interface LiveEndpoint {
  readonly id: string;
  /** `cloud`, `agent`, `edge`: only cloud endpoints are made, changed or deleted through the API. */
  readonly type: string;
  readonly url: string;
  /** Its traffic policy, parsed; undefined when it has none (an agent endpoint's may be empty). */
  readonly document: Readonly<Record<string, unknown>> | undefined;
  /** Set when its traffic policy text is not a mapping that parses: what was wrong, in the yaml package's words. */
  readonly unreadable?: string;
}

/** A traffic policy text read: its document (undefined for an empty text), or why it cannot be read. */
export function readPolicyText(
  text: string,
): { document: Readonly<Record<string, unknown>> | undefined } | { unreadable: string } {
  if (text.trim() === '') return { document: undefined };
  const parsed = parseDocument(text, { uniqueKeys: true });
  const [first] = parsed.errors;
  if (first) return { unreadable: first.code };
  const value: unknown = parsed.toJS({ maxAliasCount: 100 });
  if (value === null || value === undefined) return { document: undefined };
  return isRecord(value) ? { document: value } : { unreadable: 'NOT_A_MAPPING' };
}

/** A listed endpoint typed. */
export function liveEndpoint(object: LiveObject): LiveEndpoint {
  const read = readPolicyText(str(object['traffic_policy']));
  return {
    id: str(object['id']),
    type: str(object['type']),
    url: endpointUrl(str(object['url'])),
    ...('unreadable' in read ? { document: undefined, unreadable: read.unreadable } : read),
  };
}

/** The listed endpoints typed; `unavailable` when the service has no list of endpoints. */
export function liveEndpoints(
  listed: readonly LiveObject[] | 'unavailable',
): readonly LiveEndpoint[] | 'unavailable' {
  return listed === 'unavailable' ? 'unavailable' : listed.map(liveEndpoint);
}
