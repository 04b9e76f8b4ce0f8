// Guards as the desired state holds them (DESIGN §1 "Guards"): what a scope's reach must satisfy, with
// CIDRs in canonical form. Read by src/config/guards.ts, checked by src/traffic/guards.ts.

import type { SourceLocation } from '../resources/types.js';

/**
 * The scope that stands for every other: the four traffic types, every TCP edge the files name, and
 * every listed endpoint the files manage or whose traffic policy has a `restrict-ips`.
 */
export const ALL_SCOPES = 'all';

export interface DesiredGuard {
  /**
   * As written: `dashboard`, `tcp_edges.edgtcp_x`, an endpoint by its address (`cloud_endpoints.KEY`)
   * or its URL, or `all`.
   */
  scope: string;
  /**
   * true: an enforced restriction (a type) or an enabled module (a TCP edge) must exist; for an
   * endpoint, an enforced `restrict-ips` that runs for every connection.
   */
  enforced: boolean;
  /** Canonical CIDRs every address of which must be let through; [] when the guard says nothing. */
  always_let_in: string[];
  /** Canonical CIDRs outside which no address may be let through; undefined when the guard says nothing. */
  only_let_in?: string[];
  /** Where its key is. */
  loc: SourceLocation;
}
