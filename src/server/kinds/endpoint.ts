// Endpoints (shared/SPEC-endpoints.md): cloud endpoints are created, patched and deleted through the
// API; agent endpoints come from the seed file and are read-only (248). A cloud endpoint's URL is its
// own among the account's cloud endpoints (18009) and keeps its scheme (18005); its traffic policy is
// checked as a whole (traffic-policy.ts) and kept as the text that was sent. The list takes the
// filters `ids` and `urls` (endpoint-list.ts).
import type { Collection, JsonObject, ServiceContext } from '../collections.js';
import { listEndpoints } from '../endpoint-list.js';
import { derivedFields, type EndpointUrl, publicUrl, readEndpointUrl } from '../endpoint-url.js';
import { ServiceError } from '../errors.js';
import { timestamp } from '../http.js';
import { checkPolicyDocument } from '../traffic-policy.js';

const PATCHABLE = 'url, traffic_policy, description, metadata, bindings, pooling_enabled';

export const endpoints: Collection = {
  kind: 'endpoint',
  noun: 'endpoint',
  listKey: 'endpoints',
  route: '/endpoints',
  createSchema: 'endpoint.create',
  updateSchema: 'endpoint.update',
  create: (ctx, body, id) => ({ fields: endpointFields(ctx, body, id) }),
  update: updateEndpoint,
  beforeDelete: (ctx, id) => {
    const row = ctx.store.get('endpoint', id);
    if (row) checkCloud(JSON.parse(row.data) as JsonObject, 'deleted');
  },
  list: listEndpoints,
  // Seed entries may be agent endpoints too, with the fields an agent gives them.
  seed: { section: 'endpoints', schema: 'endpoint.seed' },
};

/** The kind's fields of a new endpoint, from a validated create body or seed entry. */
function endpointFields(ctx: ServiceContext, body: JsonObject, id: string): JsonObject {
  const type = body.type as string;
  const url = readEndpointUrl(body.url as string);
  const bindings = (body.bindings as string[] | undefined) ?? [defaultBinding(url)];
  checkBindings(url, bindings);
  if (type === 'cloud') checkUrlFree(ctx, url, id);
  const policy = (body.traffic_policy as string | undefined) ?? '';
  // An agent may run without a policy; a cloud endpoint has nothing else to handle its traffic.
  if (type === 'cloud' || policy.trim() !== '') checkPolicyDocument(ctx, policy, url.scheme);
  const agent =
    type === 'cloud'
      ? {}
      : { upstream_url: body.upstream_url ?? '', upstream_protocol: body.upstream_protocol ?? '' };
  return {
    updated_at: timestamp(ctx.now()),
    type,
    url: body.url,
    ...derivedFields(url),
    bindings,
    pooling_enabled: body.pooling_enabled ?? false,
    traffic_policy: policy,
    name: body.name ?? '',
    region: body.region ?? '',
    ...agent,
  };
}

/** Applies a validated PATCH body to a stored endpoint. */
function updateEndpoint(ctx: ServiceContext, current: JsonObject, body: JsonObject, id: string): void {
  checkCloud(current, 'changed');
  if (Object.keys(body).length === 0) {
    throw new ServiceError('ERR_NGROK_18004', `the PATCH changes nothing; give at least one of ${PATCHABLE}`);
  }
  let url = readEndpointUrl(current.url as string);
  if (body.url !== undefined) {
    const next = readEndpointUrl(body.url as string);
    if (next.scheme !== url.scheme) {
      throw new ServiceError(
        'ERR_NGROK_18005',
        `field "url": the endpoint's scheme is ${url.scheme} and cannot change to ${next.scheme}; keep ` +
          `${url.scheme}://, or create a ${next.scheme} endpoint and delete this one`,
      );
    }
    checkUrlFree(ctx, next, id);
    url = next;
    Object.assign(current, { url: body.url, ...derivedFields(next) });
  }
  if (body.bindings !== undefined) current.bindings = body.bindings;
  if (body.url !== undefined || body.bindings !== undefined) checkBindings(url, current.bindings as string[]);
  if (body.traffic_policy !== undefined) {
    checkPolicyDocument(ctx, body.traffic_policy as string, url.scheme);
    current.traffic_policy = body.traffic_policy;
  }
  if (body.pooling_enabled !== undefined) current.pooling_enabled = body.pooling_enabled;
  current.updated_at = timestamp(ctx.now());
}

/** Only cloud endpoints are changed through the API; an agent's are its own. */
function checkCloud(endpoint: JsonObject, what: 'changed' | 'deleted'): void {
  if (endpoint.type === 'cloud') return;
  throw new ServiceError(
    'ERR_NGROK_248',
    `endpoint ${String(endpoint.id)} (${String(endpoint.url)}) is an ${String(endpoint.type)} endpoint, which ` +
      `cannot be ${what} through the API: only cloud endpoints can; change or stop the agent that serves it`,
  );
}

/** One cloud endpoint per URL (by identity); `self` is the endpoint being written. */
function checkUrlFree(ctx: ServiceContext, url: EndpointUrl, self: string): void {
  const identity = publicUrl(url);
  for (const json of ctx.store.all('endpoint')) {
    const other = JSON.parse(json) as { id: string; type: string; public_url: string };
    if (other.type === 'cloud' && other.id !== self && other.public_url === identity) {
      throw new ServiceError(
        'ERR_NGROK_18009',
        `the account already has a cloud endpoint on ${identity} (${other.id}); update that one, or delete it first`,
      );
    }
  }
}

const isInternal = (url: EndpointUrl) => url.host.endsWith('.internal');

function defaultBinding(url: EndpointUrl): string {
  return isInternal(url) ? 'internal' : 'public';
}

/** An internal endpoint's host ends in `.internal`, and only an internal endpoint's does. */
function checkBindings(url: EndpointUrl, bindings: string[]): void {
  const internal = bindings.includes('internal');
  if (internal === isInternal(url)) return;
  throw new ServiceError(
    'ERR_NGROK_18014',
    internal
      ? `field "bindings": an internal endpoint's host ends in .internal, and ${url.host} does not; give ` +
          'the URL such a host, or another binding'
      : `field "bindings": ${url.host} ends in .internal, which only an internal endpoint's host does; give ` +
          'bindings ["internal"], or another host',
  );
}
