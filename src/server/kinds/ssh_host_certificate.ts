// SSH host certificates (shared/SPEC.md "SSH host certificates"): really signed, in the OpenSSH
// certificate format, by the named SSH certificate authority's key.
import { randomBytes } from 'node:crypto';
import { signHostCertificate } from '../../crypto/sshcert.js';
import { parseSshPublicKey, SshKeyError, type SshPublicKey } from '../../crypto/sshkey.js';
import type { Collection, JsonObject } from '../collections.js';
import { ServiceError } from '../errors.js';
import { timestamp } from '../http.js';
import { caSigningKey } from './ssh_certificate_authority.js';

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
