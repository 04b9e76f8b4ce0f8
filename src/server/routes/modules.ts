// Edge modules of shared/SPEC.md: the TCP edge IP restriction module and the HTTPS edge route websocket
// TCP converter module (PUT replaces, GET answers 404 until configured, DELETE removes). A PUT body is
// the module's fields, or `{"id", "edge_id"?, "module": {...}}` as the official TypeScript client sends it.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ipPolicyRefs, notFound, resource, type ServiceContext, validateBody } from '../collections.js';
import { unwrapModule, withoutPathIds } from '../dialect.js';
import { ServiceError } from '../errors.js';
import { absolutize, baseUrl, sendJson } from '../http.js';

interface Module {
  route: string;
  schema: string;
  noun: string;
  /** Checks that the owner exists (404 otherwise) and returns the module's storage key and owner. */
  locate: (ctx: ServiceContext, params: Record<string, string>) => { key: string; owner: string };
  build: (ctx: ServiceContext, body: Record<string, unknown>) => Record<string, unknown>;
}

const modules: Module[] = [
  {
    route: '/edges/tcp/:id/ip_restriction',
    schema: 'tcp_edge_ip_restriction.replace',
    noun: 'IP restriction module',
    locate: (ctx, { id }) => {
      if (!ctx.store.get('tcp_edge', id!)) throw notFound('TCP edge', id!);
      return { key: `tcp_ip_restriction:${id}`, owner: id! };
    },
    build: (ctx, body) => ({
      enabled: body.enabled ?? true,
      ip_policies: ipPolicyRefs(ctx, body.ip_policy_ids as string[]),
    }),
  },
  {
    route: '/edges/https/:edge_id/routes/:id/websocket_tcp_converter',
    schema: 'websocket_tcp_converter.replace',
    noun: 'websocket TCP converter module',
    locate: (ctx, { edge_id: edgeId, id }) => {
      if (!ctx.store.get('https_edge', edgeId!)) throw notFound('HTTPS edge', edgeId!);
      if (ctx.store.parentOf('https_edge_route', id!) !== edgeId) throw notFound('HTTPS edge route', id!);
      return { key: `websocket_tcp_converter:${id}`, owner: id! };
    },
    build: (_ctx, body) => ({ enabled: body.enabled ?? true }),
  },
];

export function registerModules(app: FastifyInstance, ctx: ServiceContext): void {
  for (const m of modules) {
    const params = (request: FastifyRequest) => request.params as Record<string, string>;
    const unconfigured = () =>
      new ServiceError('ERR_NOT_FOUND', `the ${m.noun} is not configured; PUT it to configure it`);
    resource(app, m.route, {
      PUT: (request, reply) => {
        const spec = unwrapModule(withoutPathIds(request.body, params(request)));
        const body = validateBody(ctx, m.schema, spec);
        const { key, owner } = m.locate(ctx, params(request));
        const json = JSON.stringify(m.build(ctx, body));
        ctx.store.modulePut(key, owner, json);
        return sendJson(reply, 200, absolutize(json, baseUrl(request, ctx.selfUrl())));
      },
      GET: (request, reply) => {
        const json = ctx.store.moduleGet(m.locate(ctx, params(request)).key);
        if (json === undefined) throw unconfigured();
        return sendJson(reply, 200, absolutize(json, baseUrl(request, ctx.selfUrl())));
      },
      DELETE: (request, reply) => {
        if (!ctx.store.moduleDelete(m.locate(ctx, params(request)).key)) throw unconfigured();
        return reply.code(204).send();
      },
    });
  }
}
