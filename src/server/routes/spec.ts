// The three resource groups of shared/SPEC.md: IP restrictions, certificate authorities, SSH host certificates.
import { randomBytes } from 'node:crypto';
import { PemError, parseCaPem } from '../../crypto/pem.js';
import { type SshSigningKey, signHostCertificate, sshSigningKey } from '../../crypto/sshcert.js';
import { parseSshPublicKey, SshKeyError, type SshPublicKey } from '../../crypto/sshkey.js';
import { type Collection, ipPolicyRefs, type JsonObject, type ServiceContext } from '../collections.js';
import { ServiceError } from '../errors.js';
import { timestamp } from '../http.js';

export const ipRestrictions: Collection = {
  kind: 'ip_restriction',
  noun: 'IP restriction',
  listKey: 'ip_restrictions',
  route: '/ip_restrictions',
  collectionPath: () => '/ip_restrictions',
  createSchema: 'ip_restriction.create',
  updateSchema: 'ip_restriction.update',
  create: (ctx, body) => {
    const type = body.type as string;
    const policies = ipPolicyRefs(ctx, body.ip_policy_ids as string[]);
    for (const json of ctx.store.all('ip_restriction')) {
      const other = JSON.parse(json) as { id: string; type: string };
      if (other.type === type) {
        throw new ServiceError(
          'ERR_IP_RESTRICTION_TYPE_TAKEN',
          `the account already has an IP restriction of type "${type}" (${other.id}); only one per type is allowed, update or delete that one`,
        );
      }
    }
    return { fields: { enforced: body.enforced ?? false, type, ip_policies: policies } };
  },
  // The Python client sends `"ip_policy_ids": []` on every update that does not set them; since a
  // restriction needs at least one policy, an empty list can only mean "leave them as they are".
  updateDialect: (body) => {
    if (!Array.isArray(body.ip_policy_ids) || body.ip_policy_ids.length > 0) return body;
    const { ip_policy_ids: _unchanged, ...rest } = body;
    return rest;
  },
  update: (ctx, current, body) => {
    if (body.enforced !== undefined) current.enforced = body.enforced;
    if (body.ip_policy_ids !== undefined)
      current.ip_policies = ipPolicyRefs(ctx, body.ip_policy_ids as string[]);
  },
};

export const certificateAuthorities: Collection = {
  kind: 'certificate_authority',
  noun: 'certificate authority',
  listKey: 'certificate_authorities',
  route: '/certificate_authorities',
  collectionPath: () => '/certificate_authorities',
  createSchema: 'certificate_authority.create',
  updateSchema: 'certificate_authority.update',
  create: (_ctx, body) => {
    const pem = body.ca_pem as string;
    let cert: ReturnType<typeof parseCaPem>;
    try {
      cert = parseCaPem(pem);
    } catch (err) {
      if (err instanceof PemError) throw new ServiceError('ERR_INVALID_PEM', `ca_pem ${err.message}`);
      throw err;
    }
    return {
      fields: {
        ca_pem: `${pem.trim()}\n`,
        subject_common_name: cert.subjectCommonName,
        not_before: timestamp(cert.notBefore),
        not_after: timestamp(cert.notAfter),
        key_usages: [],
        extended_key_usages: [],
      },
    };
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

export function forgetSigningKey(ctx: ServiceContext, caId: string): void {
  signingKeys.get(ctx)?.delete(caId);
}

function instant(body: JsonObject, field: string): Date | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  const date = new Date(value as string);
  if (Number.isNaN(date.getTime()) || date.getTime() < 0) {
    throw new ServiceError('ERR_INVALID_FIELD', `field "${field}" is not a timestamp after 1970`);
  }
  return date;
}

export const sshHostCertificates: Collection = {
  kind: 'ssh_host_certificate',
  noun: 'SSH host certificate',
  listKey: 'ssh_host_certificates',
  route: '/ssh_host_certificates',
  collectionPath: () => '/ssh_host_certificates',
  createSchema: 'ssh_host_certificate.create',
  updateSchema: 'ssh_host_certificate.update',
  create: (ctx, body, id) => {
    const caId = body.ssh_certificate_authority_id as string;
    const ca = caSigningKey(ctx, caId);
    let publicKey: SshPublicKey;
    try {
      publicKey = parseSshPublicKey(body.public_key as string);
    } catch (err) {
      if (err instanceof SshKeyError)
        throw new ServiceError('ERR_INVALID_PUBLIC_KEY', `public_key: ${err.message}`);
      throw err;
    }
    const now = ctx.now();
    const validAfter = instant(body, 'valid_after') ?? now;
    let validUntil = instant(body, 'valid_until');
    if (!validUntil) {
      validUntil = new Date(now);
      validUntil.setUTCFullYear(validUntil.getUTCFullYear() + 1);
    }
    const afterSeconds = Math.floor(validAfter.getTime() / 1000);
    const untilSeconds = Math.floor(validUntil.getTime() / 1000);
    if (untilSeconds <= afterSeconds) {
      throw new ServiceError('ERR_INVALID_FIELD', 'field "valid_until" must be later than "valid_after"');
    }
    const principals = (body.principals as string[] | undefined) ?? [];
    const certificate = signHostCertificate({
      publicKey,
      ca,
      principals,
      validAfter: BigInt(afterSeconds),
      validBefore: BigInt(untilSeconds),
      serial: randomBytes(8).readBigUInt64BE() >> 1n,
      keyId: id,
    });
    return {
      fields: {
        public_key: (body.public_key as string).trim(),
        key_type: publicKey.keyType,
        ssh_certificate_authority_id: caId,
        principals,
        valid_after: timestamp(new Date(afterSeconds * 1000)),
        valid_until: timestamp(new Date(untilSeconds * 1000)),
        certificate,
      },
    };
  },
};
