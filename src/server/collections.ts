// Generic create/get/list/patch/delete over one kind of object (SPEC: Endpoints). Each kind is one
// `Collection` descriptor in src/server/routes/.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isJsonObject, withoutPathIds } from './dialect.js';
import { ServiceError } from './errors.js';
import { absolutize, baseUrl, listPage, sendJson, timestamp } from './http.js';
import type { IdGenerator, IdKind } from './ids.js';
import type { Store } from './store.js';
import type { BodyValidator } from './validation.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const METHODS: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface ServiceContext {
  store: Store;
  ids: IdGenerator;
  now: () => Date;
  bodies: Map<string, BodyValidator>;
  /** The server's own `http://host:port`, used when a request's Host header is unusable. */
  selfUrl: () => string;
}

export type JsonObject = Record<string, unknown>;

export interface Collection<P = undefined> {
  kind: IdKind;
  /** What users call one of these, for messages ("IP restriction"). */
  noun: string;
  listKey: string;
  /** Relative URI of the collection; `parent` is the owning object's ID for nested collections. */
  collectionPath: (parent: string) => string;
  /** Route of the collection (fastify syntax); the item route appends `/:id`. */
  route: string;
  /** For nested collections: the kind and noun of the owner, read from the `:edge_id` route parameter. */
  parent?: { kind: IdKind; noun: string; param: string };
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
   * Turns a PATCH body as an official client sends it into the spec's form, before it is validated
   * (DESIGN §7); the IDs of the path are already taken out.
   */
  updateDialect?: (body: JsonObject) => JsonObject;
  /** Applies a PATCH body to the stored object (checks included). */
  update?: (ctx: ServiceContext, current: JsonObject, body: JsonObject) => void;
  /** Refuses a delete (409) while something still uses the object. */
  beforeDelete?: (ctx: ServiceContext, id: string) => void;
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => unknown;

/** Registers one path for every method; methods without a handler answer 405 (checked in onRequest). */
export function resource(
  app: FastifyInstance,
  url: string,
  handlers: Partial<Record<Method, Handler>>,
): void {
  const allowed = Object.keys(handlers) as Method[];
  app.route({
    // OPTIONS is routed too, so that it gets a 405 with Allow rather than a 404.
    method: [...METHODS, 'OPTIONS'],
    url,
    config: { allowed },
    handler: (request, reply) => {
      const handler = handlers[(request.method === 'HEAD' ? 'GET' : request.method) as Method];
      if (!handler) throw methodNotAllowed(allowed);
      return handler(request, reply);
    },
  });
}

export function methodNotAllowed(allowed: string[]): ServiceError {
  return new ServiceError('ERR_METHOD_NOT_ALLOWED', `this path accepts ${allowed.join(', ')}`, {
    allow: allowed.join(', '),
  });
}

export function notFound(noun: string, id: string): ServiceError {
  return new ServiceError('ERR_NOT_FOUND', `no ${noun} with ID "${id.slice(0, 64)}"`);
}

export function pathParams(request: FastifyRequest): Record<string, string> {
  return request.params as Record<string, string>;
}

export function validateBody(ctx: ServiceContext, schema: string, body: unknown): JsonObject {
  const validator = ctx.bodies.get(schema);
  if (!validator) throw new Error(`no request schema ${schema}`);
  return validator(body);
}

export function registerCollection<P>(app: FastifyInstance, ctx: ServiceContext, c: Collection<P>): void {
  const { store } = ctx;
  const parentOf = (request: FastifyRequest): string => {
    if (!c.parent) return '';
    const parent = (request.params as Record<string, string>)[c.parent.param]!;
    if (!store.get(c.parent.kind, parent)) throw notFound(c.parent.noun, parent);
    return parent;
  };
  const load = (request: FastifyRequest): { id: string; row: string } => {
    const parent = parentOf(request);
    const id = (request.params as { id: string }).id;
    const row = store.get(c.kind, id);
    if (!row || (c.parent && store.parentOf(c.kind, id) !== parent)) throw notFound(c.noun, id);
    return { id, row: row.data };
  };
  const base = (request: FastifyRequest) => baseUrl(request, ctx.selfUrl());

  resource(app, c.route, {
    GET: (request, reply) => {
      const parent = parentOf(request);
      return sendJson(
        reply,
        200,
        listPage(store, request, base(request), { kind: c.kind, parent, listKey: c.listKey }),
      );
    },
    POST: async (request, reply) => {
      parentOf(request);
      const body = validateBody(ctx, c.createSchema, withoutPathIds(request.body, pathParams(request)));
      const prepared = c.prepare ? await c.prepare(body) : (undefined as P);
      // Everything from here to the insert is synchronous, so rules such as one-per-type hold.
      const parent = parentOf(request);
      const json = insertObject(ctx, c, body, ctx.ids.next(c.kind), parent, prepared);
      return sendJson(reply, 201, absolutize(json, base(request)));
    },
  });

  const item: Partial<Record<Method, Handler>> = {
    GET: (request, reply) => sendJson(reply, 200, absolutize(load(request).row, base(request))),
    DELETE: (request, reply) => {
      const { id } = load(request);
      c.beforeDelete?.(ctx, id);
      store.delete(c.kind, id);
      return reply.code(204).send();
    },
  };
  if (c.updateSchema) {
    const schema = c.updateSchema;
    item.PATCH = (request, reply) => {
      let given = withoutPathIds(request.body, pathParams(request));
      if (c.updateDialect && isJsonObject(given)) given = c.updateDialect(given);
      const body = validateBody(ctx, schema, given);
      const { id, row } = load(request);
      const current = JSON.parse(row) as JsonObject;
      if (body.description !== undefined) current.description = body.description;
      if (body.metadata !== undefined) current.metadata = body.metadata;
      c.update?.(ctx, current, body);
      const json = JSON.stringify(current);
      store.update(c.kind, id, json);
      return sendJson(reply, 200, absolutize(json, base(request)));
    };
  }
  resource(app, `${c.route}/:id`, item);
}

/** Builds and stores a new object of collection `c`; returns its stored JSON (relative URIs). */
export function insertObject<P>(
  ctx: ServiceContext,
  c: Collection<P>,
  body: JsonObject,
  id: string,
  parent: string,
  prepared: P,
): string {
  const { fields, secret } = c.create(ctx, body, id, prepared);
  const object = {
    id,
    uri: `${c.collectionPath(parent)}/${id}`,
    created_at: timestamp(ctx.now()),
    description: body.description ?? '',
    metadata: body.metadata ?? '',
    ...fields,
  };
  const json = JSON.stringify(object);
  ctx.store.insert(c.kind, id, parent, json, secret);
  return json;
}

/** Refs `{id, uri}` to IP policies, after checking that each exists. */
export function ipPolicyRefs(ctx: ServiceContext, ids: string[]): { id: string; uri: string }[] {
  for (const id of ids) {
    if (!ctx.store.get('ip_policy', id)) {
      throw new ServiceError('ERR_REFERENCE_NOT_FOUND', `IP policy "${id}" does not exist; create it first`);
    }
  }
  return ids.map((id) => ({ id, uri: `/ip_policies/${id}` }));
}
