// src/plan/types.ts and schemas/plan.schema.json describe the same data: the key lists below are
// checked against the types by the compiler (`satisfies`) and against the schema here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AddressSetSummary } from '../../src/net/cidr-set.js';
import type {
  ChangeSource,
  Plan,
  PlanChange,
  PlannedRequest,
  PlanSafety,
  PlanSelection,
  PlanSummary,
  ScopeReachJson,
} from '../../src/plan/types.js';
import { managedDescriptors, moduleDescriptors } from '../../src/resources/index.js';

const schema = JSON.parse(readFileSync(new URL('../../schemas/plan.schema.json', import.meta.url), 'utf8'));

const PLAN = {
  format_version: true,
  tool_version: true,
  api_url: true,
  owner: true,
  created_at: true,
  files: true,
  config_digest: true,
  file_digests: false,
  safe: true,
  unsafe_reasons: true,
  unsafe_codes: false,
  safety: true,
  summary: true,
  changes: true,
  warnings: true,
  warning_codes: false,
  reach: true,
  reach_unchanged: true,
  selection: false,
} satisfies Record<keyof Plan, boolean>;
const SCOPE_REACH = {
  scope: true,
  address: false,
  before: true,
  after: true,
  let_in: true,
  shut_out: true,
  at_least: false,
  at_most: false,
} satisfies Record<keyof ScopeReachJson, boolean>;
const ADDRESS_SET = { everyone: true, cidrs: true, addresses: true } satisfies Record<
  keyof AddressSetSummary,
  true
>;
const CHANGE = {
  address: true,
  kind: true,
  key: true,
  id: true,
  action: true,
  replace_order: false,
  step: false,
  step_of: false,
  reasons: true,
  reason_codes: true,
  before: true,
  after: true,
  changed_fields: true,
  drift: true,
  depends_on: true,
  source: false,
  requests: true,
} satisfies Record<keyof PlanChange, boolean>;
const SOURCE = { file: true, line: true } satisfies Record<keyof ChangeSource, true>;
const SUMMARY = {
  create: true,
  patch: true,
  put: true,
  replace: true,
  delete: true,
  adopt: true,
  no_op: true,
  unmanaged: true,
  other_owners: true,
} satisfies Record<keyof PlanSummary, true>;
const SAFETY = {
  managed: true,
  destroyed: true,
  max_destroy_percent: true,
  threshold_exceeded: true,
  forced: true,
  protected: true,
} satisfies Record<keyof PlanSafety, true>;
const SELECTION = { target: true, exclude: true, left_out: true } satisfies Record<keyof PlanSelection, true>;
const REQUEST = { method: true, path: true, body: false } satisfies Record<keyof PlannedRequest, boolean>;

const required = (keys: Record<string, boolean>) =>
  Object.entries(keys)
    .filter(([, r]) => r)
    .map(([k]) => k)
    .sort();

describe('schemas/plan.schema.json matches src/plan/types.ts', () => {
  it.each([
    ['plan', schema, PLAN],
    ['change', schema.$defs.change, CHANGE],
    ['summary', schema.properties.summary, SUMMARY],
    ['safety', schema.properties.safety, SAFETY],
    ['request', schema.$defs.request, REQUEST],
    ['selection', schema.properties.selection, SELECTION],
    ['source', schema.$defs.change.properties.source, SOURCE],
    ['scope reach', schema.$defs.scopeReach, SCOPE_REACH],
    ['address set', schema.$defs.addressSet, ADDRESS_SET],
  ] as const)('%s', (_name, node, keys) => {
    expect(Object.keys(node.properties).sort()).toEqual(Object.keys(keys).sort());
    expect([...node.required].sort()).toEqual(required(keys));
    expect(node.additionalProperties).toBe(false);
  });
});

describe('schemas/plan.schema.json names every registered kind', () => {
  it('has the kinds of src/resources/index.ts, in registry order', () => {
    const kinds = [...managedDescriptors, ...moduleDescriptors].map((d) => d.kind);
    expect(schema.$defs.kind.enum).toEqual(kinds);
  });
});
