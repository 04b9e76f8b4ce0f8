// The IDs the service assigns (DESIGN §7): a prefix that names the kind, then 27 letters and digits.
// One table for the client's descriptors (src/resources) and the local service (src/server).

export const ID_PREFIXES = {
  ip_restriction: 'ipx_',
  certificate_authority: 'ca_',
  ssh_host_certificate: 'shcrt_',
  ip_policy: 'ipp_',
  ip_policy_rule: 'ipr_',
  ssh_certificate_authority: 'sshca_',
  tcp_edge: 'edgtcp_',
  https_edge: 'edghts_',
  https_edge_route: 'edghtsrt_',
  endpoint: 'ep_',
  operation: 'op_',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/** Length of the part after the prefix. */
export const ID_LENGTH = 27;

const BODY = new RegExp(`^[0-9A-Za-z]{${ID_LENGTH}}$`);

/** Whether `value` has the form of an ID of `kind`: its prefix and 27 letters and digits. */
export function isIdOf(kind: IdKind, value: string): boolean {
  const prefix = ID_PREFIXES[kind];
  return value.startsWith(prefix) && BODY.test(value.slice(prefix.length));
}
