// Generic create/get/list/patch/delete over one kind of object (SPEC: Endpoints), apart from HTTP: the
// routes (routes.ts) and the seed (seed.ts) call these. Each kind is one `Collection` in
// src/server/kinds/, listed in its registry (kinds/index.ts).

import type { CaCertificate } from '../crypto/pem.js';
import { isIdOf } from '../ids.js';
import { withoutPathIds } from './dialect.js';
import { type ErrorCode, ServiceError } from './errors.js';
import { timestamp } from './http.js';
import type { IdKind } from './ids.js';
import type { Store } from './store.js';
import type { BodyValidator } from './validation.js';

/** The account's limits (`accord serve --limits`): beyond them a create is refused (1410, 1411). */
export interface ServiceLimits {
  policies: number;
  rulesPerPolicy: number;
}

/** Generous: a limit is there to be tried with `--limits`, not met by accident. */
export const DEFAULT_LIMITS: ServiceLimits = { policies: 10_000, rulesPerPolicy: 10_000 };

export interface ServiceContext {
  store: Store;
  limits: ServiceLimits;
  /** New IDs of a kind (ids.ts's IdGenerator). */
  ids: { next(kind: IdKind): string };
  now: () => Date;
  bodies: Map<string, BodyValidator>;
  /** The server's own `http://host:port`, used when a request's Host header is unusable. */
  selfUrl: () => string;
  /** Reads a CA certificate (default crypto/pem.ts's parseCaPem; the tests' account knows fake ones). */
  parseCaPem?: (pem: string) => CaCertificate;
}

export type JsonObject = Record<string, unknown>;

export interface Collection<P = undefined> {
  /** Also the ID prefix's name (src/ids.ts). */
  kind: IdKind;
  /** What users call one of these, for messages ("IP restriction"). */
  noun: string;
  listKey: string;
  /** Route of the collection (fastify syntax); the item route appends `/:id`. */
  route: string;
  /** For collections nested in another object's path: its kind and noun and the route parameter of its ID. */
  parent?: { kind: IdKind; noun: string; param: string };
  /**
   * For objects that belong to another object named in their body: that body field (a rule's
   * `ip_policy_id`) and the object's field that refers to it (`ip_policy`). They are stored under it,
   * listed with every other of their kind, and deleted with it.
   */
  owner?: { field: string; ref: string };
  createSchema: string;
  updateSchema?: string;
  /** Slow preparation outside the write (key generation). */
  prepare?: (body: JsonObject) => Promise<P>;
  /** Checks references and rules and returns the kind's own fields; runs synchronously right before the insert. */
  create: (
    ctx: ServiceContext,
    body: JsonObject,
    id: string,
    prepared: P,
  ) => { fields: JsonObject; secret?: string };
  /**
   * Modules the object carries inline, by field: given on create or in a PATCH (null removes one), and
   * shown in the object (null until configured) as their own PUT and DELETE keep them.
   */
  modules?: Record<string, ModuleKind>;
  /** Fields besides description and metadata that a PATCH sets as they are given. */
  updatable?: string[];
  /** Applies a validated PATCH body to the stored object (checks included; `id` is the object's). */
  update?: (ctx: ServiceContext, current: JsonObject, body: JsonObject, id: string) => void;
  /** Runs before the delete (in its transaction): forgets what the service keeps beside the store. */
  beforeDelete?: (ctx: ServiceContext, id: string) => void;
  /** How `--seed` preloads the kind (seed.ts); a kind without it cannot be seeded. */
  seed?: SeedSpec<P>;
  /** A list with query filters of its own (endpoints' `ids`, `urls`); lists.ts's listPage otherwise. */
  list?: ListHandler;
}

/** One page of a collection's list as JSON, from the request's path parameters, query, URL and base URL. */
export type ListHandler = (
  ctx: ServiceContext,
  c: AnyCollection,
  params: Record<string, string>,
  query: unknown,
  url: string,
  base: string,
) => string;

/**
 * Where the kind's entries are in the seed file: a section of their own, or a field of the entries of
 * the section that holds their owner (an HTTPS edge's `routes`, a policy's `rules`).
 */
export type SeedSpec<P> = ({ section: string } | { within: string; field: string }) & {
  /** A seed-only field and the prepared value it gives instead of `prepare` (an SSH CA's `private_key`). */
  extra?: { field: string; prepare: (value: unknown) => P };
  /** The request schema seed entries are checked with, when not the create's (endpoints of any type). */
  schema?: string;
};

/** A collection of any prepared type, as registries and the seed hold them. */
// biome-ignore lint/suspicious/noExplicitAny: the prepared value stays between a collection's own prepare and create
export type AnyCollection = Collection<any>;

export interface ModuleKind {
  /** Route of the module (fastify syntax). */
  route: string;
  schema: string;
  noun: string;
  /** Checks that the owner exists (404 otherwise) and returns the module's storage key and owner. */
  locate: (ctx: ServiceContext, params: Record<string, string>) => { key: string; owner: string };
  /** The module's storage key for its owner's ID. */
  keyOf: (owner: string) => string;
  build: (ctx: ServiceContext, body: Record<string, unknown>) => Record<string, unknown>;
  /**
   * The owner's object carries the module as this field (null when unconfigured), as a TCP edge
   * carries its `ip_restriction` on the production service; kept in step with every PUT and DELETE.
   */
  inline?: { kind: IdKind; field: string };
}

/**
 * Sets or removes (null) the module of an owner that exists or is being made, from a body field that
 * its owner's schema validated (a module given inline on create or in a PATCH, as the OpenAPI has it);
 * returns the module as the owner's object shows it. Call inside the owner's write transaction.
 */
export function setInlineModule(
  ctx: ServiceContext,
  m: ModuleKind,
  owner: string,
  given: JsonObject | null,
): JsonObject | null {
  if (given === null) {
    ctx.store.moduleDelete(m.keyOf(owner));
    return null;
  }
  const module = m.build(ctx, validateBody(ctx, m.schema, given)) as JsonObject;
  ctx.store.modulePut(m.keyOf(owner), owner, JSON.stringify(module));
  return module;
}

export function notFound(noun: string, id: string): ServiceError {
  return new ServiceError('ERR_NOT_FOUND', `no ${noun} with ID "${id.slice(0, 64)}"`);
}

export function validateBody(ctx: ServiceContext, schema: string, body: unknown): JsonObject {
  const validator = ctx.bodies.get(schema);
  if (!validator) throw new Error(`no request schema ${schema}`);
  return validator(body);
}

/** The collection's relative URI, its path parent (if any) filled in from `params`. */
export function collectionUri(c: AnyCollection, params: Record<string, string>): string {
  return c.parent ? c.route.replace(`:${c.parent.param}`, params[c.parent.param] ?? '') : c.route;
}

/** The ID of the object the collection's path nests under ('' for none), after checking it exists. */
export function pathParent(ctx: ServiceContext, c: AnyCollection, params: Record<string, string>): string {
  if (!c.parent) return '';
  const parent = params[c.parent.param] ?? '';
  if (!ctx.store.get(c.parent.kind, parent)) throw notFound(c.parent.noun, parent);
  return parent;
}

/** The stored JSON of one object (relative URIs); 404 when there is none at this path. */
export function readObject(ctx: ServiceContext, c: AnyCollection, params: Record<string, string>): string {
  const parent = pathParent(ctx, c, params);
  const id = params.id ?? '';
  const row = ctx.store.get(c.kind, id);
  if (!row || (c.parent && ctx.store.parentOf(c.kind, id) !== parent)) throw notFound(c.noun, id);
  return row.data;
}

/** A POST body in the spec's form, validated. */
export function createRequest(
  ctx: ServiceContext,
  c: AnyCollection,
  params: Record<string, string>,
  body: unknown,
) {
  pathParent(ctx, c, params);
  return validateBody(ctx, c.createSchema, withoutPathIds(body, params));
}

/**
 * Builds and stores a new object from a validated body; returns its stored JSON (relative URIs).
 * Everything here is synchronous, so rules such as one-per-type hold.
 */
export function insertObject<P>(
  ctx: ServiceContext,
  c: Collection<P>,
  params: Record<string, string>,
  body: JsonObject,
  prepared: P,
  id: string = ctx.ids.next(c.kind),
): string {
  const parent = c.owner ? String(body[c.owner.field]) : pathParent(ctx, c, params);
  const { fields, secret } = c.create(ctx, body, id, prepared);
  const object = {
    id,
    uri: `${collectionUri(c, params)}/${id}`,
    created_at: timestamp(ctx.now()),
    description: body.description ?? '',
    metadata: body.metadata ?? '',
    ...fields,
  };
  ctx.store.transaction(() => {
    for (const [field, m] of Object.entries(c.modules ?? {})) {
      (object as JsonObject)[field] = setInlineModule(ctx, m, id, (body[field] as JsonObject) ?? null);
    }
    ctx.store.insert(c.kind, id, parent, JSON.stringify(object), secret);
  });
  return JSON.stringify(object);
}

/** Applies a PATCH body (as a client sent it) to an object; returns its new stored JSON. */
export function updateObject(
  ctx: ServiceContext,
  c: AnyCollection & { updateSchema: string },
  params: Record<string, string>,
  given: unknown,
): string {
  const body = validateBody(ctx, c.updateSchema, withoutPathIds(given, params));
  const current = JSON.parse(readObject(ctx, c, params)) as JsonObject;
  const id = params.id ?? '';
  for (const field of ['description', 'metadata', ...(c.updatable ?? [])]) {
    if (body[field] !== undefined) current[field] = body[field];
  }
  c.update?.(ctx, current, body, id);
  ctx.store.transaction(() => {
    for (const [field, m] of Object.entries(c.modules ?? {})) {
      if (body[field] !== undefined)
        current[field] = setInlineModule(ctx, m, id, body[field] as JsonObject | null);
    }
    ctx.store.update(c.kind, id, JSON.stringify(current));
  });
  return JSON.stringify(current);
}

/** Deletes an object with what it owns (children, modules, owned objects). */
export function deleteObject(ctx: ServiceContext, c: AnyCollection, params: Record<string, string>): void {
  readObject(ctx, c, params);
  const id = params.id ?? '';
  ctx.store.transaction(() => {
    c.beforeDelete?.(ctx, id);
    ctx.store.delete(c.kind, id);
  });
}

/** Refs `{id, uri}` to objects of `kind`, after checking that each exists (400 otherwise). */
export function refsTo(
  ctx: ServiceContext,
  target: { kind: IdKind; noun: string; route: string },
  ids: string[],
  code: ErrorCode = 'ERR_REFERENCE_NOT_FOUND',
): { id: string; uri: string }[] {
  for (const id of ids) {
    if (!isIdOf(target.kind, id) || !ctx.store.get(target.kind, id)) {
      throw new ServiceError(code, `${target.noun} "${id.slice(0, 64)}" does not exist; create it first`);
    }
  }
  return ids.map((id) => ({ id, uri: `${target.route}/${id}` }));
}
