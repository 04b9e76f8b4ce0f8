// A kind of an existing shape, added through the registry in a few lines: a made-up second kind of
// certificate authorities (its own section, paths, list key and ID prefix) is planned, applied and
// planned again against a stub of its collection, beside the in-memory account for every other kind.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLiveState } from '../../src/account/read.js';
import { applyPlan } from '../../src/apply/executor.js';
import type { ApplyClient } from '../../src/apply/types.js';
import type { DesiredState } from '../../src/config/model.js';
import { parseCaPem } from '../../src/crypto/pem.js';
import { parseEdgeIds } from '../../src/export/read.js';
import { plan } from '../../src/plan/planner.js';
import { matchesPattern } from '../../src/plan/select.js';
import { descriptorFor, managedDescriptors, registerKind } from '../../src/resources/index.js';
import { edgeModulePlace } from '../../src/resources/shapes/edge_module.js';
import {
  type UploadedCertificate,
  uploadedCertificateShape,
} from '../../src/resources/shapes/uploaded_certificate.js';
import { tcpEdgeIpRestriction } from '../../src/resources/tcp_edge_ip_restriction.js';
import type { LiveObject } from '../../src/resources/values.js';
import { desiredState, ipr, NOW, OPTIONS, tcpModule } from '../plan/fixtures.js';
import { FakeAccount } from '../support/account.js';
import { makeCaPemSync } from '../support/ca.js';

const stagingCas = uploadedCertificateShape({
  kind: 'staging_certificate_authority',
  section: 'staging_certificate_authorities',
  nouns: { one: 'staging certificate authority', many: 'staging certificate authorities' },
  idPrefix: 'stca_',
  collectionPath: '/staging/certificate_authorities',
  listKey: 'authorities',
  itemPath: (id) => `/staging/certificate_authorities/${id}`,
});

const dir = mkdtempSync(join(tmpdir(), 'accord-registry-'));
const PEMS = ['one', 'two'].map((n) => readFileSync(makeCaPemSync(dir, n, { days: 400 }), 'utf8'));

/** An entry of the kind, as reading `staging_certificate_authorities.<key>` would make it. */
function entry(key: string, pem: string): UploadedCertificate<'staging_certificate_authority'> {
  const ca = parseCaPem(pem);
  return {
    kind: 'staging_certificate_authority',
    key,
    description: '',
    protect: false,
    loc: { file: '/w/accord.yaml', line: 1, col: 1 },
    ca_pem: pem,
    ca_sha256: ca.sha256,
    subject_common_name: ca.subjectCommonName,
    not_before: ca.notBefore.toISOString(),
    not_after: ca.notAfter.toISOString(),
  };
}

/** The kind's collection as a service would serve it; every other path goes to `rest`. */
function stubbed(rest: ApplyClient): ApplyClient & { objects: Map<string, LiveObject> } {
  const objects = new Map<string, LiveObject>();
  const { collectionPath, listKey } = stagingCas;
  const ours = (path: string) => path === collectionPath || path.startsWith(`${collectionPath}/`);
  let n = 0;
  return {
    objects,
    listAll: <T>(path: string, key: string) => {
      if (!ours(path)) return rest.listAll<T>(path, key);
      expect(key).toBe(listKey);
      return (async function* () {
        for (const o of [...objects.values()].reverse()) yield o as T;
      })();
    },
    post: async <T>(path: string, body: unknown) => {
      if (!ours(path)) return rest.post<T>(path, body);
      const { ca_pem, description, metadata } = body as Record<string, string>;
      const ca = parseCaPem(ca_pem!);
      const id = `${stagingCas.idPrefix}${++n}`;
      const object = {
        id,
        uri: `http://x${stagingCas.itemPath(id)}`,
        created_at: NOW.toISOString(),
        description,
        metadata,
        ca_pem: `${ca_pem!.trim()}\n`,
        subject_common_name: ca.subjectCommonName,
        not_before: ca.notBefore.toISOString(),
        not_after: ca.notAfter.toISOString(),
      };
      objects.set(id, object);
      return object as T;
    },
    patch: (path, body) => rest.patch(path, body),
    put: (path, body) => rest.put(path, body),
    delete: async (path) => {
      if (!ours(path)) return rest.delete(path);
      objects.delete(path.slice(collectionPath.length + 1));
    },
  };
}

describe('a kind registered through the registry', () => {
  let restore: () => void;
  beforeEach(() => {
    restore = registerKind(stagingCas);
  });
  afterEach(() => restore());

  it('is planned, applied and planned again like a listed kind', async () => {
    const account = new FakeAccount(NOW);
    const client = stubbed({ ...account.client() });
    const run = async (entries: UploadedCertificate<'staging_certificate_authority'>[]) => {
      const desired = desiredState({ staging_certificate_authorities: entries } as Partial<DesiredState>);
      const p = plan(
        desired,
        await readLiveState({ ...client, getOptional: async () => undefined }, desired),
        NOW,
        OPTIONS,
      );
      const ours = p.changes.filter((c) => (c.kind as string) === stagingCas.kind && c.action !== 'no-op');
      const result = await applyPlan(p, client, { parallelism: 4 });
      expect(result.status).toBe('complete');
      return ours.map((c) => [c.action, c.address]);
    };

    expect(await run([entry('root', PEMS[0]!)])).toEqual([
      ['create', 'staging_certificate_authorities.root'],
    ]);
    expect([...client.objects.values()].map((o) => o['subject_common_name'])).toEqual(['one']);
    expect(await run([entry('root', PEMS[0]!)])).toEqual([]);

    expect(await run([entry('root', PEMS[1]!)])).toEqual([
      ['replace', 'staging_certificate_authorities.root'],
    ]);
    expect([...client.objects.values()].map((o) => o['subject_common_name'])).toEqual(['two']);
    expect(await run([entry('root', PEMS[1]!)])).toEqual([]);

    expect(await run([])).toEqual([['delete', 'staging_certificate_authorities.root']]);
    expect(client.objects.size).toBe(0);
  });

  it('is looked up by kind, and taken out again by what registering returned', () => {
    expect(descriptorFor(stagingCas.kind as never)).toBe(stagingCas);
    const count = managedDescriptors.length;
    restore();
    expect(managedDescriptors).toHaveLength(count - 1);
    expect(() => descriptorFor(stagingCas.kind as never)).toThrow(/no descriptor/);
    restore = registerKind(stagingCas);
  });

  it('refuses a kind or a section registered already', () => {
    expect(() => registerKind(stagingCas)).toThrow(/staging_certificate_authority .* is registered already/);
    const [listed] = managedDescriptors;
    const clash = uploadedCertificateShape({ ...stagingCas, kind: 'other', section: listed!.section });
    expect(() => registerKind(clash)).toThrow(/is registered already/);
  });
});

describe('what is derived from the registry sees a kind registered after it was first used', () => {
  /** A made-up module kind: the TCP edges' IP restriction module, on TLS edges. */
  const tlsModules = {
    ...tcpEdgeIpRestriction,
    ...edgeModulePlace({
      section: 'tls_edges',
      edgesPath: '/edges/tls',
      edge: { noun: 'TLS edge', idPrefix: 'edgtls_' },
      module: 'ip_restriction',
    }),
    kind: 'tls_edge_ip_restriction',
    list: 'tls_edge_ip_restrictions',
    listing: undefined,
  } as unknown as typeof tcpEdgeIpRestriction;
  const address = 'tls_edges.edgtls_1.ip_restriction';

  it('the plan orders a registered managed kind after the listed ones, before the modules', async () => {
    const account = new FakeAccount(NOW);
    const client = stubbed({ ...account.client() });
    const desired = desiredState({
      staging_certificate_authorities: [entry('root', PEMS[0]!)],
      ip_restrictions: [ipr('office')],
      tcp_edge_ip_restrictions: [tcpModule('edgtcp_1', { enabled: false })],
    } as Partial<DesiredState>);
    const kinds = async () => {
      const live = await readLiveState({ ...client, getOptional: async () => undefined }, desired);
      const p = plan(desired, live, NOW, OPTIONS);
      return [...new Set(p.changes.filter((c) => c.action !== 'no-op').map((c) => c.kind as string))];
    };
    // Planned once before, so that whatever a module derives from the registry is derived already.
    expect(await kinds()).toEqual(['ip_restriction', 'tcp_edge_ip_restriction']);
    const restore = registerKind(stagingCas);
    try {
      expect(await kinds()).toEqual(['ip_restriction', stagingCas.kind, 'tcp_edge_ip_restriction']);
    } finally {
      restore();
    }
  });

  it('--target EDGE selects a registered module kind’s modules, and export --edges takes its edges', () => {
    const change = { kind: tlsModules.kind, address } as never;
    expect(matchesPattern('tls_edges.edgtls_1', change)).toBe(false);
    expect(() => parseEdgeIds(['edgtls_1'])).toThrow(/is not an edge ID/);
    const restore = registerKind(tlsModules);
    try {
      expect(tlsModules.address({ edge_id: 'edgtls_1' })).toBe(address);
      expect(matchesPattern('tls_edges.edgtls_1', change)).toBe(true);
      expect(parseEdgeIds(['edgtls_1'])).toEqual(['edgtls_1']);
    } finally {
      restore();
    }
    expect(matchesPattern('tls_edges.edgtls_1', change)).toBe(false);
  });
});
