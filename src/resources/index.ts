// Every resource kind accord manages. Adding a kind is adding its descriptor file and one line here.
import type { ManagedKind, ModuleKind, ResourceKind } from '../plan/types.js';
import { certificateAuthority } from './certificate_authority.js';
import { ipRestriction } from './ip_restriction.js';
import { sshHostCertificate } from './ssh_host_certificate.js';
import { tcpEdgeIpRestriction } from './tcp_edge_ip_restriction.js';
import type { Descriptor, ManagedDescriptor, ModuleDescriptor } from './types.js';
import { websocketTcpConverter } from './websocket_tcp_converter.js';

export type {
  Descriptor,
  FieldSpec,
  ManagedDescriptor,
  ModuleDescriptor,
  ModuleIdentity,
  PlanValues,
} from './types.js';
export { isManaged } from './types.js';

/** In plan order. */
export const managedDescriptors: readonly ManagedDescriptor[] = [
  ipRestriction as ManagedDescriptor,
  certificateAuthority as ManagedDescriptor,
  sshHostCertificate as ManagedDescriptor,
];

export const moduleDescriptors: readonly ModuleDescriptor[] = [
  tcpEdgeIpRestriction as ModuleDescriptor,
  websocketTcpConverter as ModuleDescriptor,
];

export function descriptorFor(kind: ManagedKind): ManagedDescriptor;
export function descriptorFor(kind: ModuleKind): ModuleDescriptor;
export function descriptorFor(kind: ResourceKind): Descriptor;
export function descriptorFor(kind: ResourceKind): Descriptor {
  const found = [...managedDescriptors, ...moduleDescriptors].find((d) => d.kind === kind);
  if (!found) throw new Error(`no descriptor for resource kind ${kind}`);
  return found;
}
