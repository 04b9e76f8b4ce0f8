#!/usr/bin/env node
// Generates, from schemas/accord.schema.json (the single source of truth):
// - src/config/generated/accord-file.ts: the TypeScript types of the file;
// - src/config/generated/accord-validator.ts: the ajv validator as code, so that `accord validate` does
//   not compile the schema on every run;
// and from schemas/plan.schema.json:
// - src/apply/generated/plan-validator.ts: the validator `accord apply FILE` checks a saved plan with.
// `node scripts/gen-types.mjs` (npm run gen:types) writes all three; test/config/generated-types.test.ts
// fails when any is stale.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import addFormats from 'ajv-formats';
import { compile } from 'json-schema-to-typescript';

export const SCHEMA_FILE = fileURLToPath(new URL('../schemas/accord.schema.json', import.meta.url));
export const OUTPUT_FILE = fileURLToPath(new URL('../src/config/generated/accord-file.ts', import.meta.url));
export const VALIDATOR_FILE = fileURLToPath(
  new URL('../src/config/generated/accord-validator.ts', import.meta.url),
);

export const PLAN_SCHEMA_FILE = fileURLToPath(new URL('../schemas/plan.schema.json', import.meta.url));
export const PLAN_VALIDATOR_FILE = fileURLToPath(
  new URL('../src/apply/generated/plan-validator.ts', import.meta.url),
);

/** The options src/config/schema.ts relies on: every error, with the failing data and schema. */
export const AJV_OPTIONS = { allErrors: true, verbose: true, strictTypes: false };

const BANNER = `// Generated from schemas/accord.schema.json by scripts/gen-types.mjs (npm run gen:types). Do not edit.
// The shape of accord.yaml as written; each kind's descriptor (src/resources/) reads its entries into
// the normalized model, DesiredState (src/config/model.ts).`;

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

/** The validator module's text: ajv's standalone ESM code, whose runtime helpers it loads with require. */
export function generateAccordFileValidator() {
  // A traffic_policy_file holds one policy document, checked against its definition alone.
  return validatorModule(SCHEMA_FILE, AJV_OPTIONS, { validateTrafficPolicy: '#/$defs/trafficPolicy' });
}

/** The saved-plan validator: the first error is enough to refuse a file. */
export function generatePlanValidator() {
  return validatorModule(PLAN_SCHEMA_FILE, { allErrors: false, strictTypes: false });
}

/**
 * The schema without its `description`s: they are for editors, and the validator, which carries its
 * schema for the messages (src/config/schema.ts reads `properties`, `required`, `oneOf`, never a
 * description), would ship each of them a second time.
 */
function withoutDescriptions(node) {
  if (Array.isArray(node)) return node.map(withoutDescriptions);
  if (!node || typeof node !== 'object') return node;
  const copy = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'description' && typeof value === 'string') continue;
    // Under these, keys are names (a property called `description`), their values schemas.
    copy[key] = ['properties', '$defs', 'patternProperties'].includes(key)
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutDescriptions(v)]))
      : withoutDescriptions(value);
  }
  return copy;
}

/** `also`: more validators to export, by name, each of a definition of the schema (`#/$defs/...`). */
function validatorModule(schemaFile, options, also = {}) {
  const schema = withoutDescriptions(JSON.parse(readFileSync(schemaFile, 'utf8')));
  const ajv = new Ajv2020({ ...options, code: { source: true, esm: true } });
  addFormats(ajv, ['date-time']);
  const more = Object.entries(also).map(([name, ref]) => [name, `${schema.$id}${ref}`]);
  let code;
  if (more.length === 0) code = standaloneCode(ajv, ajv.compile(schema));
  else {
    ajv.addSchema(schema);
    code = standaloneCode(ajv, { validate: schema.$id, ...Object.fromEntries(more) });
  }
  const name = schemaFile.slice(schemaFile.lastIndexOf('/') + 1);
  return [
    '// @ts-nocheck',
    `// Generated from schemas/${name} by scripts/gen-types.mjs (npm run gen:types). Do not edit.`,
    "import { createRequire } from 'node:module';",
    'const require = createRequire(import.meta.url);',
    code.replace(/^"use strict";/, ''),
    '',
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(OUTPUT_FILE, await generateAccordFileTypes());
  writeFileSync(VALIDATOR_FILE, generateAccordFileValidator());
  mkdirSync(dirname(PLAN_VALIDATOR_FILE), { recursive: true });
  writeFileSync(PLAN_VALIDATOR_FILE, generatePlanValidator());
  console.log(`wrote ${OUTPUT_FILE}, ${VALIDATOR_FILE} and ${PLAN_VALIDATOR_FILE}`);
}
