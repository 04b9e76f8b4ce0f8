import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCaPem, pemSha256 } from '../src/crypto/pem.js';
import { parseSshPublicKey } from '../src/crypto/sshkey.js';
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
