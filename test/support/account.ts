// One in-memory account for tests that need no HTTP: the local service's own collections and modules
// (src/server/kinds) over its store in memory, so every request is checked and answered exactly as
// `accord serve` answers it (request schemas and byte limits, references that must exist, one IP
// restriction per type, modules of existing edges, ...), errors as the client reports them (ApiError
// with the service's status and error_code). It runs a plan's requests synchronously, in any order
// the plan's DAG allows (`execute`), or answers as an API client (`client()`) so that the live reader
// and the applier run against it. Modelled on changesets' in-memory builder
// (assemble-release-plan/src/test-utils.ts): no I/O, state to inspect.
import { createHash, generateKeyPairSync } from 'node:crypto';
import type { LiveState } from '../../src/account/model.js';
import { type LiveSource, writesSection } from '../../src/account/read.js';
import { ApiError } from '../../src/api/errors.js';
import type { ApplyClient } from '../../src/apply/types.js';
import type { DesiredState } from '../../src/config/model.js';
import { PemError } from '../../src/crypto/pem.js';
import { ID_LENGTH, ID_PREFIXES, type IdKind } from '../../src/ids.js';
import { fillKnownAfterApply } from '../../src/plan/references.js';
import type { ManagedKind, Plan, PlannedRequest } from '../../src/plan/types.js';
import {
  descriptorFor,
  desiredOf,
  isManaged,
  managedDescriptors,
  moduleDescriptors,
} from '../../src/resources/index.js';
import type { LiveObject } from '../../src/resources/values.js';
import {
  type AnyCollection,
  createRequest,
  DEFAULT_LIMITS,
  deleteObject,
  insertObject,
  readObject,
  type ServiceContext,
  updateObject,
} from '../../src/server/collections.js';
import { ServiceError } from '../../src/server/errors.js';
import { absolutize } from '../../src/server/http.js';
import { httpsEdges } from '../../src/server/kinds/https_edge.js';
import { httpsEdgeRoutes } from '../../src/server/kinds/https_edge_route.js';
import { COLLECTIONS, MODULES } from '../../src/server/kinds/index.js';
import { ipPolicies } from '../../src/server/kinds/ip_policy.js';
import { ipPolicyRules } from '../../src/server/kinds/ip_policy_rule.js';
import { sshCertificateAuthorities } from '../../src/server/kinds/ssh_certificate_authority.js';
import { tcpEdges } from '../../src/server/kinds/tcp_edge.js';
import { deleteModule, type ModuleKind, putModule, readModule } from '../../src/server/modules.js';
import { Store } from '../../src/server/store.js';
import { compileBodyValidators } from '../../src/server/validation.js';

const BASE = 'http://x';

/** A valid ID of the service's form: the kind's prefix and `n`, padded to 27 letters or digits. */
export function serviceId(kind: IdKind, n: number | string): string {
  return `${ID_PREFIXES[kind]}${String(n).padStart(ID_LENGTH, '0')}`;
}

/** The objects an account holds before anything is created, which requests may reference. */
export interface Referenced {
  ipPolicies: string[];
  sshCertificateAuthorities: string[];
  tcpEdges: string[];
  /** [HTTPS edge, route] */
  httpsRoutes: [string, string][];
}

/** By default, the objects the test fixtures reference. */
export const REFERENCED: Referenced = {
  ipPolicies: [serviceId('ip_policy', 1), serviceId('ip_policy', 2), serviceId('ip_policy', 3)],
  sshCertificateAuthorities: [
    serviceId('ssh_certificate_authority', 1),
    serviceId('ssh_certificate_authority', 2),
    serviceId('ssh_certificate_authority', 3),
  ],
  tcpEdges: ['edgtcp_1'],
  httpsRoutes: [['edghts_1', 'edghtsrt_1']],
};

/** The one allow rule each referenced IP policy holds (a policy without one lets nothing through). */
export function seededRuleCidr(i: number): string {
  return `198.51.100.${i * 8}/29`;
}

/**
 * The referenced IP policies and their rules as the service lists them, unmanaged: what an account
 * holds before anything is created, for planner tests that need no account.
 */
export function seededPolicies(referenced: Referenced = REFERENCED): {
  ip_policy: LiveObject[];
  ip_policy_rule: LiveObject[];
} {
  const created_at = '2026-01-01T00:00:00Z';
  const ids = referenced.ipPolicies;
  return {
    ip_policy: ids.map((id) => ({
      id,
      uri: `${BASE}/ip_policies/${id}`,
      created_at,
      description: '',
      metadata: '',
    })),
    ip_policy_rule: ids.map((id, i) => {
      const rule = serviceId('ip_policy_rule', i + 1);
      return {
        id: rule,
        uri: `${BASE}/ip_policy_rules/${rule}`,
        created_at,
        description: '',
        metadata: '',
        cidr: seededRuleCidr(i),
        ip_policy: { id, uri: `${BASE}/ip_policies/${id}` },
        action: 'allow',
      };
    }),
  };
}

/**
 * A PEM-shaped certificate that is no real certificate: its "DER" is a hash of `seed`. The account
 * reads it from the `caSeeds` it is given, as the service reads a real one by parsing it.
 */
export function fakePem(seed: string): { pem: string; sha256: string } {
  const der = createHash('sha512').update(seed).digest();
  return {
    pem: `-----BEGIN CERTIFICATE-----\n${der.toString('base64')}\n-----END CERTIFICATE-----\n`,
    sha256: createHash('sha256').update(der).digest('hex'),
  };
}

// Compiled once: the service's validators, one SSH CA key, one store. A store's prepared statements
// must never be garbage-collected while it is open (src/server/store.ts), so the accounts take turns
// on one store rather than each leaving one behind.
const BODIES = compileBodyValidators();
const SSH_CA_KEY = generateKeyPairSync('ed25519').privateKey.export({
  type: 'pkcs8',
  format: 'pem',
}) as string;
const STORE = new Store();
// Parsing a private key takes milliseconds: the referenced SSH CAs' fields are made once.
const SSH_CA_FIELDS = sshCertificateAuthorities.create({} as ServiceContext, {}, '', SSH_CA_KEY);
const sshCas: AnyCollection = { ...sshCertificateAuthorities, create: () => SSH_CA_FIELDS };
const CONTEXT: ServiceContext = {
  store: STORE,
  limits: DEFAULT_LIMITS,
  ids: { next: () => '' },
  now: () => new Date(0),
  bodies: BODIES,
  selfUrl: () => 'http://x',
};
let current: FakeAccount | undefined;

/** A route of the service (fastify syntax) as a matcher of request paths, giving its parameters. */
function matcher(route: string): (path: string) => Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = new RegExp(
    `^${route.replace(/:(\w+)/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    })}$`,
  );
  return (path) => {
    const m = pattern.exec(path);
    return m ? Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)])) : undefined;
  };
}

const ROUTES = {
  collections: COLLECTIONS.map((c) => ({ c, list: matcher(c.route), item: matcher(`${c.route}/:id`) })),
  modules: MODULES.map((m) => ({ m, match: matcher(m.route) })),
};

const parse = (json: string): LiveObject => JSON.parse(absolutize(json, BASE)) as LiveObject;

export class FakeAccount {
  private readonly ctx: ServiceContext;
  private seq = 0;

  constructor(
    now: Date,
    /** The fakePem seeds the account can read, with the subject and expiry the service would find. */
    caSeeds: Record<string, { cn: string; notAfter: string }> = {},
    referenced: Referenced = REFERENCED,
  ) {
    current = this;
    for (const c of COLLECTIONS) for (const id of STORE.all(c.kind).map(idOf)) STORE.delete(c.kind, id);
    let tick = 0;
    // Each object one second after the previous one, with IDs of the service's form in creation order.
    const clock = () => new Date(now.getTime() + tick * 1000);
    // One context for every account, its clock, IDs and certificates this account's: the service keeps
    // parsed SSH CA keys per context, and parsing one takes milliseconds.
    this.ctx = Object.assign(CONTEXT, {
      ids: {
        next: (kind) => {
          tick++;
          return serviceId(kind, `m${++this.seq}`);
        },
      },
      now: clock,
      parseCaPem: (pem) => {
        const seed = Object.keys(caSeeds).find((s) => fakePem(s).pem === pem);
        if (!seed) throw new PemError('is not a certificate this account knows');
        const der = Buffer.from(pem.split('\n')[1]!, 'base64');
        return {
          der,
          sha256: fakePem(seed).sha256,
          subjectCommonName: caSeeds[seed]!.cn,
          notBefore: new Date('2026-01-01T00:00:00Z'),
          notAfter: new Date(caSeeds[seed]!.notAfter),
        };
      },
    } satisfies Partial<ServiceContext>);
    referenced.ipPolicies.forEach((id, i) => {
      insertObject(this.ctx, ipPolicies, {}, {}, undefined, id);
      const rule = { ip_policy_id: id, cidr: seededRuleCidr(i), action: 'allow' };
      insertObject(this.ctx, ipPolicyRules, {}, rule, undefined, serviceId('ip_policy_rule', i + 1));
    });
    for (const id of referenced.sshCertificateAuthorities) {
      insertObject(this.ctx, sshCas, {}, {}, SSH_CA_KEY, id);
    }
    for (const id of referenced.tcpEdges) insertObject(this.ctx, tcpEdges, {}, {}, undefined, id);
    for (const [edge, route] of referenced.httpsRoutes) {
      if (!STORE.get('https_edge', edge)) insertObject(this.ctx, httpsEdges, {}, {}, undefined, edge);
      const params = { edge_id: edge };
      insertObject(
        this.ctx,
        httpsEdgeRoutes,
        params,
        { match_type: 'path_prefix', match: '/' },
        undefined,
        route,
      );
    }
  }

  /** The service's context, while the store is this account's (a newer account empties it for itself). */
  get #service(): ServiceContext {
    if (current !== this) throw new Error('a newer FakeAccount has taken the in-memory store');
    return this.ctx;
  }

  private get store(): Store {
    return this.#service.store;
  }

  /** Every object of a managed kind, newest first, as the service lists them. */
  objects(kind: ManagedKind | IdKind): LiveObject[] {
    return this.store.list(storeKind(kind), undefined, undefined, Number.MAX_SAFE_INTEGER).map(parse);
  }

  /** Puts an object in the account as it is, as if made outside accord. */
  add(kind: ManagedKind, obj: LiveObject): void {
    const owner = COLLECTIONS.find((c) => c.kind === storeKind(kind))?.owner;
    const parent = owner ? String((obj[owner.ref] as { id?: unknown } | undefined)?.id ?? '') : '';
    this.store.insert(storeKind(kind), String(obj['id']), parent, JSON.stringify(obj));
  }

  /** Changes objects of a kind outside the API (drift made by hand). */
  edit(kind: ManagedKind, change: (obj: LiveObject) => void): void {
    for (const obj of this.objects(kind)) {
      change(obj);
      this.store.update(storeKind(kind), String(obj['id']), JSON.stringify(obj));
    }
  }

  /** The configuration of the module at `path` (undefined when it is not configured). */
  module(path: string): LiveObject | undefined {
    const { m, params } = this.#module(path);
    try {
      return parse(readModule(this.#service, m, params));
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'ERR_NOT_FOUND') return undefined;
      throw err;
    }
  }

  /** Configures the module at `path` as it is, as if made outside accord. */
  setModule(path: string, obj: LiveObject): void {
    const { m, params } = this.#module(path);
    const { key, owner } = m.locate(this.#service, params);
    this.store.modulePut(key, owner, JSON.stringify(obj));
  }

  /** What the live reader would read for `desired`. */
  live(desired: DesiredState): LiveState {
    const modules: LiveState['modules'] = {};
    for (const d of moduleDescriptors) {
      for (const m of desiredOf(d, desired)) modules[d.address(m)] = this.module(d.path(m)) ?? null;
    }
    // As the live reader lists them: a kind listed only when its section is written, its own objects.
    const listed = (d: (typeof managedDescriptors)[number]) =>
      d.listedOnlyWhenWritten && !writesSection(desired, d)
        ? []
        : this.objects(d.kind).filter((o) => d.ownsListed?.(o) ?? true);
    return {
      managed: Object.fromEntries(managedDescriptors.map((d) => [d.kind, listed(d)])) as Record<
        ManagedKind,
        LiveObject[]
      >,
      modules,
    };
  }

  /**
   * Runs every change, each once every change in its `depends_on` is done (as the applier does);
   * `pick(n)` chooses which of n runnable changes sends its next request, so requests of changes
   * under way interleave in any order; `afterEach` looks at the account after every request. An ID
   * known only after apply is filled in from the answer of the change that made it, as the applier
   * does. A plan whose changes wait on each other in a cycle cannot run: that throws.
   */
  execute(
    plan: Plan,
    pick: (n: number) => number = () => 0,
    afterEach: (r: PlannedRequest) => void = () => {},
  ): PlannedRequest[] {
    const sent: PlannedRequest[] = [];
    const done = new Set(plan.changes.filter((c) => c.requests.length === 0).map((c) => c.address));
    const pending = plan.changes.filter((c) => c.requests.length > 0).map((c) => ({ c, next: 0 }));
    const made = new Map<string, string>();
    while (pending.length > 0) {
      const runnable = pending.filter(({ c }) => c.depends_on.every((a) => done.has(a)));
      if (runnable.length === 0) {
        throw new Error(`plan deadlocks: ${pending.map((p) => p.c.address).join(', ')}`);
      }
      const item = runnable[pick(runnable.length) % runnable.length]!;
      const filled = fillKnownAfterApply(item.c.requests[item.next]!, (a) => made.get(a)) as PlannedRequest;
      // As the applier sends it (a traffic policy as text).
      const d = descriptorFor(item.c.kind);
      const r =
        isManaged(d) && d.wireBody && filled.body ? { ...filled, body: d.wireBody(filled.body) } : filled;
      const answer = this.send(r);
      if (r.method === 'POST' && answer) made.set(item.c.address, String(answer['id']));
      sent.push(r);
      afterEach(r);
      item.next++;
      if (item.next === item.c.requests.length) {
        pending.splice(pending.indexOf(item), 1);
        done.add(item.c.address);
      }
    }
    return sent;
  }

  /** Answers one request as the service would: the object made or changed, or an ApiError. */
  send(r: PlannedRequest): LiveObject | undefined {
    try {
      return this.#answer(r.method, r.path, r.body);
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
        if (!ROUTES.modules.some(({ match }) => match(path))) {
          throw new Error(`getOptional of ${path}: only edge modules are read one by one`);
        }
        return this.module(path) as T | undefined;
      },
    };
  }

  async *#list<T>(path: string): AsyncIterable<T> {
    const found = ROUTES.collections.find(({ list }) => list(path));
    if (!found)
      throw new ApiError({ status: 404, method: 'GET', path, errorCode: 'ERR_NOT_FOUND', msg: path });
    for (const o of this.objects(found.c.kind as ManagedKind)) yield o as T;
  }

  #module(path: string): { m: ModuleKind; params: Record<string, string> } {
    for (const { m, match } of ROUTES.modules) {
      const params = match(path);
      if (params) return { m, params };
    }
    throw new Error(`${path} is not the path of an edge module`);
  }

  #answer(method: string, path: string, body: unknown): LiveObject | undefined {
    const ctx = this.#service;
    for (const { m, match } of ROUTES.modules) {
      const params = match(path);
      if (!params) continue;
      if (method === 'PUT') return parse(putModule(ctx, m, params, body ?? {}));
      if (method === 'DELETE') return void deleteModule(ctx, m, params);
      throw notAllowed(method, path);
    }
    for (const { c, list, item } of ROUTES.collections) {
      const listParams = list(path);
      if (listParams) {
        if (method !== 'POST') throw notAllowed(method, path);
        if (c.prepare)
          throw new Error(`${c.noun}: the in-memory account makes no objects that need preparing`);
        return parse(
          insertObject(ctx, c, listParams, createRequest(ctx, c, listParams, body ?? {}), undefined),
        );
      }
      const params = item(path);
      if (!params) continue;
      if (method === 'DELETE') return void deleteObject(ctx, c, params);
      if (method === 'GET') return parse(readObject(ctx, c, params));
      const { updateSchema } = c as AnyCollection;
      if (method !== 'PATCH' || !updateSchema) throw notAllowed(method, path);
      return parse(updateObject(ctx, { ...c, updateSchema }, params, body ?? {}));
    }
    throw new ServiceError('ERR_NOT_FOUND', `no such path ${path}`);
  }
}

function idOf(json: string): string {
  return (JSON.parse(json) as { id: string }).id;
}

function notAllowed(method: string, path: string): ServiceError {
  return new ServiceError('ERR_METHOD_NOT_ALLOWED', `${method} ${path}`);
}

/** The service's kind of a client kind's objects: the one with its ID prefix (a cloud endpoint is an endpoint). */
function storeKind(kind: ManagedKind | IdKind): IdKind {
  if (kind in ID_PREFIXES) return kind as IdKind;
  const prefix = descriptorFor(kind as ManagedKind).idPrefix;
  return (Object.keys(ID_PREFIXES) as IdKind[]).find((k) => ID_PREFIXES[k] === prefix)!;
}
