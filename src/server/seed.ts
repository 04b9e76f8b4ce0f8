// `accord serve --seed FILE`: preloads the seedable kinds (IP policies and their rules, SSH certificate
// authorities, TCP and HTTPS edges and routes, endpoints) with fixed IDs (examples/seed.yaml). Each entry
// is the kind's create body (or its seed schema's) plus `id`; objects that already exist (a --data file)
// are kept.
import { readFileSync } from 'node:fs';
import { type Document, LineCounter, parseDocument, YAMLError } from 'yaml';
import { AccordError } from '../errors.js';
import { isIdOf } from '../ids.js';
import {
  type AnyCollection,
  insertObject,
  type JsonObject,
  type ServiceContext,
  validateBody,
} from './collections.js';
import { ServiceError } from './errors.js';
import { COLLECTIONS } from './kinds/index.js';

export class SeedError extends AccordError {
  override name = 'SeedError';
  static override readonly code = 'ACCORD_SERVE_SEED';
}

/** One entry's problem: the entry (a path of keys and list indexes), and the node its line is of. */
class SeedProblem extends Error {
  constructor(
    readonly path: (string | number)[],
    message: string,
    readonly at: (string | number)[] = path,
  ) {
    super(message);
  }
}

const SECTIONS: [string, AnyCollection][] = COLLECTIONS.flatMap((c) =>
  c.seed && 'section' in c.seed ? [[c.seed.section, c] as [string, AnyCollection]] : [],
);

/** The kinds seeded within an entry of `section`, by their field. */
function nestedIn(section: string): [string, AnyCollection][] {
  return COLLECTIONS.flatMap((c) =>
    c.seed && 'within' in c.seed && c.seed.within === section
      ? [[c.seed.field, c] as [string, AnyCollection]]
      : [],
  );
}

export async function loadSeed(ctx: ServiceContext, file: string): Promise<void> {
  const { doc, document, lines } = parseSeed(readSeed(file), file);
  // Every entry is tried, and every problem said at its line, as accord validate does for accord.yaml.
  const problems: string[] = [];
  const at = (path: (string | number)[], message: string) => {
    const node = document.getIn(path, true) as { range?: [number, number] } | undefined;
    const pos = node?.range ? lines.linePos(node.range[0]) : undefined;
    problems.push(`${file}:${pos ? `${pos.line}:${pos.col}` : '1:1'}: ${message}`);
  };
  for (const [section, collection] of SECTIONS) {
    const entries = doc[section] ?? [];
    if (!Array.isArray(entries)) {
      at([section], `${section} must be a list`);
      continue;
    }
    for (const [i, entry] of entries.entries()) {
      try {
        await seedEntry(ctx, section, collection, entry as JsonObject, {}, [section, i]);
      } catch (err) {
        if (!(err instanceof SeedProblem)) throw err;
        at(err.at, `${pathText(err.path)}: ${err.message}`);
      }
    }
  }
  if (problems.length > 0) {
    const n = problems.length;
    throw new SeedError(
      `${n === 1 ? 'a problem' : `${n} problems`} in the seed file, so the service did not start; fix ${n === 1 ? 'it' : 'them'} (see examples/seed.yaml):\n${problems.join('\n')}`,
    );
  }
}

function readSeed(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? String(err)})`;
    throw new SeedError(`the seed file ${file} ${why}; give --seed a YAML file like examples/seed.yaml`, {
      cause: err,
    });
  }
}

/** The seed file's sections, with its document and lines to place problems at; a SeedError if it is not a seed file. */
function parseSeed(
  text: string,
  file: string,
): { doc: Record<string, unknown>; document: Document.Parsed; lines: LineCounter } {
  let doc: unknown;
  const lines = new LineCounter();
  const document = parseDocument(text, { uniqueKeys: true, lineCounter: lines });
  try {
    const [first] = document.errors;
    if (first) throw first;
    doc = document.toJS();
  } catch (err) {
    // The yaml package's message ends with a code frame over several lines; the position says enough.
    const pos = err instanceof YAMLError ? err.linePos?.[0] : undefined;
    const where = pos ? `${file}:${pos.line}:${pos.col}` : file;
    const what = ((err as Error).message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    throw new SeedError(
      `${where}: the seed file is not valid YAML: ${what}; fix it (see examples/seed.yaml)`,
      { cause: err },
    );
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new SeedError(`the seed file ${file} must be a mapping of ${SECTIONS.map((s) => s[0]).join(', ')}`);
  }
  const known = new Set(SECTIONS.map((s) => s[0]));
  for (const key of Object.keys(doc)) {
    if (!known.has(key))
      throw new SeedError(`${file}: unknown section "${key}"; known: ${[...known].join(', ')}`);
  }
  return { doc: doc as Record<string, unknown>, document, lines };
}

/** `ip_policies[0].rules[1]`. */
function pathText(path: (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

async function seedEntry(
  ctx: ServiceContext,
  section: string,
  c: AnyCollection,
  entry: JsonObject,
  owner: { param?: string; field?: string; id?: string },
  path: (string | number)[],
): Promise<void> {
  if (typeof entry !== 'object' || entry === null) throw new SeedProblem(path, 'must be a mapping');
  const { id, ...rest } = entry;
  if (typeof id !== 'string' || !isIdOf(c.kind, id)) {
    throw new SeedProblem(
      path,
      `"id" must be an ID of this kind (prefix and 27 letters and digits)`,
      'id' in entry ? [...path, 'id'] : path,
    );
  }
  const nested = nestedIn(section);
  const children: [string, AnyCollection, unknown][] = [];
  for (const [field, child] of nested) {
    if (rest[field] !== undefined) children.push([field, child, rest[field]]);
    delete rest[field];
  }
  const extra = c.seed?.extra;
  const extraValue = extra ? rest[extra.field] : undefined;
  if (extra) delete rest[extra.field];
  // A nested entry's owner is the entry it is in (a rule's `ip_policy_id`, a route's edge).
  const body = owner.field && owner.id ? { ...rest, [owner.field]: owner.id } : rest;
  const params: Record<string, string> = owner.param && owner.id ? { [owner.param]: owner.id } : {};
  try {
    const valid = validateBody(ctx, c.seed?.schema ?? c.createSchema, body);
    if (!ctx.store.get(c.kind, id)) {
      const prepared =
        extra && extraValue !== undefined
          ? extra.prepare(extraValue)
          : c.prepare
            ? await c.prepare(valid)
            : undefined;
      insertObject(ctx, c, params, valid, prepared, id);
    }
  } catch (err) {
    if (err instanceof ServiceError) throw new SeedProblem(path, err.message);
    throw err;
  }
  for (const [field, child, list] of children) {
    if (!Array.isArray(list)) throw new SeedProblem([...path, field], `${field} must be a list`);
    for (const [i, item] of list.entries()) {
      const childOwner = child.parent ? { param: child.parent.param, id } : { field: child.owner?.field, id };
      await seedEntry(ctx, `${section}.${field}`, child, item as JsonObject, childOwner, [...path, field, i]);
    }
  }
}
