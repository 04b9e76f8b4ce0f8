#!/usr/bin/env node
// Generates src/config/generated/accord-file.ts from schemas/accord.schema.json (the single source of
// truth). `node scripts/gen-types.mjs` writes the file; test/config/generated-types.test.ts fails when it
// is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';

export const SCHEMA_FILE = fileURLToPath(new URL('../schemas/accord.schema.json', import.meta.url));
export const OUTPUT_FILE = fileURLToPath(new URL('../src/config/generated/accord-file.ts', import.meta.url));

const BANNER = `// Generated from schemas/accord.schema.json by scripts/gen-types.mjs (npm run gen:types). Do not edit.
// The shape of accord.yaml as written; src/config/model.ts is the normalized model built from it.`;

/**
 * Editor- and validator-only rules ("exactly one of", "not both") carry no type information; left in,
 * json-schema-to-typescript turns them into `& {[k: string]: unknown}` and hides typos. Metadata is any
 * YAML value.
 */
function forTypes(schema) {
  const copy = structuredClone(schema);
  const visit = (node) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node.oneOf) && node.oneOf.every((b) => Object.keys(b).join() === 'required')) {
      delete node.oneOf;
    }
    if (node.not && Object.keys(node.not).join() === 'required') delete node.not;
    for (const value of Object.values(node)) visit(value);
  };
  visit(copy);
  copy.$defs.metadata.tsType = 'unknown';
  return copy;
}

/** The generated file's text. */
export async function generateAccordFileTypes() {
  const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'));
  return compile(forTypes(schema), 'AccordFile', {
    bannerComment: BANNER,
    additionalProperties: false,
    format: true,
    style: { singleQuote: true, printWidth: 110, trailingComma: 'all' },
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(OUTPUT_FILE, await generateAccordFileTypes());
  console.log(`wrote ${OUTPUT_FILE}`);
}
