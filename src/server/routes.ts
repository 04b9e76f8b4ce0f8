// The HTTP face of the collections and modules: one fastify route per path for every method (methods
// a path does not have answer 405 with `Allow`), bodies in, stored JSON out with absolute URIs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type AnyCollection,
  createRequest,
  deleteObject,
  insertObject,
  readObject,
  type ServiceContext,
  updateObject,
} from './collections.js';
import { ServiceError } from './errors.js';
import { absolutize, baseUrl, sendJson } from './http.js';
import { listPage } from './lists.js';
import { deleteModule, type ModuleKind, putModule, readModule } from './modules.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const METHODS: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

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

const params = (request: FastifyRequest) => request.params as Record<string, string>;
/** The body sent; none (a PUT of a module with its defaults) is an empty object. */
const bodyOf = (request: FastifyRequest): unknown => (request.body === undefined ? {} : request.body);

export function registerCollection(app: FastifyInstance, ctx: ServiceContext, c: AnyCollection): void {
  const base = (request: FastifyRequest) => baseUrl(request, ctx.selfUrl());
  const send = (reply: FastifyReply, request: FastifyRequest, status: number, json: string) =>
    sendJson(reply, status, absolutize(json, base(request)));

  resource(app, c.route, {
    GET: (request, reply) =>
      sendJson(
        reply,
        200,
        (c.list ?? listPage)(ctx, c, params(request), request.query, request.url, base(request)),
      ),
    POST: async (request, reply) => {
      const body = createRequest(ctx, c, params(request), bodyOf(request));
      const prepared = c.prepare ? await c.prepare(body) : undefined;
      return send(reply, request, 201, insertObject(ctx, c, params(request), body, prepared));
    },
  });

  const item: Partial<Record<Method, Handler>> = {
    GET: (request, reply) => send(reply, request, 200, readObject(ctx, c, params(request))),
    DELETE: (request, reply) => {
      deleteObject(ctx, c, params(request));
      return reply.code(204).send();
    },
  };
  const { updateSchema } = c;
  if (updateSchema) {
    item.PATCH = (request, reply) =>
      send(reply, request, 200, updateObject(ctx, { ...c, updateSchema }, params(request), bodyOf(request)));
  }
  resource(app, `${c.route}/:id`, item);
}

export function registerModule(app: FastifyInstance, ctx: ServiceContext, m: ModuleKind): void {
  const send = (reply: FastifyReply, request: FastifyRequest, json: string) =>
    sendJson(reply, 200, absolutize(json, baseUrl(request, ctx.selfUrl())));
  resource(app, m.route, {
    PUT: (request, reply) => send(reply, request, putModule(ctx, m, params(request), bodyOf(request))),
    GET: (request, reply) => send(reply, request, readModule(ctx, m, params(request))),
    DELETE: (request, reply) => {
      deleteModule(ctx, m, params(request));
      return reply.code(204).send();
    },
  });
}
