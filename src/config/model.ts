// The desired model: what a validated accord.yaml normalizes to. The contract between src/config
// (which produces it) and src/plan (which consumes it). Values are normalized for comparison
// (DESIGN §3): sets sorted and deduplicated, timestamps as ISO instants, public keys canonical.

export interface SourceLocation {
  file: string;
  line: number;
  col: number;
}

/** Fields every server-assigned resource shares. */
interface DesiredManagedBase {
  /** The entry's key in the file: [a-z0-9][a-z0-9._-]{0,62}. */
  key: string;
  /** `id:` for adoption, when the entry names one. */
  id?: string;
  /** "" when the file omits it. */
  description: string;
  /** The entry's own `metadata` (any YAML value), stored under `data` in the marker; undefined when unset. */
  data?: unknown;
  /** lifecycle.prevent_destroy */
  protect: boolean;
  loc: SourceLocation;
}

export interface DesiredIpRestriction extends DesiredManagedBase {
  kind: 'ip_restriction';
  type: 'dashboard' | 'api' | 'agent' | 'endpoints';
  enforced: boolean;
  /** Sorted, unique. */
  ip_policy_ids: string[];
}

export interface DesiredCertificateAuthority extends DesiredManagedBase {
  kind: 'certificate_authority';
  /** The PEM as read (from ca_pem or ca_pem_file). */
  ca_pem: string;
  /** SHA-256 hex of the certificate DER: the comparison value. */
  ca_sha256: string;
  subject_common_name: string;
  /** ISO instants. */
  not_before: string;
  not_after: string;
}

export interface DesiredSshHostCertificate extends DesiredManagedBase {
  kind: 'ssh_host_certificate';
  ssh_certificate_authority_id: string;
  /** The key line as written (comment kept), sent on create. */
  public_key: string;
  /** `algorithm base64`, the comparison value. */
  public_key_canonical: string;
  /** Sorted, unique; [] means all hosts. */
  principals: string[];
  /** ISO instants (`new Date(x).toISOString()`), only when the file sets them. */
  valid_after?: string;
  valid_until?: string;
  /** `valid_for` in seconds: create time only. */
  valid_for_seconds?: number;
  /** `renew_before` in seconds. */
  renew_before_seconds?: number;
}

export interface DesiredTcpEdgeIpRestriction {
  kind: 'tcp_edge_ip_restriction';
  edge_id: string;
  /** "absent" deletes the module's configuration. */
  state: 'present' | 'absent';
  /** Default true. */
  enabled: boolean;
  /** Sorted, unique. */
  ip_policy_ids: string[];
  loc: SourceLocation;
}

export interface DesiredWebsocketTcpConverter {
  kind: 'websocket_tcp_converter';
  edge_id: string;
  route_id: string;
  state: 'present' | 'absent';
  /** Default true. */
  enabled: boolean;
  loc: SourceLocation;
}

export type DesiredManaged = DesiredIpRestriction | DesiredCertificateAuthority | DesiredSshHostCertificate;
export type DesiredModule = DesiredTcpEdgeIpRestriction | DesiredWebsocketTcpConverter;
export type DesiredResource = DesiredManaged | DesiredModule;

export interface DesiredState {
  /** Absolute path of the file. */
  file: string;
  /** sha256 hex of the file's bytes. */
  digest: string;
  owner: string;
  /** In file order. */
  ip_restrictions: DesiredIpRestriction[];
  certificate_authorities: DesiredCertificateAuthority[];
  ssh_host_certificates: DesiredSshHostCertificate[];
  tcp_edge_ip_restrictions: DesiredTcpEdgeIpRestriction[];
  websocket_tcp_converters: DesiredWebsocketTcpConverter[];
}
