import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO } from './helpers.js';

type Schema = Record<string, unknown>;
const schema = JSON.parse(readFileSync(join(REPO, 'schemas/accord.schema.json'), 'utf8')) as Schema;

function resolveRef(node: Schema): Schema {
  const ref = node['$ref'];
  if (typeof ref !== 'string') return node;
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<Schema>((acc, part) => acc[part] as Schema, schema);
}

/** Every object schema's fields, with their JSON pointer. */
function fields(node: Schema, at: string, out: Array<[string, Schema, Schema]> = []) {
  const properties = node['properties'] as Record<string, Schema> | undefined;
  for (const [name, field] of Object.entries(properties ?? {})) {
    out.push([`${at}/properties/${name}`, field, node]);
    fields(resolveRef(field), `${at}/properties/${name}`, out);
  }
  for (const key of ['$defs', 'additionalProperties', 'items']) {
    const child = node[key];
    if (key === '$defs') {
      for (const [name, def] of Object.entries((child as Record<string, Schema>) ?? {})) {
        fields(def, `#/$defs/${name}`, out);
      }
    } else if (child && typeof child === 'object') fields(child as Schema, `${at}/${key}`, out);
  }
  for (const branch of (node['oneOf'] as Schema[] | undefined) ?? []) fields(branch, `${at}/oneOf`, out);
  return out;
}

it('gives every field a description, and every object additionalProperties: false', () => {
  expect(schema['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
  expect(schema['$id']).toMatch(/^https:\/\//);
  const all = fields(schema, '#');
  expect(all.length).toBeGreaterThan(40);
  for (const [pointer, field, parent] of all) {
    const described =
      typeof field['description'] === 'string' || typeof resolveRef(field)['description'] === 'string';
    expect(described, `${pointer} has no description`).toBe(true);
    expect(parent['additionalProperties'], `${pointer}'s object allows unknown fields`).not.toBe(true);
    expect(parent['additionalProperties'], `${pointer}'s object allows unknown fields`).toBeDefined();
  }
});
