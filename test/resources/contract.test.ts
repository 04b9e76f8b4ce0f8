// Every registered descriptor against the real service (`accord serve` in-process): the service's answer
// to what a create sends (a module's PUT) normalizes to what the entry normalized to, compared as the
// planner compares them (each field's `equals`, optional fields only when set). A descriptor whose
// request and normalizations disagree would plan a change again after every apply. The entries are those
// of examples/accord.yaml, which holds at least one of every kind.
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { loadDesiredState } from '../../src/config/index.js';
import type { DesiredState } from '../../src/config/model.js';
import {
  desiredOf,
  type FieldSpec,
  managedDescriptors,
  moduleDescriptors,
} from '../../src/resources/index.js';
import { decodeMarker, encodeMarker } from '../../src/resources/marker.js';
import { jsonEqual } from '../../src/resources/values.js';
import { EXAMPLE, ROOT, useSeededService } from '../support/server.js';

const KEY = 'contract-test-key';
const service = useSeededService(KEY);
let state: DesiredState;
let client: ApiClient;

beforeAll(async () => {
  state = await loadDesiredState(EXAMPLE, ROOT);
  client = new ApiClient({ baseUrl: service.url, apiKey: KEY });
});

/** The fields where the live values disagree with the desired ones, with both values. */
function differing(
  fields: readonly FieldSpec[],
  live: Record<string, unknown>,
  desired: Record<string, unknown>,
) {
  return fields
    .filter((f) => !(f.optional && desired[f.name] === undefined))
    .filter((f) => !(f.equals ?? jsonEqual)(live[f.name], desired[f.name]))
    .map((f) => ({ field: f.name, desired: desired[f.name], live: live[f.name] }));
}

/** The IDs of the objects made here, by section and key: what references by key resolve to. */
const made = new Map<string, Map<string, string>>();

/** `after` with each reference by key replaced by the ID of the object made for that key. */
function resolved(fields: readonly FieldSpec[], after: Record<string, unknown>): Record<string, unknown> {
  const out = { ...after };
  for (const f of fields) {
    const section = f.references ?? f.referencesWithin?.section;
    const ids = section === undefined ? undefined : made.get(section);
    if (!ids) continue;
    const one = (v: unknown) => ids.get(String(v)) ?? String(v);
    if (f.referencesWithin) out[f.name] = f.referencesWithin.map(out[f.name], one);
    else
      out[f.name] = Array.isArray(out[f.name])
        ? (out[f.name] as unknown[]).map(one).sort()
        : one(out[f.name]);
  }
  return out;
}

describe('descriptors agree with the service', () => {
  it.each(managedDescriptors.map((d) => [d.kind, d] as const))(
    '%s: normalizeLive(POST createBody(after)) equals after = normalizeDesired(entry)',
    async (_kind, d) => {
      const entries = desiredOf(d, state);
      expect(entries.length, `examples/accord.yaml has no ${d.nouns.one}`).toBeGreaterThan(0);
      for (const entry of entries) {
        // Kinds are in registry order: what an entry names by key was made before it.
        const after = resolved(d.fields, d.normalizeDesired(entry));
        // The shared fields as a create sends them: a kind with no fields of its own (an IP policy) is
        // still checked on its description and its ownership marker.
        const body = {
          ...d.createBody(after, new Date()),
          ...(entry.description !== '' ? { description: entry.description } : {}),
          metadata: encodeMarker('contract', entry.key, entry.protect, entry.data),
        };
        // As the applier sends it (a traffic policy as text).
        const answer = await client.post<Record<string, unknown>>(
          d.collectionPath,
          d.wireBody?.(body) ?? body,
        );
        const where = `${d.section}.${entry.key}`;
        expect(differing(d.fields, d.normalizeLive(answer), after), where).toEqual([]);
        expect(String(answer['id']).startsWith(d.idPrefix), where).toBe(true);
        expect(answer['description'] ?? '', where).toBe(entry.description);
        expect(decodeMarker(answer['metadata']), where).toMatchObject({ owner: 'contract', key: entry.key });
        const ids = made.get(d.section) ?? new Map<string, string>();
        made.set(d.section, ids.set(entry.key, String(answer['id'])));
      }
    },
  );

  it.each(moduleDescriptors.map((d) => [d.kind, d] as const))(
    '%s: normalizeLive(PUT putBody(after)) equals after = normalizeDesired(entry)',
    async (_kind, d) => {
      const entries = desiredOf(d, state).filter((m) => m.state === 'present');
      expect(entries.length, `examples/accord.yaml configures no ${d.nouns.one}`).toBeGreaterThan(0);
      for (const entry of entries) {
        const after = resolved(d.fields, d.normalizeDesired(entry));
        const answer = await client.put<Record<string, unknown>>(d.path(entry), d.putBody(after));
        expect(differing(d.fields, d.normalizeLive(answer), after), d.address(entry)).toEqual([]);
      }
    },
  );
});
