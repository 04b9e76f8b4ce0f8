// Request bodies are checked against schemas/api/*.json, compiled once at start-up; then the byte limits
// (SPEC: Limits), which JSON Schema cannot express in UTF-8 bytes. A schema names the production
// service's code for a failure of one of its keywords where there is one (`"x-error-codes": {"minItems":
// "ERR_NGROK_1804"}` beside the keyword); other failures have the service's own codes.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { packageFile } from '../package-files.js';
import { ERROR_CODES, type ErrorCode, ServiceError } from './errors.js';

const SCHEMA_DIR = packageFile('schemas/api');

export const BYTE_LIMITS: Record<string, number> = { description: 255, metadata: 4096 };

export type BodyValidator = (body: unknown) => Record<string, unknown>;

// ajv-formats is CommonJS with a default export; under NodeNext it arrives as the module namespace.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** Compiles every request schema; returns a validator per schema name (file name without `.json`). */
export function compileBodyValidators(): Map<string, BodyValidator> {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  addFormats(ajv);
  ajv.addKeyword({ keyword: CODES_KEYWORD, schemaType: 'object' });
  const schemas = new Map<string, Record<string, unknown>>();
  for (const file of readdirSync(SCHEMA_DIR)) {
    if (!file.endsWith('.json')) continue;
    const schema = JSON.parse(readFileSync(join(SCHEMA_DIR, file), 'utf8')) as Record<string, unknown>;
    schemas.set(file.slice(0, -'.json'.length), schema);
  }
  const validators = new Map<string, BodyValidator>();
  for (const [name, schema] of schemas) {
    const validate = ajv.compile(schema);
    // A field the create takes and the update does not is fixed once the object exists.
    const create = name.endsWith('.update') ? schemas.get(name.replace(/\.update$/, '.create')) : undefined;
    const fixed = new Set(Object.keys(properties(create)).filter((f) => !(f in properties(schema))));
    validators.set(name, (body) => checkBody(validate, schema, fixed, body));
  }
  return validators;
}

function properties(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  return (schema?.properties as Record<string, unknown> | undefined) ?? {};
}

function checkBody(
  validate: ValidateFunction,
  schema: Record<string, unknown>,
  fixed: Set<string>,
  body: unknown,
): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ServiceError('ERR_INVALID_JSON', 'the request body must be a JSON object');
  }
  if (!validate(body)) throw describeFailure(validate.errors ?? [], schema, fixed);
  const record = body as Record<string, unknown>;
  for (const [field, max] of Object.entries(BYTE_LIMITS)) {
    const value = record[field];
    if (typeof value === 'string' && Buffer.byteLength(value, 'utf8') > max) {
      throw new ServiceError(
        'ERR_FIELD_TOO_LONG',
        `"${field}" is ${Buffer.byteLength(value, 'utf8')} bytes of UTF-8; the limit is ${max} bytes`,
      );
    }
  }
  return record;
}

const CODES_KEYWORD = 'x-error-codes';

/** The code the schema names for this failure, beside the keyword that failed; undefined for none. */
function annotatedCode(schema: Record<string, unknown>, error: ErrorObject): ErrorCode | undefined {
  const steps = error.schemaPath.replace(/^#\//, '').split('/');
  steps.pop();
  let node: unknown = schema;
  for (const step of steps) node = (node as Record<string, unknown> | undefined)?.[step.replace(/~1/g, '/')];
  if (error.keyword === 'required') {
    node = properties(node as Record<string, unknown>)[
      String((error.params as { missingProperty: string }).missingProperty)
    ];
  }
  const code = ((node as Record<string, unknown> | undefined)?.[CODES_KEYWORD] as Record<string, string>)?.[
    error.keyword
  ];
  return code !== undefined && Object.hasOwn(ERROR_CODES, code) ? (code as ErrorCode) : undefined;
}

function fieldName(error: ErrorObject): string {
  return error.instancePath
    .split('/')
    .slice(1)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
}

/** The most useful error first: unknown fields, then missing ones, then bad values. */
function describeFailure(
  errors: ErrorObject[],
  schema: Record<string, unknown>,
  fixed: Set<string>,
): ServiceError {
  const allowed = Object.keys(properties(schema)).join(', ');
  const unknown = errors.find((e) => e.keyword === 'additionalProperties' && e.instancePath === '');
  if (unknown) {
    const name = String((unknown.params as { additionalProperty: string }).additionalProperty);
    const what = fixed.has(name)
      ? `field "${name}" cannot be changed once the object exists (delete it and create another)`
      : `unknown field "${name.slice(0, 64)}"`;
    return new ServiceError('ERR_UNKNOWN_FIELD', `${what}; this request accepts: ${allowed}`);
  }
  const missing = errors.find((e) => e.keyword === 'required');
  if (missing) {
    const name = String((missing.params as { missingProperty: string }).missingProperty);
    return new ServiceError(
      annotatedCode(schema, missing) ?? 'ERR_MISSING_FIELD',
      `missing required field "${name}"`,
    );
  }
  const first = errors[0];
  const field = first ? fieldName(first) : '';
  let detail = first?.message ?? 'is not valid';
  if (first?.keyword === 'enum') {
    detail = `must be one of ${(first.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  } else if (first?.keyword === 'pattern' && field.startsWith('ip_policy_id')) {
    detail = 'must be an IP policy ID (ipp_ followed by 27 letters and digits)';
  } else if (first?.keyword === 'pattern' && field === 'ssh_certificate_authority_id') {
    detail = 'must be an SSH certificate authority ID (sshca_ followed by 27 letters and digits)';
  } else if (first?.keyword === 'format') {
    detail = 'must be an RFC 3339 timestamp such as 2027-06-01T00:00:00Z';
  }
  const code = first ? annotatedCode(schema, first) : undefined;
  return new ServiceError(code ?? 'ERR_INVALID_FIELD', `field "${field}" ${detail}`);
}
