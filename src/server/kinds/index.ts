// The service's registry: every kind `accord serve` serves. A kind is its file in this directory and
// its line here (docs/adding-a-kind.md); the routes, the seed file's sections and the tests' in-memory
// account derive from these lists.
import type { AnyCollection } from '../collections.js';
import type { ModuleKind } from '../modules.js';
import { certificateAuthorities } from './certificate_authority.js';
import { endpoints } from './endpoint.js';
import { httpsEdges } from './https_edge.js';
import { httpsEdgeRoutes } from './https_edge_route.js';
import { ipPolicies } from './ip_policy.js';
import { ipPolicyRules } from './ip_policy_rule.js';
import { ipRestrictions } from './ip_restriction.js';
import { sshCertificateAuthorities } from './ssh_certificate_authority.js';
import { sshHostCertificates } from './ssh_host_certificate.js';
import { tcpEdges } from './tcp_edge.js';
import { tcpEdgeIpRestriction } from './tcp_edge_ip_restriction.js';
import { websocketTcpConverter } from './websocket_tcp_converter.js';

/** The seed file's sections are those of the seedable kinds, in this order. */
export const COLLECTIONS: readonly AnyCollection[] = [
  ipRestrictions,
  certificateAuthorities,
  sshHostCertificates,
  ipPolicies,
  ipPolicyRules,
  sshCertificateAuthorities,
  tcpEdges,
  httpsEdges,
  httpsEdgeRoutes,
  endpoints,
];

export const MODULES: readonly ModuleKind[] = [tcpEdgeIpRestriction, websocketTcpConverter];
