// OpenSSH public keys in authorized_keys format (RFC 4253 §6.6, RFC 5656, RFC 8709), parsed strictly.
import { createPublicKey, type KeyObject } from 'node:crypto';

export type SshKeyType = 'rsa' | 'ecdsa' | 'ed25519';

export interface SshPublicKey {
  /** Wire algorithm name, e.g. `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`. */
  algorithm: string;
  keyType: SshKeyType;
  /** The key blob in SSH wire format. */
  blob: Buffer;
  comment: string;
  /** `algorithm base64`: the canonical form used for comparison (comment dropped). */
  canonical: string;
  /** Node key object, proving the key material is well formed. */
  keyObject: KeyObject;
}

export class SshKeyError extends Error {
  override name = 'SshKeyError';
}

const ECDSA_CURVES: Record<string, { nistName: string; jwkCrv: string; coordBytes: number }> = {
  'ecdsa-sha2-nistp256': { nistName: 'nistp256', jwkCrv: 'P-256', coordBytes: 32 },
  'ecdsa-sha2-nistp384': { nistName: 'nistp384', jwkCrv: 'P-384', coordBytes: 48 },
  'ecdsa-sha2-nistp521': { nistName: 'nistp521', jwkCrv: 'P-521', coordBytes: 66 },
};

/** Reads SSH wire-format fields (uint32-length-prefixed strings) from a buffer. */
export class SshReader {
  private offset = 0;
  constructor(private readonly buf: Buffer) {}

  string(): Buffer {
    if (this.offset + 4 > this.buf.length) throw new SshKeyError('key data is truncated');
    const len = this.buf.readUInt32BE(this.offset);
    const start = this.offset + 4;
    if (start + len > this.buf.length) throw new SshKeyError('key data is truncated');
    this.offset = start + len;
    return this.buf.subarray(start, start + len);
  }

  text(): string {
    return this.string().toString('latin1');
  }

  /** Whether the next string is `text` (ASCII), read past it when it is. */
  nextIs(text: string): boolean {
    const { buf, offset } = this;
    if (offset + 4 + text.length > buf.length || buf.readUInt32BE(offset) !== text.length) return false;
    for (let i = 0; i < text.length; i++) if (buf[offset + 4 + i] !== text.charCodeAt(i)) return false;
    this.offset = offset + 4 + text.length;
    return true;
  }

  /** An mpint as unsigned big-endian bytes without leading zeros. */
  mpint(): Buffer {
    const raw = this.string();
    if (raw.length > 0 && (raw[0]! & 0x80) !== 0) throw new SshKeyError('negative integer in key data');
    let i = 0;
    while (i < raw.length - 1 && raw[i] === 0) i++;
    return raw.subarray(i);
  }

  done(): boolean {
    return this.offset === this.buf.length;
  }
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** `algorithm base64 [comment]`, split at the first two runs of whitespace. */
const KEY_LINE = /^(\S+)\s+(\S+)(?:\s+([\s\S]*))?$/;

/**
 * Base64 text (of the alphabet, padded to a multiple of 4) that is the one encoding of its bytes: the
 * bits the last character holds past the data are zero.
 */
export function canonicalBase64(b64: string): boolean {
  if (!BASE64.test(b64) || b64.length % 4 !== 0) return false;
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  if (padding === 0) return true;
  const last = BASE64_ALPHABET.indexOf(b64[b64.length - padding - 1]!);
  return (last & (padding === 2 ? 0x0f : 0x03)) === 0;
}

/** Parses one `algorithm base64 [comment]` line. Throws SshKeyError with a message fit for users. */
export function parseSshPublicKey(input: string): SshPublicKey {
  const line = input.trim();
  if (line.includes('\n')) throw new SshKeyError('expected exactly one public key line');
  if (line.startsWith('-----BEGIN')) {
    throw new SshKeyError(
      'this is a PEM block, not an OpenSSH public key (expected "ssh-ed25519 AAAA... comment")',
    );
  }
  const parts = KEY_LINE.exec(line);
  if (!parts) throw new SshKeyError('expected "<type> <base64> [comment]", e.g. "ssh-ed25519 AAAA... host"');
  const algorithm = parts[1]!;
  const b64 = parts[2]!;
  if (!canonicalBase64(b64)) throw new SshKeyError('the key data is not valid base64');
  const blob = Buffer.from(b64, 'base64');
  const r = new SshReader(blob);
  if (!r.nextIs(algorithm)) {
    const inner = new SshReader(blob).text();
    throw new SshKeyError(
      `the key data says "${inner.slice(0, 40)}" but the line says "${algorithm.slice(0, 40)}"`,
    );
  }
  let read: KeyRead;
  try {
    read = readKey(algorithm, r);
  } catch (err) {
    if (err instanceof SshKeyError) throw err;
    throw new SshKeyError('the key data does not describe a valid public key');
  }
  if (!r.done()) throw new SshKeyError('unexpected trailing bytes in the key data');
  let keyObject: KeyObject | undefined;
  return {
    algorithm,
    keyType: read.keyType,
    blob,
    comment: parts[3] === undefined ? '' : parts[3].replace(/\s+/g, ' '),
    canonical: `${algorithm} ${b64}`,
    get keyObject(): KeyObject {
      keyObject ??= read.key();
      return keyObject;
    },
  };
}

interface KeyRead {
  keyType: SshKeyType;
  key: () => KeyObject;
}

/**
 * The key of `algorithm` from the rest of its blob. Throws SshKeyError for a key it refuses; anything
 * else it throws means key data that is not a key.
 */
function readKey(algorithm: string, r: SshReader): KeyRead {
  if (algorithm === 'ssh-ed25519') {
    const pk = r.string();
    if (pk.length !== 32) throw new SshKeyError('an ed25519 key must be 32 bytes');
    // Any 32 bytes import as an Ed25519 key (there is nothing more to check), and importing costs more
    // than the rest of parsing: `accord validate` reads hundreds of keys, so this one is made on use.
    const key = () =>
      createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: pk.toString('base64url') }, format: 'jwk' });
    return { keyType: 'ed25519', key };
  }
  if (algorithm === 'ssh-rsa') {
    const e = r.mpint();
    const n = r.mpint();
    if (n.length * 8 < 1024) throw new SshKeyError('RSA keys shorter than 1024 bits are not accepted');
    const made = createPublicKey({
      key: { kty: 'RSA', n: n.toString('base64url'), e: e.toString('base64url') },
      format: 'jwk',
    });
    return { keyType: 'rsa', key: () => made };
  }
  const curve = ECDSA_CURVES[algorithm];
  if (curve) {
    const id = r.text();
    if (id !== curve.nistName)
      throw new SshKeyError(`curve "${id.slice(0, 20)}" does not match ${algorithm}`);
    const q = r.string();
    if (q.length !== 1 + 2 * curve.coordBytes || q[0] !== 0x04) {
      throw new SshKeyError('the ECDSA point must be uncompressed and of the curve size');
    }
    const x = q.subarray(1, 1 + curve.coordBytes);
    const y = q.subarray(1 + curve.coordBytes);
    const made = createPublicKey({
      key: { kty: 'EC', crv: curve.jwkCrv, x: x.toString('base64url'), y: y.toString('base64url') },
      format: 'jwk',
    });
    return { keyType: 'ecdsa', key: () => made };
  }
  if (algorithm.includes('-cert-v01@openssh.com')) {
    throw new SshKeyError('this is an SSH certificate, not a public key');
  }
  throw new SshKeyError(
    `unsupported key type "${algorithm.slice(0, 40)}"; use ssh-ed25519, ecdsa-sha2-nistp256/384/521 or ssh-rsa`,
  );
}
