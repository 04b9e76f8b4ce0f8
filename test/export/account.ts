// A hand-made account for export tests, built through the API directly (no accord file involved):
// descriptions that collide after slugging or are empty, metadata that is JSON, not JSON or too big for
// the marker, CAs, SSH host certificates of every key type and SSH CAs of every type, edge modules.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from '../../src/api/client.js';
import { sshPublicKeyLine, sshSigningKey } from '../../src/crypto/sshcert.js';
import { encodeMarker } from '../../src/resources/marker.js';
import { makeCaPem } from '../support/ca.js';
import { HOST_CA, HTTPS_EDGE, OFFICE, TCP_EDGE, VPN } from '../support/server.js';

export { HOST_CA, HTTPS_EDGE, OFFICE, TCP_EDGE, VPN } from '../support/server.js';

/** Descriptions, cycled: several collide once slugged, some are empty or not Latin. */
const DESCRIPTIONS = [
  'Web frontend',
  'web frontend',
  'WEB -- Frontend!',
  '',
  'Café Root',
  'cafe root',
  '日本のサーバー',
  '   ',
  'a'.repeat(200),
  'db.primary_01',
  'ssh-host-certificate-x',
  'Line one\nline two',
];

/** Metadata, cycled: unset, not JSON, JSON of several shapes, JSON that YAML cannot carry exactly. */
const METADATA: (string | undefined)[] = [
  undefined,
  'team=web; owner=ops',
  '{"team": "web", "tier": 1, "tags": ["a", "b"], "on": true, "nothing": null}',
  '[1, 2.5, "three"]',
  '42',
  '{"big": 12345678901234567890}',
  'yes',
  '{not json',
  '',
  '{"nested": {"deep": {"list": [{"k": "v: x # y"}]}}}',
];

/** Certificates made at test time with openssl (no private key is kept). */
export async function makeCaPems(count: number): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'accord-export-ca-'));
  try {
    return await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const out = await makeCaPem(dir, `ca${i}`, { subject: `/CN=Export Test CA ${i}`, days: 3650 });
        return readFileSync(out, 'utf8');
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Host public keys of every type the service signs, cycled. */
export function hostKeys(count: number): string[] {
  const kinds = [
    () => generateKeyPairSync('ed25519'),
    () => generateKeyPairSync('ec', { namedCurve: 'P-256' }),
    () => generateKeyPairSync('ec', { namedCurve: 'P-384' }),
    () => generateKeyPairSync('ec', { namedCurve: 'P-521' }),
    () => generateKeyPairSync('rsa', { modulusLength: 2048 }),
  ];
  return Array.from({ length: count }, (_, i) => {
    const { privateKey } = kinds[i % kinds.length]!();
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    return `${sshPublicKeyLine(sshSigningKey(pem))} host${i}@example.com`;
  });
}

export interface MadeAccount {
  /** Every ID made, by kind. */
  ids: { ip_restriction: string[]; certificate_authority: string[]; ssh_host_certificate: string[] };
  /** IDs made with another owner's marker. */
  otherOwner: string[];
  tcpEdges: string[];
  httpsEdges: string[];
  /** The metadata string each resource was made with, by ID. */
  metadata: Map<string, string | undefined>;
}

const pick = <T>(list: readonly T[], i: number): T => list[i % list.length]!;

/**
 * Makes `perKind` certificate authorities and SSH host certificates, the four IP restrictions (one per
 * type; the `endpoints` one and every tenth other resource marked by owner `team-b`), and edges with
 * modules. `pems` and `keys` hold at least `perKind` items.
 */
export async function makeAccount(
  client: ApiClient,
  perKind: number,
  pems: readonly string[],
  keys: readonly string[],
): Promise<MadeAccount> {
  const made: MadeAccount = {
    ids: { ip_restriction: [], certificate_authority: [], ssh_host_certificate: [] },
    otherOwner: [],
    tcpEdges: [],
    httpsEdges: [],
    metadata: new Map(),
  };
  const common = (i: number, other: boolean, kind: string) => {
    const description = pick(DESCRIPTIONS, i);
    const metadata = other
      ? encodeMarker('team-b', `${kind}-${i}`, false, { by: 'team-b' })
      : i === 7
        ? `{"blob": "${'x'.repeat(4070)}"}` // fits the service's limit, not the marker's
        : pick(METADATA, i);
    return {
      ...(description !== '' ? { description } : {}),
      ...(metadata !== undefined ? { metadata } : {}),
    };
  };
  const record = (
    kind: keyof MadeAccount['ids'],
    obj: { id: string },
    body: { metadata?: string },
    other: boolean,
  ) => {
    made.ids[kind].push(obj.id);
    made.metadata.set(obj.id, body.metadata);
    if (other) made.otherOwner.push(obj.id);
  };

  const types = ['dashboard', 'api', 'agent', 'endpoints'] as const;
  for (const [i, type] of types.entries()) {
    const other = type === 'endpoints';
    const body = {
      type,
      enforced: i % 2 === 0,
      ip_policy_ids: i === 1 ? [OFFICE, VPN] : [OFFICE],
      ...common(i, other, 'ipr'),
    };
    record('ip_restriction', await client.post('/ip_restrictions', body), body, other);
  }

  for (let i = 0; i < perKind; i++) {
    const other = i % 10 === 9;
    const body = { ca_pem: pems[i]!, ...common(i, other, 'ca') };
    record('certificate_authority', await client.post('/certificate_authorities', body), body, other);
  }

  const sshCas = [HOST_CA];
  for (const body of [
    { private_key_type: 'ecdsa', elliptic_curve: 'p384', description: 'ecdsa CA' },
    { private_key_type: 'rsa', key_size: 2048, description: 'rsa CA' },
  ]) {
    sshCas.push((await client.post<{ id: string }>('/ssh_certificate_authorities', body)).id);
  }
  for (let i = 0; i < perKind; i++) {
    const other = i % 10 === 9;
    const body: Record<string, unknown> = {
      ssh_certificate_authority_id: pick(sshCas, i),
      public_key: keys[i]!,
      principals: i % 4 === 0 ? [] : [`host${i}.example.com`, `10.0.0.${i}`],
      ...common(i, other, 'ssh'),
    };
    if (i % 3 === 1) body['valid_after'] = '2026-01-01T00:00:00Z';
    if (i % 3 === 2) body['valid_until'] = '2030-06-01T12:30:00+02:00';
    record('ssh_host_certificate', await client.post('/ssh_host_certificates', body), body as never, other);
  }

  // Edges: the seeded ones plus new ones; some modules configured, some not.
  made.tcpEdges.push(TCP_EDGE);
  await client.put(`/edges/tcp/${TCP_EDGE}/ip_restriction`, { ip_policy_ids: [VPN, OFFICE] });
  for (let i = 0; i < 3; i++) {
    const edge = await client.post<{ id: string }>('/edges/tcp', { description: `tcp ${i}`, hostports: [] });
    made.tcpEdges.push(edge.id);
    if (i < 2)
      await client.put(`/edges/tcp/${edge.id}/ip_restriction`, { enabled: i === 0, ip_policy_ids: [OFFICE] });
  }
  made.httpsEdges.push(HTTPS_EDGE);
  await client.put(
    `/edges/https/${HTTPS_EDGE}/routes/edghtsrt_2demoApi0000000000000000000/websocket_tcp_converter`,
    {
      enabled: false,
    },
  );
  for (let e = 0; e < 2; e++) {
    const edge = await client.post<{ id: string }>('/edges/https', {
      description: `web ${e}`,
      hostports: [],
    });
    made.httpsEdges.push(edge.id);
    for (let r = 0; r < 3; r++) {
      const route = await client.post<{ id: string }>(`/edges/https/${edge.id}/routes`, {
        match_type: 'path_prefix',
        match: `/r${r}`,
      });
      if (r < 2) {
        await client.put(`/edges/https/${edge.id}/routes/${route.id}/websocket_tcp_converter`, {
          enabled: r === 0,
        });
      }
    }
  }
  return made;
}
