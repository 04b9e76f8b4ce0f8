// The registry: every resource kind accord manages. Adding a kind is adding its descriptor file and
// one line here (docs/adding-a-kind.md); the kind types, the desired state's sections and every list
// of kinds derive from these two lists (and `registerKind` adds to them at run time).
import { certificateAuthority } from './certificate_authority.js';
import { cloudEndpoint } from './cloud_endpoint.js';
import { ipPolicy } from './ip_policy.js';
import { ipPolicyRule } from './ip_policy_rule.js';
import { ipRestriction } from './ip_restriction.js';
import { sshHostCertificate } from './ssh_host_certificate.js';
import { tcpEdgeIpRestriction } from './tcp_edge_ip_restriction.js';
import type { ManagedDescriptorOf, ManagedEntry, ModuleDescriptorOf, ModuleEntry } from './types.js';
import { websocketTcpConverter } from './websocket_tcp_converter.js';

/** In plan order. */
const MANAGED = [
  ipPolicy,
  ipPolicyRule,
  ipRestriction,
  certificateAuthority,
  sshHostCertificate,
  cloudEndpoint,
] as const;
const MODULES = [tcpEdgeIpRestriction, websocketTcpConverter] as const;

type Managed = (typeof MANAGED)[number];
type Module = (typeof MODULES)[number];
type EntryOf<T> = T extends { normalizeDesired(desired: infer D): unknown } ? D : never;

/** An entry of a kind with server-assigned IDs, matched by the ownership marker in `metadata`. */
export type DesiredManaged = EntryOf<Managed>;
/** An edge module entry: natural identity (edge ID, or edge ID + route ID), no metadata. */
export type DesiredModule = EntryOf<Module>;
export type DesiredResource = DesiredManaged | DesiredModule;

export type ManagedKind = DesiredManaged['kind'];
export type ModuleKind = DesiredModule['kind'];
export type ResourceKind = ManagedKind | ModuleKind;
/** A managed kind's section of the file, DesiredState field and address prefix. */
export type ManagedSection = Managed['section'];

/** A registered descriptor of a managed kind, any of them. */
export type ManagedDescriptor = ManagedDescriptorOf<DesiredManaged, ManagedSection>;
/** A registered descriptor of an edge module kind, any of them. */
export type ModuleDescriptor = ModuleDescriptorOf<DesiredModule, Module['list']>;
export type Descriptor = ManagedDescriptor | ModuleDescriptor;

/**
 * Each kind's entries in file order under its section (a module kind: its `list`): the part of the
 * desired state (src/config/model.ts) that the registry decides.
 */
export type DesiredSections = { [D in Managed as D['section']]: EntryOf<D>[] } & {
  [D in Module as D['list']]: EntryOf<D>[];
};

// Mutable only through registerKind, which puts back what it changed.
const managedList: ManagedDescriptor[] = [...MANAGED];
const moduleList: ModuleDescriptor[] = [...MODULES];

/** In plan order. */
export const managedDescriptors: readonly ManagedDescriptor[] = managedList;
export const moduleDescriptors: readonly ModuleDescriptor[] = moduleList;

export function isManaged(d: Descriptor): d is ManagedDescriptor {
  return 'collectionPath' in d;
}

/** The entries of one kind in a desired state, in file order. */
export function desiredOf(descriptor: ManagedDescriptor, state: DesiredSections): readonly DesiredManaged[];
export function desiredOf(descriptor: ModuleDescriptor, state: DesiredSections): readonly DesiredModule[];
export function desiredOf(descriptor: Descriptor, state: DesiredSections): readonly DesiredResource[] {
  const sections = state as Readonly<Record<string, readonly DesiredResource[] | undefined>>;
  return sections[isManaged(descriptor) ? descriptor.section : descriptor.list] ?? [];
}

/** Where an entry's change is: `ip_restrictions.office`, a nested kind's under its parent's section. */
export function entryAddress(descriptor: ManagedDescriptor, key: string): string {
  return `${descriptor.within?.section ?? descriptor.section}.${key}`;
}

export function descriptorFor(kind: ManagedKind): ManagedDescriptor;
export function descriptorFor(kind: ModuleKind): ModuleDescriptor;
export function descriptorFor(kind: ResourceKind): Descriptor;
export function descriptorFor(kind: ResourceKind): Descriptor {
  const found = BY_KIND.get(kind);
  if (!found) throw new Error(`no descriptor for resource kind ${kind}`);
  return found;
}

/** A change names its kind (the plan is JSON): its descriptor is looked up here, not searched for. */
const BY_KIND = new Map<string, Descriptor>(
  [...managedDescriptors, ...moduleDescriptors].map((d) => [d.kind, d]),
);

/** Counts the changes of the registry (`registerKind`, and undoing one), for `fromRegistry`. */
let registryVersion = 0;

/**
 * `derive`, of the registry as it is when called: what a module derives from the registry once (the
 * plan's order of kinds, the module kinds) is derived again only after a kind was registered or taken
 * out, so that it sees every kind and costs a comparison of two numbers otherwise.
 */
export function fromRegistry<T>(derive: () => T): () => T {
  let version = -1;
  let value: T;
  return () => {
    if (version !== registryVersion) {
      value = derive();
      version = registryVersion;
    }
    return value;
  };
}

/**
 * Adds a kind to the registry, last of its list (managed or module): for a kind made of a shape at
 * run time, such as a test's. The loader (given its section in the desired state; the file's schema
 * knows only the listed kinds), the reader, planner, applier and exporter handle it as a listed kind,
 * and every list derived from the registry (`fromRegistry`) sees it: the plan orders its changes
 * after those of the listed kinds of its list. Returns what takes it out again. Throws when its kind,
 * or its section (a module kind: its list), is registered already.
 */
export function registerKind<D extends ManagedEntry, S extends string>(
  descriptor: ManagedDescriptorOf<D, S>,
): () => void;
export function registerKind<D extends ModuleEntry, L extends string>(
  descriptor: ModuleDescriptorOf<D, L>,
): () => void;
export function registerKind(descriptor: Descriptor): () => void {
  const place = (d: Descriptor) => (isManaged(d) ? d.section : d.list);
  const all = [...managedList, ...moduleList];
  if (all.some((d) => d.kind === descriptor.kind || place(d) === place(descriptor))) {
    throw new Error(`kind ${descriptor.kind} (${place(descriptor)}) is registered already`);
  }
  const list: Descriptor[] = isManaged(descriptor) ? managedList : moduleList;
  list.push(descriptor);
  BY_KIND.set(descriptor.kind, descriptor);
  registryVersion++;
  return () => {
    const at = list.indexOf(descriptor);
    if (at >= 0) list.splice(at, 1);
    BY_KIND.delete(descriptor.kind);
    registryVersion++;
  };
}

export type {
  DiffLine,
  DocumentAt,
  EndpointPolicy,
  FieldSpec,
  ManagedEntry,
  ModuleEntry,
  ModuleIdentity,
  Nested,
  Nouns,
  PlanValues,
  Restriction,
  SharedFields,
  SourceLocation,
  TrafficRole,
  TrafficRule,
  Values,
} from './types.js';
