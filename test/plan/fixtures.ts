// Builders for desired entries and live API objects, for planner tests.

import type { LiveState } from '../../src/account/model.js';
import type { DesiredState } from '../../src/config/model.js';
import type { PlanOptions } from '../../src/plan/options.js';
import type { ManagedKind } from '../../src/plan/types.js';
import type { DesiredCertificateAuthority } from '../../src/resources/certificate_authority.js';
import { managedDescriptors, moduleDescriptors } from '../../src/resources/index.js';
import type { DesiredIpPolicy } from '../../src/resources/ip_policy.js';
import { ipPolicyRuleKey } from '../../src/resources/ip_policy_rule.js';
import type { DesiredIpRestriction } from '../../src/resources/ip_restriction.js';
import { encodeMarker } from '../../src/resources/marker.js';
import type { DesiredSshHostCertificate } from '../../src/resources/ssh_host_certificate.js';
import type { DesiredTcpEdgeIpRestriction } from '../../src/resources/tcp_edge_ip_restriction.js';
import type { LiveObject } from '../../src/resources/values.js';
import type { DesiredWebsocketTcpConverter } from '../../src/resources/websocket_tcp_converter.js';
import { fakePem, REFERENCED, seededPolicies } from '../support/account.js';

export { fakePem } from '../support/account.js';

/** IDs of objects the in-memory account holds from the start, of the service's form. */
export const [IPP_1, IPP_2, IPP_3] = REFERENCED.ipPolicies as [string, string, string];
export const [SSHCA_1, SSHCA_2, SSHCA_3] = REFERENCED.sshCertificateAuthorities as [string, string, string];

/** The seeded IP policies every account and emptyLive() start with, all unmanaged. */
export const SEEDED_POLICIES = 3;

export const OWNER = 'platform';
export const NOW = new Date('2026-11-22T00:00:00Z');
export const OPTIONS: PlanOptions = { apiUrl: 'http://127.0.0.1:1', toolVersion: '0.0.0-test' };
const loc = { file: '/w/accord.yaml', line: 1, col: 1 };

/** A desired state with every registered kind's list empty, but for `parts`. */
export function desiredState(parts: Partial<DesiredState> = {}): DesiredState {
  const lists = [...managedDescriptors.map((d) => d.section), ...moduleDescriptors.map((d) => d.list)].map(
    (name) => [name, []],
  );
  return {
    files: [{ shown: 'accord.yaml', path: '/w/accord.yaml' }],
    digest: 'a'.repeat(64),
    owner: OWNER,
    ...(Object.fromEntries(lists) as Omit<DesiredState, 'files' | 'digest' | 'owner'>),
    ...parts,
  };
}

/**
 * Every registered managed kind with no live object, but for the unmanaged IP policies IPP_1..3 that
 * restrictions name, each with one allow rule (a policy without one lets nothing through).
 */
export function emptyManaged(): Record<ManagedKind, LiveObject[]> {
  const lists = managedDescriptors.map((d): [ManagedKind, LiveObject[]] => [d.kind, []]);
  const managed = Object.fromEntries(lists) as Record<ManagedKind, LiveObject[]>;
  const seeded = seededPolicies();
  managed.ip_policy.push(...seeded.ip_policy);
  managed.ip_policy_rule.push(...seeded.ip_policy_rule);
  return managed;
}

export function emptyLive(): LiveState {
  return { managed: emptyManaged(), modules: {} };
}

/** A live state with these managed objects (the other kinds empty) and no modules. */
export function liveState(parts: Partial<LiveState['managed']> = {}): LiveState {
  return { managed: { ...emptyManaged(), ...parts }, modules: {} };
}

export function ipr(key: string, o: Partial<DesiredIpRestriction> = {}): DesiredIpRestriction {
  return {
    kind: 'ip_restriction',
    key,
    description: '',
    protect: false,
    loc,
    type: 'dashboard',
    enforced: true,
    ip_policy_ids: [IPP_1],
    ...o,
  };
}

/** A PEM-shaped block; the planner only hashes its DER, so the bytes need not be a certificate. */

export function ca(
  key: string,
  seed: string,
  o: Partial<DesiredCertificateAuthority> = {},
): DesiredCertificateAuthority {
  const { pem, sha256 } = fakePem(seed);
  return {
    kind: 'certificate_authority',
    key,
    description: '',
    protect: false,
    loc,
    ca_pem: pem,
    ca_sha256: sha256,
    subject_common_name: `CN ${seed}`,
    not_before: '2026-01-01T00:00:00.000Z',
    not_after: '2030-01-01T00:00:00.000Z',
    ...o,
  };
}

export const KEY_A = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
export const KEY_B = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';

export function cert(key: string, o: Partial<DesiredSshHostCertificate> = {}): DesiredSshHostCertificate {
  return {
    kind: 'ssh_host_certificate',
    key,
    description: '',
    protect: false,
    loc,
    ssh_certificate_authority_id: SSHCA_1,
    public_key: `${KEY_A} host@x`,
    public_key_canonical: KEY_A,
    principals: ['a.example.com'],
    ...o,
  };
}

export function tcpModule(
  edge: string,
  o: Partial<DesiredTcpEdgeIpRestriction> = {},
): DesiredTcpEdgeIpRestriction {
  return {
    kind: 'tcp_edge_ip_restriction',
    edge_id: edge,
    state: 'present',
    enabled: true,
    ip_policy_ids: [IPP_1],
    loc,
    ...o,
  };
}

export function wsModule(edge: string, route: string, o: Partial<DesiredWebsocketTcpConverter> = {}) {
  return {
    kind: 'websocket_tcp_converter',
    edge_id: edge,
    route_id: route,
    state: 'present',
    enabled: true,
    loc,
    ...o,
  } satisfies DesiredWebsocketTcpConverter as DesiredWebsocketTcpConverter;
}

export function marker(key: string, o: { owner?: string; protect?: boolean; data?: unknown } = {}): string {
  return encodeMarker(o.owner ?? OWNER, key, o.protect ?? false, o.data);
}

const refs = (ids: string[]) => ids.map((id) => ({ id, uri: `http://x/ip_policies/${id}` }));

export function liveIpr(id: string, o: Record<string, unknown> = {}, ipPolicies = [IPP_1]) {
  return {
    id,
    uri: `http://x/ip_restrictions/${id}`,
    created_at: '2026-01-01T00:00:00Z',
    type: 'dashboard',
    enforced: true,
    ip_policies: refs(ipPolicies),
    ...o,
  };
}

export function liveCa(id: string, seed: string, o: Record<string, unknown> = {}) {
  return {
    id,
    uri: `http://x/certificate_authorities/${id}`,
    created_at: '2026-01-01T00:00:00Z',
    ca_pem: fakePem(seed).pem,
    subject_common_name: `CN ${seed}`,
    not_before: '2026-01-01T00:00:00Z',
    not_after: '2030-01-01T00:00:00Z',
    key_usages: [],
    extended_key_usages: [],
    ...o,
  };
}

export function liveCert(id: string, o: Record<string, unknown> = {}) {
  return {
    id,
    uri: `http://x/ssh_host_certificates/${id}`,
    created_at: '2026-01-01T00:00:00Z',
    public_key: `${KEY_A} other-comment`,
    key_type: 'ed25519',
    ssh_certificate_authority_id: SSHCA_1,
    principals: ['a.example.com'],
    valid_after: '2026-01-01T00:00:00Z',
    valid_until: '2027-11-01T00:00:00Z',
    certificate: 'ssh-ed25519-cert-v01@openssh.com AAAA',
    ...o,
  };
}

/** A rule as tests write it: `['allow', '203.0.113.0/24']`, with an optional description. */
export type RuleSpec = [action: 'allow' | 'deny', cidr: string, description?: string];

/** An entry of ip_policies with its rules (CIDRs as written must already be canonical). */
export function policy(key: string, rules: RuleSpec[], o: Partial<DesiredIpPolicy> = {}): DesiredIpPolicy {
  return {
    kind: 'ip_policy',
    key,
    description: '',
    protect: false,
    loc,
    rules: rules.map(([action, cidr, description = '']) => ({
      kind: 'ip_policy_rule',
      key: ipPolicyRuleKey(key, cidr),
      policy: key,
      action,
      cidr,
      description,
      protect: false,
      loc,
    })),
    ...o,
  };
}

/** The desired state's two lists for these policies: the policies and, derived, their rules. */
export function withPolicies(...policies: DesiredIpPolicy[]): Partial<DesiredState> {
  return { ip_policies: policies, ip_policy_rules: policies.flatMap((p) => p.rules) };
}

export function livePolicy(id: string, o: Record<string, unknown> = {}): LiveObject {
  return { id, uri: `http://x/ip_policies/${id}`, created_at: '2026-01-01T00:00:00Z', description: '', ...o };
}

export function liveRule(
  id: string,
  policyId: string,
  [action, cidr, description = '']: RuleSpec,
  o: Record<string, unknown> = {},
): LiveObject {
  return {
    id,
    uri: `http://x/ip_policy_rules/${id}`,
    created_at: '2026-01-01T00:00:00Z',
    description,
    cidr,
    action,
    ip_policy: { id: policyId, uri: `http://x/ip_policies/${policyId}` },
    ...o,
  };
}
