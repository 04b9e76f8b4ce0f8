// One in-memory account of the service (shared/SPEC.md) for tests that need no HTTP: request bodies
// are checked by the request schemas the local service compiles (schemas/api/*.json, its byte limits
// too), one IP restriction per type (409), PUT and DELETE of edge modules, and errors answered as the
// client reports them (ApiError with the service's status and error_code). It runs a plan's requests
// synchronously, in any order the plan's DAG allows (`execute`), or answers as an API client
// (`client()`) so that the live reader and the applier run against it. Modelled on changesets'
// in-memory builder (assemble-release-plan/src/test-utils.ts): no I/O, state to inspect.
import { createHash } from 'node:crypto';
import { ApiError } from '../../src/api/errors.js';
import type { ApplyClient } from '../../src/apply/types.js';
import type { DesiredState } from '../../src/config/model.js';
import type { LiveSource } from '../../src/plan/live.js';
import { fillKnownAfterApply } from '../../src/plan/references.js';
import type { LiveState } from '../../src/plan/state.js';
import type { ManagedKind, Plan, PlannedRequest } from '../../src/plan/types.js';
import { desiredOf, managedDescriptors, moduleDescriptors } from '../../src/resources/index.js';
import type { LiveObject } from '../../src/resources/values.js';
import { type ErrorCode, ServiceError } from '../../src/server/errors.js';
import { type BodyValidator, compileBodyValidators } from '../../src/server/validation.js';

/** The service's request validators, by schema name (`ip_restriction.create`, ...). */
const BODIES: Map<string, BodyValidator> = compileBodyValidators();

/** A valid-looking ID of the service's form: `<prefix>_` and 27 letters or digits. */
export function serviceId(prefix: string, n: number | string): string {
  return `${prefix}_${String(n).padStart(27, '0')}`;
}

/**
 * A PEM-shaped certificate that is no real certificate: its "DER" is a hash of `seed`. The account
 * knows it from the `caSeeds` it is given, as the service knows a real one by parsing it.
 */
export function fakePem(seed: string): { pem: string; sha256: string } {
  const der = createHash('sha512').update(seed).digest();
  return {
    pem: `-----BEGIN CERTIFICATE-----\n${der.toString('base64')}\n-----END CERTIFICATE-----\n`,
    sha256: createHash('sha256').update(der).digest('hex'),
  };
}

/**
 * The IP policies every account starts with (IDs `serviceId('ipp', 1..3)`), unmanaged, each with one
 * allow rule: what restrictions in tests name by ID.
 */
export function seededPolicies(): { ip_policy: LiveObject[]; ip_policy_rule: LiveObject[] } {
  const ids = [1, 2, 3].map((n) => serviceId('ipp', n));
  return {
    ip_policy: ids.map((id) => ({ id, created_at: '2026-01-01T00:00:00Z', description: '', metadata: '' })),
    ip_policy_rule: ids.map((id, i) => ({
      id: serviceId('ipr', i + 1),
      created_at: '2026-01-01T00:00:00Z',
      description: '',
      metadata: '',
      cidr: `198.51.100.${i * 8}/29`,
      action: 'allow',
      ip_policy: { id, uri: `http://x/ip_policies/${id}` },
    })),
  };
}

type ModuleKind = 'tcp_edge_ip_restriction' | 'websocket_tcp_converter';
const MODULE_PATHS: [RegExp, ModuleKind][] = [
  [/^\/edges\/tcp\/[^/]+\/ip_restriction$/, 'tcp_edge_ip_restriction'],
  [/^\/edges\/https\/[^/]+\/routes\/[^/]+\/websocket_tcp_converter$/, 'websocket_tcp_converter'],
];

export class FakeAccount {
  readonly objects = Object.fromEntries(managedDescriptors.map((d) => [d.kind, new Map()])) as Record<
    ManagedKind,
    Map<string, LiveObject>
  >;
  /** Configured edge modules by path. */
  readonly modules = new Map<string, LiveObject>();
  private seq = 0;

  constructor(
    private readonly now: Date,
    /** The fakePem seeds the account can read, with the subject and expiry the service would find. */
    private readonly caSeeds: Record<string, { cn: string; notAfter: string }> = {},
  ) {
    const seeded = seededPolicies();
    for (const o of seeded.ip_policy) this.add('ip_policy', o);
    for (const o of seeded.ip_policy_rule) this.add('ip_policy_rule', o);
  }

  /** Puts an object in the account as it is, as if made outside accord. */
  add(kind: ManagedKind, obj: LiveObject): void {
    this.objects[kind].set(String(obj['id']), obj);
  }

  /** What the live reader would read for `desired`. */
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
   * Runs every change; `pick(n)` chooses which of n runnable requests goes next (a change starts once
   * every change it depends on is done; its requests go in order, interleaved with others'), and
   * `afterEach` looks at the account after every request. An ID known only after apply is filled in
   * from the answer of the change that made it, as the applier does.
   */
  execute(
    plan: Plan,
    pick: (n: number) => number = () => 0,
    afterEach: (r: PlannedRequest) => void = () => {},
  ): PlannedRequest[] {
    const sent: PlannedRequest[] = [];
    const done = new Set<string>();
    const made = new Map<string, string>();
    const acting = new Set(plan.changes.filter((c) => c.requests.length > 0).map((c) => c.address));
    const pending = plan.changes.filter((c) => c.requests.length > 0).map((c) => ({ c, next: 0 }));
    while (pending.length > 0) {
      const runnable = pending.filter(
        ({ c, next }) => next > 0 || c.depends_on.every((a) => done.has(a) || !acting.has(a)),
      );
      if (runnable.length === 0)
        throw new Error(`plan deadlocks: ${pending.map((p) => p.c.address).join(', ')}`);
      const item = runnable[pick(runnable.length) % runnable.length]!;
      const r = fillKnownAfterApply(item.c.requests[item.next]!, (a) => made.get(a)) as PlannedRequest;
      const answer = this.send(r);
      if (r.method === 'POST' && answer) made.set(item.c.address, String(answer['id']));
      sent.push(r);
      afterEach(r);
      item.next++;
      if (item.next === item.c.requests.length) {
        done.add(item.c.address);
        pending.splice(pending.indexOf(item), 1);
      }
    }
    return sent;
  }

  /** Answers one request as the service would: the object made or changed, or an ApiError. */
  send(r: PlannedRequest): LiveObject | undefined {
    try {
      return this.#answer(r);
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      throw new ApiError({
        status: err.status,
        method: r.method,
        path: r.path,
        errorCode: err.code,
        msg: err.message,
      });
    }
  }

  /** The account through the API client's eyes (ApiClient's answers), for the live reader and the applier. */
  client(): ApplyClient & LiveSource {
    const send = async (method: PlannedRequest['method'], path: string, body?: unknown) =>
      this.send({ method, path, ...(body === undefined ? {} : { body: body as Record<string, unknown> }) });
    return {
      post: async <T>(path: string, body: unknown) => (await send('POST', path, body)) as T,
      patch: async <T>(path: string, body: unknown) => (await send('PATCH', path, body)) as T,
      put: async <T>(path: string, body: unknown) => (await send('PUT', path, body)) as T,
      // As ApiClient.delete: a 404 counts as done, the resource is gone either way.
      delete: async (path: string) => {
        try {
          await send('DELETE', path);
        } catch (err) {
          if (!(err instanceof ApiError && err.status === 404)) throw err;
        }
      },
      listAll: <T>(path: string) => this.#list<T>(path),
      getOptional: async <T>(path: string) => {
        const kind = moduleKind(path);
        if (!kind) throw new Error(`getOptional of ${path}: only edge modules are read one by one`);
        return this.modules.get(path) as T | undefined;
      },
    };
  }

  async *#list<T>(path: string): AsyncIterable<T> {
    const d = managedDescriptors.find((x) => x.collectionPath === path);
    if (!d) throw new ApiError({ status: 404, method: 'GET', path, errorCode: 'ERR_NOT_FOUND', msg: path });
    for (const o of [...this.objects[d.kind].values()]) yield structuredClone(o) as T;
  }

  #answer(r: PlannedRequest): LiveObject | undefined {
    const mod = moduleKind(r.path);
    if (mod) {
      if (r.method === 'PUT') {
        const body = BODIES.get(`${mod}.replace`)!(r.body ?? {});
        const enabled = body['enabled'] !== false;
        const obj: LiveObject =
          mod === 'tcp_edge_ip_restriction'
            ? { enabled, ip_policies: refs(body['ip_policy_ids'] as string[]) }
            : { enabled };
        this.modules.set(r.path, obj);
        return obj;
      }
      if (r.method === 'DELETE') {
        this.modules.delete(r.path);
        return undefined;
      }
      throw fail('ERR_METHOD_NOT_ALLOWED', `${r.method} ${r.path}`);
    }
    const d = managedDescriptors.find(
      (x) => r.path === x.collectionPath || r.path.startsWith(`${x.collectionPath}/`),
    );
    if (!d) throw fail('ERR_NOT_FOUND', r.path);
    const store = this.objects[d.kind];
    if (r.path === d.collectionPath) {
      if (r.method !== 'POST') throw fail('ERR_METHOD_NOT_ALLOWED', `${r.method} ${r.path}`);
      const obj = this.#create(d.kind, BODIES.get(`${d.kind}.create`)!(r.body ?? {}));
      store.set(String(obj['id']), obj);
      return obj;
    }
    const id = decodeURIComponent(r.path.slice(d.collectionPath.length + 1));
    const obj = store.get(id);
    if (!obj) throw fail('ERR_NOT_FOUND', `no object with ID "${id}"`);
    if (r.method === 'DELETE') {
      store.delete(id);
      // A policy's rules go with it (shared/SPEC-ip-policies.md).
      if (d.kind === 'ip_policy') {
        for (const [ruleId, rule] of this.objects.ip_policy_rule) {
          if ((rule['ip_policy'] as { id: string }).id === id) this.objects.ip_policy_rule.delete(ruleId);
        }
      }
      return undefined;
    }
    // A kind without an update schema cannot be patched at all.
    const update = BODIES.get(`${d.kind}.update`);
    if (r.method !== 'PATCH' || !update) throw fail('ERR_METHOD_NOT_ALLOWED', `${r.method} ${r.path}`);
    const body = update(r.body ?? {});
    for (const [k, v] of Object.entries(body)) {
      if (k === 'ip_policy_ids') obj['ip_policies'] = refs(v as string[]);
      else obj[k] = v;
    }
    return obj;
  }

  #create(kind: ManagedKind, body: Record<string, unknown>): LiveObject {
    this.seq++;
    const base: LiveObject = {
      created_at: new Date(this.now.getTime() + this.seq * 1000).toISOString(),
      description: body['description'] ?? '',
      metadata: body['metadata'] ?? '',
    };
    // How the service answers a POST, per kind: a kind the fake does not know does not compile.
    const answers: Record<ManagedKind, () => LiveObject> = {
      ip_policy: () => {
        const id = serviceId('ipp', `m${this.seq}`);
        return { id, uri: `http://x/ip_policies/${id}`, ...base };
      },
      ip_policy_rule: () => {
        const policy = String(body['ip_policy_id']);
        if (!this.objects.ip_policy.has(policy))
          throw fail('ERR_REFERENCE_NOT_FOUND', `no IP policy ${policy}`);
        for (const o of this.objects.ip_policy_rule.values()) {
          if ((o['ip_policy'] as { id: string }).id === policy && o['cidr'] === body['cidr']) {
            throw fail('ERR_CIDR_EXISTS', `IP Policy Rule with CIDR ${String(body['cidr'])} already exists`);
          }
        }
        const id = serviceId('ipr', `m${this.seq}`);
        return {
          id,
          uri: `http://x/ip_policy_rules/${id}`,
          ...base,
          cidr: body['cidr'],
          action: body['action'],
          ip_policy: refs([policy])[0],
        };
      },
      ip_restriction: () => {
        for (const o of this.objects.ip_restriction.values()) {
          if (o['type'] === body['type']) {
            throw fail(
              'ERR_IP_RESTRICTION_TYPE_TAKEN',
              `an IP restriction of type ${String(body['type'])} exists`,
            );
          }
        }
        const id = serviceId('ipx', `m${this.seq}`);
        return {
          id,
          uri: `http://x/ip_restrictions/${id}`,
          ...base,
          type: body['type'],
          enforced: body['enforced'] ?? false,
          ip_policies: refs(body['ip_policy_ids'] as string[]),
        };
      },
      certificate_authority: () => {
        const pem = String(body['ca_pem']);
        const seed = Object.keys(this.caSeeds).find((s) => fakePem(s).pem === pem);
        if (!seed) throw fail('ERR_INVALID_PEM', 'ca_pem is not a certificate this account knows');
        const id = serviceId('ca', `m${this.seq}`);
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
        const id = serviceId('shcrt', `m${this.seq}`);
        return {
          id,
          uri: `http://x/ssh_host_certificates/${id}`,
          ...base,
          public_key: body['public_key'],
          key_type: 'ed25519',
          ssh_certificate_authority_id: body['ssh_certificate_authority_id'],
          principals: body['principals'] ?? [],
          valid_after: body['valid_after'] ?? this.now.toISOString(),
          valid_until: body['valid_until'] ?? new Date(this.now.getTime() + 365 * 86_400_000).toISOString(),
          certificate: 'ssh-ed25519-cert-v01@openssh.com AAAA',
        };
      },
    };
    return answers[kind]();
  }
}

function moduleKind(path: string): ModuleKind | undefined {
  return MODULE_PATHS.find(([pattern]) => pattern.test(path))?.[1];
}

function fail(code: ErrorCode, msg: string): ServiceError {
  return new ServiceError(code, msg);
}

function refs(ids: string[]): { id: string; uri: string }[] {
  return ids.map((id) => ({ id, uri: `http://x/ip_policies/${id}` }));
}
