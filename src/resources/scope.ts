// A reach scope's name, as the plan's reach, guards and messages say it: a traffic type (`dashboard`),
// a TCP edge (`tcp_edges.<id>`) or an endpoint (its URL, src/traffic/endpoint-scopes.ts). Names are made and read here only, so that no other code learns
// what a scope is from its spelling.

const EDGE = 'tcp_edges.';

/** The traffic type whose account-wide restriction every endpoint's reach passes (shared/SPEC-endpoints.md). */
export const ENDPOINTS_TYPE = 'endpoints';

/** The scope of a TCP edge. */
export function edgeScope(edgeId: string): string {
  return `${EDGE}${edgeId}`;
}

/** The TCP edge ID of an edge's scope; undefined for a traffic type (or `all`). */
export function edgeOfScope(scope: string): string | undefined {
  return scope.startsWith(EDGE) ? scope.slice(EDGE.length) : undefined;
}

/** Whether the scope is a TCP edge's (its module is enabled or disabled, not enforced or warn-only). */
export function isEdgeScope(scope: string): boolean {
  return edgeOfScope(scope) !== undefined;
}

/** Whether a scope is an endpoint's (a URL), not a traffic type's or a TCP edge's. */
export function isEndpointScope(scope: string): boolean {
  return scope.includes('://');
}

/** The port each scheme has when a URL gives none (a tcp URL always gives one). */
const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443', tls: '443' };

/**
 * An endpoint's URL as accord compares it everywhere (guards, slots, matching, reach), as the service
 * does: scheme and host lower case, the scheme's default port dropped, a trailing `/` dropped
 * (`https://Shop.example.com:443/` is `https://shop.example.com`). Text that is no `scheme://host[:port]`
 * is returned as it is, for the checks that say what is wrong with it.
 */
export function endpointUrl(text: string): string {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/:?#@\s[\]]+)(?::(\d{1,5}))?\/?$/.exec(text.trim());
  if (!m) return text;
  const scheme = m[1]!.toLowerCase();
  const given = m[3] !== undefined ? Number(m[3]) : undefined;
  const port = given !== undefined && String(given) !== DEFAULT_PORTS[scheme] ? `:${given}` : '';
  return `${scheme}://${m[2]!.toLowerCase()}${port}`;
}
