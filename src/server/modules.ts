// Edge modules of shared/SPEC.md, apart from HTTP: PUT replaces, GET answers 404 until configured,
// DELETE removes. A PUT body is the module's fields, or `{"id", "edge_id"?, "module": {...}}` as the
// official TypeScript client sends it. Each module is one `ModuleKind` in src/server/kinds/.
import { type ServiceContext, validateBody } from './collections.js';
import { unwrapModule, withoutPathIds } from './dialect.js';
import { ServiceError } from './errors.js';

export interface ModuleKind {
  /** Route of the module (fastify syntax). */
  route: string;
  schema: string;
  noun: string;
  /** Checks that the owner exists (404 otherwise) and returns the module's storage key and owner. */
  locate: (ctx: ServiceContext, params: Record<string, string>) => { key: string; owner: string };
  build: (ctx: ServiceContext, body: Record<string, unknown>) => Record<string, unknown>;
}

const unconfigured = (m: ModuleKind) =>
  new ServiceError('ERR_NOT_FOUND', `the ${m.noun} is not configured; PUT it to configure it`);

/** Replaces the module's configuration; returns its stored JSON (relative URIs). */
export function putModule(
  ctx: ServiceContext,
  m: ModuleKind,
  params: Record<string, string>,
  given: unknown,
): string {
  const body = validateBody(ctx, m.schema, unwrapModule(withoutPathIds(given, params)));
  const { key, owner } = m.locate(ctx, params);
  const json = JSON.stringify(m.build(ctx, body));
  ctx.store.modulePut(key, owner, json);
  return json;
}

export function readModule(ctx: ServiceContext, m: ModuleKind, params: Record<string, string>): string {
  const json = ctx.store.moduleGet(m.locate(ctx, params).key);
  if (json === undefined) throw unconfigured(m);
  return json;
}

export function deleteModule(ctx: ServiceContext, m: ModuleKind, params: Record<string, string>): void {
  if (!ctx.store.moduleDelete(m.locate(ctx, params).key)) throw unconfigured(m);
}
