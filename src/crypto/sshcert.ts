// OpenSSH host certificates (OpenSSH PROTOCOL.certkeys), encoded and signed with node:crypto.
// Written directly because the format is small and libraries refuse empty principals, which the
// spec requires ("valid for all hosts").
import { createPrivateKey, createPublicKey, type KeyObject, randomBytes, sign } from 'node:crypto';
import type { SshKeyType, SshPublicKey } from './sshkey.js';

const HOST_CERT = 2;

/** Writes SSH wire-format fields. */
class SshWriter {
  private readonly parts: Buffer[] = [];

  string(value: Buffer | string): this {
    const buf = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    const len = Buffer.alloc(4);
    len.writeUInt32BE(buf.length);
    this.parts.push(len, buf);
    return this;
  }

  /** An unsigned big-endian integer as an mpint (leading zero when the high bit is set). */
  mpint(unsigned: Buffer): this {
    let i = 0;
    while (i < unsigned.length && unsigned[i] === 0) i++;
    let v = unsigned.subarray(i);
    if (v.length > 0 && (v[0]! & 0x80) !== 0) v = Buffer.concat([Buffer.from([0]), v]);
    return this.string(v);
  }

  uint32(value: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(value);
    this.parts.push(b);
    return this;
  }

  uint64(value: bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(value);
    this.parts.push(b);
    return this;
  }

  raw(buf: Buffer): this {
    this.parts.push(buf);
    return this;
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}

const CURVES: Record<string, { ssh: string; hash: string; coord: number }> = {
  'P-256': { ssh: 'nistp256', hash: 'sha256', coord: 32 },
  'P-384': { ssh: 'nistp384', hash: 'sha384', coord: 48 },
  'P-521': { ssh: 'nistp521', hash: 'sha512', coord: 66 },
};

export interface SshSigningKey {
  privateKey: KeyObject;
  /** Wire-format public key blob. */
  publicBlob: Buffer;
  /** Algorithm of the public key, e.g. `ssh-ed25519`. */
  algorithm: string;
  keyType: SshKeyType;
}

/** Loads a private key (PKCS#8 PEM) and derives its OpenSSH public key. */
export function sshSigningKey(privateKeyPem: string): SshSigningKey {
  const privateKey = createPrivateKey(privateKeyPem);
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  const w = new SshWriter();
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') {
    w.string('ssh-ed25519').string(Buffer.from(jwk.x!, 'base64url'));
    return { privateKey, publicBlob: w.toBuffer(), algorithm: 'ssh-ed25519', keyType: 'ed25519' };
  }
  if (jwk.kty === 'RSA') {
    w.string('ssh-rsa').mpint(Buffer.from(jwk.e!, 'base64url')).mpint(Buffer.from(jwk.n!, 'base64url'));
    return { privateKey, publicBlob: w.toBuffer(), algorithm: 'ssh-rsa', keyType: 'rsa' };
  }
  const curve = jwk.kty === 'EC' ? CURVES[jwk.crv ?? ''] : undefined;
  if (curve) {
    const algorithm = `ecdsa-sha2-${curve.ssh}`;
    const q = Buffer.concat([
      Buffer.from([4]),
      Buffer.from(jwk.x!, 'base64url'),
      Buffer.from(jwk.y!, 'base64url'),
    ]);
    w.string(algorithm).string(curve.ssh).string(q);
    return { privateKey, publicBlob: w.toBuffer(), algorithm, keyType: 'ecdsa' };
  }
  throw new Error(`unsupported SSH CA key (${jwk.kty} ${jwk.crv ?? ''})`);
}

/** `algorithm base64` of a signing key, as authorized_keys and known_hosts want it. */
export function sshPublicKeyLine(key: SshSigningKey): string {
  return `${key.algorithm} ${key.publicBlob.toString('base64')}`;
}

function signatureBlob(key: SshSigningKey, data: Buffer): Buffer {
  const w = new SshWriter();
  if (key.keyType === 'ed25519') {
    return w
      .string('ssh-ed25519')
      .string(sign(null, data, key.privateKey))
      .toBuffer();
  }
  if (key.keyType === 'rsa') {
    return w
      .string('rsa-sha2-512')
      .string(sign('sha512', data, key.privateKey))
      .toBuffer();
  }
  const jwk = key.privateKey.export({ format: 'jwk' });
  const curve = CURVES[jwk.crv ?? '']!;
  const sig = sign(curve.hash, data, { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  const inner = new SshWriter()
    .mpint(sig.subarray(0, curve.coord))
    .mpint(sig.subarray(curve.coord))
    .toBuffer();
  return w.string(key.algorithm).string(inner).toBuffer();
}

export interface HostCertificateRequest {
  publicKey: SshPublicKey;
  ca: SshSigningKey;
  principals: string[];
  /** Seconds since the epoch. */
  validAfter: bigint;
  validBefore: bigint;
  serial: bigint;
  keyId: string;
  nonce?: Buffer;
}

/** Signs a host certificate and returns it as one authorized_keys-format line (`<type>-cert-v01@openssh.com <base64>`). */
export function signHostCertificate(req: HostCertificateRequest): string {
  const certType = `${req.publicKey.algorithm}-cert-v01@openssh.com`;
  // The key's own public fields follow its algorithm name in the public key blob.
  const keyFields = req.publicKey.blob.subarray(4 + Buffer.byteLength(req.publicKey.algorithm));
  const principals = new SshWriter();
  for (const p of req.principals) principals.string(p);
  const body = new SshWriter()
    .string(certType)
    .string(req.nonce ?? randomBytes(32))
    .raw(keyFields)
    .uint64(req.serial)
    .uint32(HOST_CERT)
    .string(req.keyId)
    .string(principals.toBuffer())
    .uint64(req.validAfter)
    .uint64(req.validBefore)
    .string(Buffer.alloc(0))
    .string(Buffer.alloc(0))
    .string(Buffer.alloc(0))
    .string(req.ca.publicBlob)
    .toBuffer();
  const cert = new SshWriter().raw(body).string(signatureBlob(req.ca, body)).toBuffer();
  return `${certType} ${cert.toString('base64')}`;
}
