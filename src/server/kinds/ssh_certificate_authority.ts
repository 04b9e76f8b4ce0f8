// SSH certificate authorities, which shared/SPEC.md only references (DESIGN §7): a key pair made by the
// service (or given in the seed); the private key never leaves it. A PATCH sets description and metadata.
import { generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { type SshSigningKey, sshPublicKeyLine, sshSigningKey } from '../../crypto/sshcert.js';
import type { Collection, JsonObject, ServiceContext } from '../collections.js';
import { ServiceError } from '../errors.js';

const generate = promisify(generateKeyPair);
const CURVES: Record<string, string> = { p256: 'P-256', p384: 'P-384', p521: 'P-521' };

/** Makes an SSH CA key pair; returns its private key as PKCS#8 PEM. */
async function generateSshCaKey(body: JsonObject): Promise<string> {
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

export const sshCertificateAuthorities: Collection<string> = {
  kind: 'ssh_certificate_authority',
  noun: 'SSH certificate authority',
  listKey: 'ssh_certificate_authorities',
  route: '/ssh_certificate_authorities',
  createSchema: 'ssh_certificate_authority.create',
  updateSchema: 'ssh_certificate_authority.update',
  prepare: generateSshCaKey,
  create: (_ctx, _body, _id, privateKey) => {
    const key = sshSigningKey(privateKey);
    return { fields: { public_key: sshPublicKeyLine(key), key_type: key.keyType }, secret: privateKey };
  },
  beforeDelete: (ctx, id) => signingKeys.get(ctx)?.delete(id),
  seed: {
    section: 'ssh_certificate_authorities',
    extra: {
      field: 'private_key',
      prepare: (value) => {
        try {
          sshSigningKey(String(value));
        } catch {
          throw new ServiceError(
            'ERR_INVALID_FIELD',
            'private_key is not a PEM private key of type ed25519, ecdsa or rsa',
          );
        }
        return String(value);
      },
    },
  },
};

const signingKeys = new WeakMap<ServiceContext, Map<string, SshSigningKey>>();

/** The private key of an SSH certificate authority, parsed once per server. */
export function caSigningKey(ctx: ServiceContext, caId: string): SshSigningKey {
  let cache = signingKeys.get(ctx);
  if (!cache) {
    cache = new Map();
    signingKeys.set(ctx, cache);
  }
  let key = cache.get(caId);
  if (!key) {
    const row = ctx.store.get('ssh_certificate_authority', caId);
    if (!row?.secret) {
      throw new ServiceError(
        'ERR_REFERENCE_NOT_FOUND',
        `SSH certificate authority "${caId}" does not exist; create it first`,
      );
    }
    key = sshSigningKey(row.secret);
    cache.set(caId, key);
  }
  return key;
}
