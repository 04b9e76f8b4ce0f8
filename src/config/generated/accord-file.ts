// Generated from schemas/accord.schema.json by scripts/gen-types.mjs (npm run gen:types). Do not edit.
// The shape of accord.yaml as written; each kind's descriptor (src/resources/) reads its entries into
// the normalized model, DesiredState (src/config/model.ts).

/**
 * Human-readable description, at most 255 bytes of UTF-8. Omitted means "".
 */
export type Description = string;
/**
 * Your own machine-readable data, any YAML value. Stored as `data` inside accord's ownership marker; the whole marker must fit 4096 bytes of JSON (`accord validate` reports the budget left).
 */
export type Metadata = unknown;
/**
 * IP policies, by key of ip_policies or by ID (ipp_...). A set: order and duplicates do not matter. At least one, at most 100 (the most the service lets one restriction or module name).
 *
 * @minItems 1
 * @maxItems 100
 */
export type IpPolicyRefs = [IpPolicyRef, ...IpPolicyRef[]];
/**
 * An IP policy: the key of an entry of ip_policies, or the ID (ipp_...) of a live policy.
 */
export type IpPolicyRef = string;
/**
 * An IPv4 or IPv6 range in CIDR notation, written with the lowest address of the range (10.1.0.0/16, 2001:db8::/32); a single address is /32 or /128.
 */
export type Cidr = string;

/**
 * The desired state of one account of the Account Management API, kept in git and reconciled by `accord plan` / `accord apply`.
 */
export interface AccordFile {
  /**
   * Format version of this file. Always 1.
   */
  version: 1;
  /**
   * Ownership scope written into every managed resource's metadata marker. Resources with another owner's marker are left alone, so several files can share one account. Default "default".
   */
  owner?: string;
  /**
   * IP policies by key, each with its whole rule set. Restrictions and TCP edge modules name them by key.
   */
  ip_policies?: {
    [k: string]: IpPolicy;
  };
  /**
   * IP restrictions by key. The service allows one IP restriction per type.
   */
  ip_restrictions?: {
    [k: string]: IpRestriction;
  };
  /**
   * Uploaded X.509 CA certificates by key.
   */
  certificate_authorities?: {
    [k: string]: CertificateAuthority;
  };
  /**
   * SSH host certificates, signed by an SSH certificate authority, by key.
   */
  ssh_host_certificates?: {
    [k: string]: SshHostCertificate;
  };
  /**
   * Modules of existing TCP edges, by edge ID (edgtcp_...). Only edges named here are read or changed.
   */
  tcp_edges?: {
    [k: string]: TcpEdge;
  };
  /**
   * Route modules of existing HTTPS edges, by edge ID (edghts_...). Only routes named here are read or changed.
   */
  https_edges?: {
    [k: string]: HttpsEdge;
  };
  /**
   * Cloud endpoints by key, each with its traffic policy. Listed from the account only when the files have this section: an empty section (cloud_endpoints: {}) deletes this owner's endpoints. Agent and edge endpoints are never changed.
   */
  cloud_endpoints?: {
    [k: string]: CloudEndpoint;
  };
  /**
   * What the reach of a scope must satisfy after every apply, as sets of addresses (DESIGN §1 "Guards"; docs/reach.md). Checked by validate where the files determine reach, by plan always (a breach refuses the plan with exit 3; --force never lifts it) and by drift on the live account. Keep guards in their own file, owned in CODEOWNERS.
   */
  guards?: {
    [k: string]: Guard;
  };
}
/**
 * An IP policy and its whole rule set: a rule of the live policy that the file does not list is deleted.
 */
export interface IpPolicy {
  /**
   * The live ID (ipp_...) of an existing IP policy to adopt, with its rules. Optional once adopted.
   */
  id?: string;
  description?: Description;
  metadata?: Metadata;
  lifecycle?: Lifecycle;
  /**
   * Every rule of the policy; order does not matter. A CIDR may appear once per policy, whatever its action, counting the lines of allow_file and deny_file. A policy with no allow rule lets nothing through.
   */
  rules?: IpPolicyRule[];
}
/**
 * Safety settings for this entry.
 */
export interface Lifecycle {
  /**
   * Refuse any plan that would delete or replace this resource, including after the entry is removed from the file, until an apply has cleared the flag. Default false.
   */
  prevent_destroy?: boolean;
}
/**
 * One rule (allow or deny with a CIDR), or a file of CIDRs (allow_file or deny_file).
 */
export interface IpPolicyRule {
  /**
   * Let addresses of this range through (unless a deny rule of the restriction's policies matches).
   */
  allow?: string;
  /**
   * Block addresses of this range, whatever the allow rules say.
   */
  deny?: string;
  /**
   * Path of a file of CIDRs to allow, one per line (blank lines and everything after # ignored), relative to this YAML file and inside its directory; under 10 MB.
   */
  allow_file?: string;
  /**
   * Path of a file of CIDRs to deny, as allow_file.
   */
  deny_file?: string;
  /**
   * Human-readable description, at most 255 bytes of UTF-8. Omitted means "".
   */
  description?: string;
}
/**
 * An IP restriction: binds IP policies to one kind of traffic.
 */
export interface IpRestriction {
  /**
   * The live ID (ipx_...) of an existing IP restriction to adopt. Optional once adopted.
   */
  id?: string;
  /**
   * Which traffic the policies restrict. Cannot be updated: changing it replaces the restriction.
   */
  type: 'dashboard' | 'api' | 'agent' | 'endpoints';
  /**
   * true: traffic from other IPs is blocked; false: it is only reported as a warning.
   */
  enforced: boolean;
  ip_policies: IpPolicyRefs;
  description?: Description;
  metadata?: Metadata;
  lifecycle?: Lifecycle;
}
/**
 * An X.509 CA certificate. Set exactly one of ca_pem and ca_pem_file.
 */
export interface CertificateAuthority {
  /**
   * The live ID (ca_...) of an existing certificate authority to adopt. Optional once adopted.
   */
  id?: string;
  /**
   * The CA certificate in PEM form: exactly one CERTIFICATE block whose basicConstraints say CA:TRUE, and no private key. Cannot be updated: changing it replaces the resource.
   */
  ca_pem?: string;
  /**
   * Path of a PEM file holding the CA certificate, relative to this YAML file and inside its directory. Same rules as ca_pem.
   */
  ca_pem_file?: string;
  description?: Description;
  metadata?: Metadata;
  lifecycle?: Lifecycle;
}
/**
 * An SSH host certificate for one host key. Set exactly one of public_key and public_key_file, and at most one of valid_for and valid_until.
 */
export interface SshHostCertificate {
  /**
   * The live ID (shcrt_...) of an existing SSH host certificate to adopt. Optional once adopted.
   */
  id?: string;
  /**
   * The SSH certificate authority (sshca_...) that signs the certificate. Cannot be updated: changing it replaces the certificate.
   */
  ssh_certificate_authority_id: string;
  /**
   * The host's public key, one OpenSSH authorized_keys line (ssh-ed25519, ecdsa-sha2-nistp256/384/521 or ssh-rsa). The comment is ignored when comparing. Cannot be updated.
   */
  public_key?: string;
  /**
   * Path of a .pub file holding the host's public key, relative to this YAML file and inside its directory.
   */
  public_key_file?: string;
  /**
   * Host names and IP addresses the certificate is valid for. A set. [] means all hosts. Cannot be updated.
   */
  principals: string[];
  /**
   * When the certificate becomes valid (RFC 3339). Default: the time of creation. Compared only when set.
   */
  valid_after?: string;
  /**
   * When the certificate stops being valid (RFC 3339). Default: one year after creation. Compared only when set.
   */
  valid_until?: string;
  /**
   * Lifetime at creation, e.g. 90d: valid_until becomes creation time plus this. Used at create time only. Not with valid_until.
   */
  valid_for?: string;
  /**
   * Replace the certificate when its live expiry is nearer than this, e.g. 30d.
   */
  renew_before?: string;
  description?: Description;
  metadata?: Metadata;
  lifecycle?: Lifecycle;
}
/**
 * Modules of one TCP edge.
 */
export interface TcpEdge {
  /**
   * The edge's IP restriction module, or "absent" to remove its configuration. Leaving the edge out of the file leaves the module alone.
   */
  ip_restriction:
    | 'absent'
    | {
        /**
         * true: the module is applied to traffic; false: disabled. Default true.
         */
        enabled?: boolean;
        ip_policies: IpPolicyRefs;
      };
}
/**
 * Route modules of one HTTPS edge.
 */
export interface HttpsEdge {
  /**
   * Routes of the edge by route ID (edghtsrt_...).
   */
  routes: {
    [k: string]: HttpsEdgeRoute;
  };
}
/**
 * Modules of one HTTPS edge route.
 */
export interface HttpsEdgeRoute {
  /**
   * The route's websocket-to-TCP converter module, or "absent" to remove its configuration.
   */
  websocket_tcp_converter:
    | 'absent'
    | {
        /**
         * true: the module is applied to traffic; false: disabled. Default true.
         */
        enabled?: boolean;
      };
}
/**
 * A cloud endpoint: a URL and the traffic policy that runs on its traffic. Set exactly one of traffic_policy and traffic_policy_file.
 */
export interface CloudEndpoint {
  /**
   * The live ID (ep_...) of an existing cloud endpoint to adopt. Optional once adopted.
   */
  id?: string;
  /**
   * The endpoint's URL (https://app.example.com, tcp://1.tcp.example.com:20001): unique among the account's cloud endpoints. Compared as the service compares it (scheme and host in any case, the default port, a trailing /). Changing it updates the endpoint in place, but for its scheme, which replaces it.
   */
  url: string;
  /**
   * Where the endpoint is reachable: public, internal (its host ends in .internal) or kubernetes. A set. Compared only when set; the service's default is public (internal for a .internal host).
   *
   * @minItems 1
   */
  bindings?: ['public' | 'internal' | 'kubernetes', ...('public' | 'internal' | 'kubernetes')[]];
  /**
   * Whether several endpoints with this URL share its traffic. Default false.
   */
  pooling_enabled?: boolean;
  traffic_policy?: TrafficPolicy;
  /**
   * Path of a YAML or JSON file holding the traffic policy, relative to this YAML file and inside its directory; checked as traffic_policy is, its problems named at its own lines.
   */
  traffic_policy_file?: string;
  description?: Description;
  metadata?: Metadata;
  lifecycle?: Lifecycle;
}
/**
 * The endpoint's traffic policy, written as YAML: its phases, each a list of rules run in order. Compared as a document: key order, quoting, comments and YAML vs JSON are no change.
 */
export interface TrafficPolicy {
  /**
   * Rules run when a connection opens (every protocol).
   */
  on_tcp_connect?: TrafficPolicyRule[];
  /**
   * Rules run on each HTTP request (HTTP and HTTPS endpoints).
   */
  on_http_request?: TrafficPolicyRule[];
  /**
   * Rules run on each HTTP response; they do not change who reaches the endpoint.
   */
  on_http_response?: TrafficPolicyRule[];
}
/**
 * A rule: its actions run, in order, when every expression is true (a rule without expressions always runs).
 */
export interface TrafficPolicyRule {
  /**
   * The rule's name, shown in plans.
   */
  name?: string;
  /**
   * CEL expressions, all of which must be true for the actions to run.
   */
  expressions?: string[];
  /**
   * The actions to run, in order.
   *
   * @minItems 1
   */
  actions: [TrafficPolicyAction, ...TrafficPolicyAction[]];
}
/**
 * An action: its type and its config. A restrict-ips action's config is checked in full; other types are kept as written.
 */
export interface TrafficPolicyAction {
  /**
   * The action's type: restrict-ips, deny, custom-response, forward-internal, ...
   */
  type: string;
  /**
   * The action's configuration.
   */
  config?: {};
}
/**
 * What one scope's reach must satisfy. Every field given must hold; CIDRs of a field and of its _file form count together.
 */
export interface Guard {
  /**
   * true: an enforced IP restriction (a type) or an enabled IP restriction module (a TCP edge) must exist, so that the scope's traffic is filtered at all.
   */
  enforced?: boolean;
  /**
   * Every address of these CIDRs is let through: never shut out (the office, the CI runners).
   */
  always_let_in?: Cidr[];
  /**
   * No address outside these CIDRs is let through. [] lets no address in.
   */
  only_let_in?: Cidr[];
  /**
   * Path of a file of CIDRs for always_let_in, one per line (blank lines and everything after # ignored), relative to this YAML file and inside its directory; under 10 MB.
   */
  always_let_in_file?: string;
  /**
   * Path of a file of CIDRs for only_let_in, as always_let_in_file.
   */
  only_let_in_file?: string;
}
