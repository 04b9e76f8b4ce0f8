// An in-memory account that executes a plan's requests the way the service would (shared/SPEC.md):
// one IP restriction per type (409), only the documented body fields, PUT/DELETE of modules. It runs
// the changes in an order chosen by `pick`, honouring only what the plan's DAG promises.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DesiredState } from '../../src/config/model.js';
import type { LiveState } from '../../src/plan/state.js';
import type { ManagedKind, Plan, PlannedRequest } from '../../src/plan/types.js';
import { desiredOf, managedDescriptors, moduleDescriptors } from '../../src/resources/index.js';
import type { LiveObject } from '../../src/resources/values.js';
import { ROOT } from '../support/server.js';
import { fakePem } from './fixtures.js';

/** The body fields the service accepts: its request schemas' (schemas/api/<kind>.create.json, ...). */
function bodyFields(kind: ManagedKind, request: 'create' | 'update'): string[] {
  const path = join(ROOT, 'schemas', 'api', `${kind}.${request}.json`);
  // No update schema: the kind cannot be patched at all.
  if (!existsSync(path)) return [];
  return Object.keys((JSON.parse(readFileSync(path, 'utf8')) as { properties: object }).properties);
}
const kinds = managedDescriptors.map((d) => d.kind);
const POST_FIELDS = Object.fromEntries(kinds.map((k) => [k, bodyFields(k, 'create')])) as Record<
  ManagedKind,
  string[]
>;
const PATCH_FIELDS = Object.fromEntries(kinds.map((k) => [k, bodyFields(k, 'update')])) as Record<
  ManagedKind,
  string[]
>;

export class ServiceError extends Error {}

export class FakeAccount {
  readonly objects = Object.fromEntries(managedDescriptors.map((d) => [d.kind, new Map()])) as Record<
    ManagedKind,
    Map<string, LiveObject>
  >;
  readonly modules = new Map<string, LiveObject>();
  private seq = 0;

  constructor(
    private readonly now: Date,
    /** CA PEM seeds the account knows, so it can derive subject and expiry like the service. */
    private readonly caSeeds: Record<string, { cn: string; notAfter: string }> = {},
  ) {}

  add(kind: ManagedKind, obj: LiveObject): void {
    this.objects[kind].set(String(obj['id']), obj);
  }

  live(desired: DesiredState): LiveState {
    const modules: LiveState['modules'] = {};
    for (const d of moduleDescriptors) {
      for (const m of desiredOf(d, desired)) modules[d.address(m)] = this.modules.get(d.path(m)) ?? null;
    }
    return {
      managed: Object.fromEntries(
        managedDescriptors.map((d) => [d.kind, [...this.objects[d.kind].values()]]),
      ) as Record<ManagedKind, LiveObject[]>,
      modules,
    };
  }

  /**
   * Runs every change; `pick(n)` chooses which of n runnable changes goes next, and `afterEach` looks
   * at the account after every request.
   */
  execute(
    plan: Plan,
    pick: (n: number) => number = () => 0,
    afterEach: (r: PlannedRequest) => void = () => {},
  ): PlannedRequest[] {
    const sent: PlannedRequest[] = [];
    const deleted = new Set<string>();
    const hasDelete = new Set(
      plan.changes.filter((c) => c.requests.some((r) => r.method === 'DELETE')).map((c) => c.address),
    );
    const pending = plan.changes.filter((c) => c.requests.length > 0).map((c) => ({ c, next: 0 }));
    while (pending.length > 0) {
      const runnable = pending.filter(({ c, next }) => {
        const r = c.requests[next]!;
        return r.method !== 'POST' || c.depends_on.every((a) => deleted.has(a) || !hasDelete.has(a));
      });
      if (runnable.length === 0)
        throw new Error(`plan deadlocks: ${pending.map((p) => p.c.address).join(', ')}`);
      const item = runnable[pick(runnable.length) % runnable.length]!;
      const r = item.c.requests[item.next]!;
      this.send(r);
      sent.push(r);
      afterEach(r);
      if (r.method === 'DELETE') deleted.add(item.c.address);
      item.next++;
      if (item.next === item.c.requests.length) pending.splice(pending.indexOf(item), 1);
    }
    return sent;
  }

  send(r: PlannedRequest): void {
    const mod = this.moduleAt(r.path);
    if (mod) {
      if (r.method === 'PUT') this.modules.set(r.path, this.moduleObject(mod, r.body ?? {}));
      else if (r.method === 'DELETE') this.modules.delete(r.path);
      else throw new ServiceError(`405 ${r.method} ${r.path}`);
      return;
    }
    const d = managedDescriptors.find(
      (x) => r.path === x.collectionPath || r.path.startsWith(`${x.collectionPath}/`),
    );
    if (!d) throw new ServiceError(`404 ${r.path}`);
    const store = this.objects[d.kind];
    if (r.method === 'POST' && r.path === d.collectionPath) {
      checkFields(r.body ?? {}, POST_FIELDS[d.kind], r);
      const obj = this.create(d.kind, r.body ?? {});
      store.set(String(obj['id']), obj);
      return;
    }
    const id = decodeURIComponent(r.path.slice(d.collectionPath.length + 1));
    const obj = store.get(id);
    if (!obj) {
      if (r.method === 'DELETE') return;
      throw new ServiceError(`404 ${r.path}`);
    }
    if (r.method === 'DELETE') store.delete(id);
    else if (r.method === 'PATCH') {
      checkFields(r.body ?? {}, PATCH_FIELDS[d.kind], r);
      for (const [k, v] of Object.entries(r.body ?? {})) {
        if (k === 'ip_policy_ids') obj['ip_policies'] = refs(v as string[]);
        else obj[k] = v;
      }
    } else throw new ServiceError(`405 ${r.method} ${r.path}`);
  }

  private moduleAt(path: string): 'tcp' | 'ws' | undefined {
    if (/^\/edges\/tcp\/[^/]+\/ip_restriction$/.test(path)) return 'tcp';
    if (/^\/edges\/https\/[^/]+\/routes\/[^/]+\/websocket_tcp_converter$/.test(path)) return 'ws';
    return undefined;
  }

  private moduleObject(mod: 'tcp' | 'ws', body: Record<string, unknown>): LiveObject {
    const enabled = body['enabled'] !== false;
    return mod === 'tcp'
      ? { enabled, ip_policies: refs((body['ip_policy_ids'] as string[]) ?? []) }
      : { enabled };
  }

  private create(kind: ManagedKind, body: Record<string, unknown>): LiveObject {
    this.seq++;
    const base: LiveObject = {
      created_at: new Date(this.now.getTime() + this.seq * 1000).toISOString(),
      ...(body['description'] !== undefined ? { description: body['description'] } : {}),
      ...(body['metadata'] !== undefined ? { metadata: body['metadata'] } : {}),
    };
    // How the service answers a POST, per kind: a kind the fake does not know does not compile.
    const answers: Record<ManagedKind, () => LiveObject> = {
      ip_restriction: () => {
        for (const o of this.objects.ip_restriction.values()) {
          if (o['type'] === body['type'])
            throw new ServiceError(`409 an IP restriction of type ${String(body['type'])} exists`);
        }
        const id = `ipx_m${this.seq}`;
        return {
          id,
          uri: `http://x/ip_restrictions/${id}`,
          ...base,
          type: body['type'],
          enforced: body['enforced'],
          ip_policies: refs(body['ip_policy_ids'] as string[]),
        };
      },
      certificate_authority: () => {
        const pem = String(body['ca_pem']);
        const seed = Object.keys(this.caSeeds).find((s) => fakePem(s).pem === pem);
        if (!seed) throw new ServiceError('400 unknown PEM');
        const id = `ca_m${this.seq}`;
        return {
          id,
          uri: `http://x/certificate_authorities/${id}`,
          ...base,
          ca_pem: `${pem}\n`,
          subject_common_name: this.caSeeds[seed]!.cn,
          not_before: '2026-01-01T00:00:00Z',
          not_after: this.caSeeds[seed]!.notAfter,
          key_usages: [],
          extended_key_usages: [],
        };
      },
      ssh_host_certificate: () => {
        const id = `shcrt_m${this.seq}`;
        return {
          id,
          uri: `http://x/ssh_host_certificates/${id}`,
          ...base,
          public_key: body['public_key'],
          key_type: 'ed25519',
          ssh_certificate_authority_id: body['ssh_certificate_authority_id'],
          principals: body['principals'],
          valid_after: body['valid_after'] ?? this.now.toISOString(),
          valid_until: body['valid_until'] ?? new Date(this.now.getTime() + 365 * 86_400_000).toISOString(),
          certificate: 'ssh-ed25519-cert-v01@openssh.com AAAA',
        };
      },
    };
    return answers[kind]();
  }
}

function refs(ids: string[]): { id: string; uri: string }[] {
  return ids.map((id) => ({ id, uri: `http://x/ip_policies/${id}` }));
}

function checkFields(body: Record<string, unknown>, allowed: string[], r: PlannedRequest): void {
  for (const k of Object.keys(body)) {
    if (!allowed.includes(k)) throw new ServiceError(`400 unknown field ${k} in ${r.method} ${r.path}`);
  }
}
