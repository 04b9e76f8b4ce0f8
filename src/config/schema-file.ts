// The JSON Schemas that ship in the package, and the `$schema` comment every accord.yaml accord writes
// starts with: the schema file sits beside the YAML (`accord init` and `accord export` put it there,
// `accord schema > accord.schema.json` does for any other layout), so the comment is true whatever the
// install (global, local, none in the repository at all).
import { readFileSync } from 'node:fs';
import { packageFile } from '../package-files.js';

export const SCHEMA_FILE = 'accord.schema.json';

/** The first line of a desired-state file accord writes (without the leading `#`). */
export const SCHEMA_COMMENT = ` yaml-language-server: $schema=./${SCHEMA_FILE}`;

const SCHEMAS = {
  desired: packageFile('schemas/accord.schema.json'),
  plan: packageFile('schemas/plan.schema.json'),
} as const;

/** The text of the desired-state file's schema, or the saved plan's, as the package holds it. */
export function schemaText(which: keyof typeof SCHEMAS): string {
  return readFileSync(SCHEMAS[which], 'utf8');
}
