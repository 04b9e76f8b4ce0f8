// Shared request/response helpers of the local service: absolute URIs, JSON replies, timestamps.
import type { FastifyReply, FastifyRequest } from 'fastify';

const SAFE_HOST = /^[A-Za-z0-9.\-:[\]]+$/;

/** `http://host:port` of this request, from its Host header (or the server's own address). */
export function baseUrl(request: FastifyRequest, fallback: string): string {
  const host = request.headers.host;
  return host && SAFE_HOST.test(host) ? `http://${host}` : fallback;
}

/**
 * Stored JSON keeps `uri`s relative ("/ip_policies/ipp_..."); this makes them absolute. A `"uri":"/`
 * sequence cannot occur inside a JSON string value (its quotes would be escaped), so only real `uri`
 * members match.
 */
export function absolutize(json: string, base: string): string {
  return json.replaceAll('"uri":"/', `"uri":"${base}/`);
}

export function sendJson(reply: FastifyReply, status: number, json: string): FastifyReply {
  return reply.code(status).header('content-type', 'application/json; charset=utf-8').send(json);
}

/** RFC 3339 in UTC with whole seconds, as the service reports every timestamp. */
export function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
