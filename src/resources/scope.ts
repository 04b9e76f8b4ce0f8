// A reach scope's name, as the plan's reach, guards and messages say it: a traffic type (`dashboard`),
// a TCP edge (`tcp_edges.<id>`) or an endpoint (its URL, src/traffic/endpoint-scopes.ts). Names are made and read here only, so that no other code learns
// what a scope is from its spelling.

const EDGE = 'tcp_edges.';

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
