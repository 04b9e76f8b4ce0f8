// Edge modules of shared/SPEC.md, apart from HTTP: PUT replaces, GET answers 404 until configured,
// DELETE removes. A PUT body is the module's fields, or `{"id", "edge_id"?, "module": {...}}` as the
// official TypeScript client sends it. Each module is one `ModuleKind` in src/server/kinds/.
import { type JsonObject, type ModuleKind, type ServiceContext, validateBody } from './collections.js';
import { unwrapModule, withoutPathIds } from './dialect.js';
import { ServiceError } from './errors.js';

export type { ModuleKind } from './collections.js';

/** Writes the module (or null) into its owner's stored object, where the kind carries it inline. */
function mirrorInline(ctx: ServiceContext, m: ModuleKind, owner: string, module: unknown): void {
  if (!m.inline) return;
  const row = ctx.store.get(m.inline.kind, owner);
  if (!row) return;
  const object = JSON.parse(row.data) as JsonObject;
  object[m.inline.field] = module;
  ctx.store.update(m.inline.kind, owner, JSON.stringify(object));
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
  const module = m.build(ctx, body);
  const json = JSON.stringify(module);
  ctx.store.transaction(() => {
    ctx.store.modulePut(key, owner, json);
    mirrorInline(ctx, m, owner, module);
  });
  return json;
}

export function readModule(ctx: ServiceContext, m: ModuleKind, params: Record<string, string>): string {
  const json = ctx.store.moduleGet(m.locate(ctx, params).key);
  if (json === undefined) throw unconfigured(m);
  return json;
}

export function deleteModule(ctx: ServiceContext, m: ModuleKind, params: Record<string, string>): void {
  const { key, owner } = m.locate(ctx, params);
  ctx.store.transaction(() => {
    if (!ctx.store.moduleDelete(key)) throw unconfigured(m);
    mirrorInline(ctx, m, owner, null);
  });
}
