import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCaPem, pemSha256 } from '../src/crypto/pem.js';
import { canonicalBase64, parseSshPublicKey } from '../src/crypto/sshkey.js';
import { makeCaPemSync } from './support/ca.js';

describe('parseSshPublicKey', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accord-sshkey-'));
  for (const [type, extra] of [
    ['ed25519', []],
    ['ecdsa', ['-b', '384']],
    ['rsa', ['-b', '2048']],
  ] as const) {
    it(`reads an ssh-keygen ${type} key`, () => {
      const path = join(dir, `id_${type}`);
      execFileSync('ssh-keygen', ['-q', '-t', type, ...extra, '-N', '', '-C', 'host@test', '-f', path]);
      const line = readFileSync(`${path}.pub`, 'utf8');
      const key = parseSshPublicKey(line);
      expect(key.keyType).toBe(type);
      expect(key.comment).toBe('host@test');
      expect(`${key.canonical} host@test\n`).toBe(line);
      expect(key.keyObject.asymmetricKeyType).toBe(type === 'ecdsa' ? 'ec' : type);
    });
  }

  it.each([
    ['', /expected/],
    ['ssh-ed25519', /expected/],
    ['ssh-ed25519 !!!notbase64', /base64/],
    ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA==', /truncated/],
    ['ssh-dss AAAAB3NzaC1kc3M=', /says "ssh-dss"|unsupported|truncated/],
    ['ssh-rsa AAAAC3NzaC1lZDI1NTE5', /says|truncated/],
    ['-----BEGIN PUBLIC KEY-----', /PEM/],
  ])('rejects %j', (input, message) => {
    expect(() => parseSshPublicKey(input)).toThrow(message);
  });

  const ed25519 = () => {
    const x = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x!;
    const blob = Buffer.concat([
      Buffer.from([0, 0, 0, 11]),
      Buffer.from('ssh-ed25519'),
      Buffer.from([0, 0, 0, 32]),
      Buffer.from(x, 'base64url'),
    ]);
    return blob.toString('base64');
  };

  it('keeps the comment with its runs of whitespace made single spaces', () => {
    const b64 = ed25519();
    expect(parseSshPublicKey(`ssh-ed25519\t ${b64}  web \t01   prod \n`).comment).toBe('web 01 prod');
    expect(parseSshPublicKey(`  ssh-ed25519 ${b64}`).comment).toBe('');
  });

  it('refuses key data of another algorithm than the line names, and non-canonical base64', () => {
    const b64 = ed25519();
    expect(() => parseSshPublicKey(`ssh-rsa ${b64}`)).toThrow(
      /says "ssh-ed25519" but the line says "ssh-rsa"/,
    );
    // `AB==` has spare bits set: it decodes to the byte `AA==` encodes, but is not its encoding.
    expect(Buffer.from('AB==', 'base64')).toEqual(Buffer.from('AA==', 'base64'));
    expect(() => parseSshPublicKey('ssh-ed25519 AB==')).toThrow(/not valid base64/);
    expect(() => parseSshPublicKey('ssh-ed25519 AAAAAA==')).toThrow(/key data says ""/);
  });

  it("canonicalBase64 accepts exactly the texts that are their bytes' one encoding (property)", () => {
    const alphabet = fc.constantFrom(
      ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ '.split(''),
    );
    const texts = fc.oneof(
      fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('base64')),
      fc.string({ unit: alphabet, maxLength: 24 }),
      fc.uint8Array({ minLength: 1, maxLength: 40 }).chain((b) => {
        const text = Buffer.from(b).toString('base64');
        return fc
          .nat({ max: text.length - 1 })
          .chain((i) => alphabet.map((c) => text.slice(0, i) + c + text.slice(i + 1)));
      }),
    );
    fc.assert(
      fc.property(texts, (text) => {
        const model =
          /^[A-Za-z0-9+/]+={0,2}$/.test(text) &&
          text.length % 4 === 0 &&
          Buffer.from(text, 'base64').toString('base64') === text;
        expect(canonicalBase64(text)).toBe(model);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('parseCaPem', () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const keyPem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

  it('rejects a private key', () => {
    expect(() => parseCaPem(keyPem)).toThrow(/private key/);
  });
  it('rejects text that is not PEM', () => {
    expect(() => parseCaPem('hello')).toThrow(/not PEM/);
  });
  it('rejects garbage base64', () => {
    expect(() => parseCaPem('-----BEGIN CERTIFICATE-----\n@@@@\n-----END CERTIFICATE-----\n')).toThrow(
      /base64/,
    );
  });
  it('says a block that is base64 but no certificate as a predicate of its label, with what to do', () => {
    // Messages follow a label ("the value", 'file "ca.pem"', "ca_pem"), so each must read after one.
    expect(() => parseCaPem('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')).toThrow(
      /^has a certificate block that is not an X\.509 certificate; give the CA certificate PEM/,
    );
  });
});

describe('pemSha256', () => {
  const dir = mkdtempSync(join(tmpdir(), 'accord-pem-'));
  const pem = readFileSync(makeCaPemSync(dir, 'root'), 'utf8');

  it("is parseCaPem's fingerprint, however the PEM is wrapped or followed", () => {
    const { sha256 } = parseCaPem(pem);
    expect(pemSha256(pem)).toBe(sha256);
    expect(pemSha256(`${pem}\n`)).toBe(sha256); // the service appends a newline
    expect(pemSha256(pem.replaceAll('\n', '\r\n'))).toBe(sha256);
    expect(pemSha256(`-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n${pem}`)).toBe(sha256);
  });

  it('hashes the text itself when there is no certificate block, without refusing it', () => {
    expect(pemSha256('  not a pem\n')).toBe(pemSha256('not a pem'));
    expect(pemSha256('not a pem')).toMatch(/^[0-9a-f]{64}$/);
    expect(pemSha256('a')).not.toBe(pemSha256('b'));
  });
});
