// Minimal local endpoints for the objects shared/SPEC.md only references (DESIGN §7): IP policies, SSH
// certificate authorities, TCP edges, HTTPS edges and their routes. Field names follow the production service.
import { generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { sshPublicKeyLine, sshSigningKey } from '../../crypto/sshcert.js';
import type { Collection, JsonObject, ServiceContext } from '../collections.js';
import { ServiceError } from '../errors.js';
import { forgetSigningKey } from './spec.js';

const generate = promisify(generateKeyPair);

export const ipPolicies: Collection = {
  kind: 'ip_policy',
  noun: 'IP policy',
  listKey: 'ip_policies',
  route: '/ip_policies',
  collectionPath: () => '/ip_policies',
  createSchema: 'ip_policy.create',
  create: () => ({ fields: {} }),
  beforeDelete: (ctx, id) => {
    const users = ctx.store.referencing(['ip_restriction'], id);
    if (users.length > 0) {
      throw new ServiceError(
        'ERR_IN_USE',
        `IP policy "${id}" is still used by ${users.map((u) => u.replace(/^tcp_ip_restriction:/, 'the IP restriction module of ')).join(', ')}; detach it first`,
      );
    }
  },
};

const CURVES: Record<string, string> = { p256: 'P-256', p384: 'P-384', p521: 'P-521' };

/** Makes an SSH CA key pair; returns its private key as PKCS#8 PEM. */
export async function generateSshCaKey(body: JsonObject): Promise<string> {
  const type = (body.private_key_type as string | undefined) ?? 'ed25519';
  if (type !== 'ecdsa' && body.elliptic_curve !== undefined) {
    throw new ServiceError(
      'ERR_INVALID_FIELD',
      'field "elliptic_curve" applies only to private_key_type ecdsa',
    );
  }
  if (type !== 'rsa' && body.key_size !== undefined) {
    throw new ServiceError('ERR_INVALID_FIELD', 'field "key_size" applies only to private_key_type rsa');
  }
  let pair: { privateKey: KeyObject };
  if (type === 'rsa') {
    pair = await generate('rsa', { modulusLength: (body.key_size as number | undefined) ?? 4096 });
  } else if (type === 'ecdsa') {
    pair = await generate('ec', {
      namedCurve: CURVES[(body.elliptic_curve as string | undefined) ?? 'p256']!,
    });
  } else {
    pair = await generate('ed25519', undefined);
  }
  return pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}

export function sshCaFields(privateKeyPem: string): JsonObject {
  const key = sshSigningKey(privateKeyPem);
  return { public_key: sshPublicKeyLine(key), key_type: key.keyType };
}

export const sshCertificateAuthorities: Collection<string> = {
  kind: 'ssh_certificate_authority',
  noun: 'SSH certificate authority',
  listKey: 'ssh_certificate_authorities',
  route: '/ssh_certificate_authorities',
  collectionPath: () => '/ssh_certificate_authorities',
  createSchema: 'ssh_certificate_authority.create',
  prepare: generateSshCaKey,
  create: (_ctx, _body, _id, privateKey) => ({ fields: sshCaFields(privateKey), secret: privateKey }),
  beforeDelete: (ctx: ServiceContext, id: string) => forgetSigningKey(ctx, id),
};

const hostports = (body: JsonObject) => ({ hostports: (body.hostports as string[] | undefined) ?? [] });

export const tcpEdges: Collection = {
  kind: 'tcp_edge',
  noun: 'TCP edge',
  listKey: 'tcp_edges',
  route: '/edges/tcp',
  collectionPath: () => '/edges/tcp',
  createSchema: 'tcp_edge.create',
  create: (_ctx, body) => ({ fields: hostports(body) }),
};

export const httpsEdges: Collection = {
  kind: 'https_edge',
  noun: 'HTTPS edge',
  listKey: 'https_edges',
  route: '/edges/https',
  collectionPath: () => '/edges/https',
  createSchema: 'https_edge.create',
  create: (_ctx, body) => ({ fields: hostports(body) }),
};

export const httpsEdgeRoutes: Collection = {
  kind: 'https_edge_route',
  noun: 'HTTPS edge route',
  listKey: 'routes',
  route: '/edges/https/:edge_id/routes',
  collectionPath: (edgeId) => `/edges/https/${edgeId}/routes`,
  parent: { kind: 'https_edge', noun: 'HTTPS edge', param: 'edge_id' },
  createSchema: 'https_edge_route.create',
  create: (_ctx, body) => ({ fields: { match_type: body.match_type, match: body.match } }),
};
