// X.509 CA certificates in PEM form: what the service accepts as `ca_pem` (SPEC: Certificate authorities).
import { createHash, X509Certificate } from 'node:crypto';

export interface CaCertificate {
  der: Buffer;
  /** Lower-case hex SHA-256 of the DER, colon-free. */
  sha256: string;
  subjectCommonName: string;
  notBefore: Date;
  notAfter: Date;
}

export class PemError extends Error {
  override name = 'PemError';
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/**
 * Accepts exactly one X.509 certificate that is a CA and nothing else (in particular no private key).
 * Messages never quote the input: it may be a secret pasted by mistake.
 */
export function parseCaPem(pem: string): CaCertificate {
  const blocks = [...pem.matchAll(BLOCK)];
  if (/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(pem)) {
    throw new PemError(
      'holds a private key; remove it and keep only the CA certificate (never commit private keys)',
    );
  }
  if (blocks.length === 0) {
    throw new PemError('is not PEM: expected one "-----BEGIN CERTIFICATE-----" block');
  }
  const others = blocks.filter((b) => b[1] !== 'CERTIFICATE').map((b) => b[1]);
  if (others.length > 0)
    throw new PemError(`holds a "${others[0]}" block; only one CERTIFICATE block is allowed`);
  if (blocks.length > 1) {
    throw new PemError(
      `holds ${blocks.length} certificates; exactly one CA certificate is allowed per entry`,
    );
  }
  const outside = pem.replace(BLOCK, '').trim();
  if (outside.length > 0) throw new PemError('has text outside the certificate block');
  const body = blocks[0]![2]!.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body) || body.length % 4 !== 0) {
    throw new PemError('has a certificate block that is not valid base64; copy the PEM again unchanged');
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(Buffer.from(body, 'base64'));
  } catch {
    throw new PemError(
      'has a certificate block that is not an X.509 certificate; give the CA certificate PEM ' +
        '(openssl x509 -in ca.crt prints it)',
    );
  }
  if (!cert.ca) throw new PemError('is not a CA certificate (its basicConstraints do not say CA:TRUE)');
  const der = cert.raw;
  return {
    der,
    sha256: sha256Hex(der),
    subjectCommonName: commonName(cert.subject),
    notBefore: new Date(cert.validFrom),
    notAfter: new Date(cert.validTo),
  };
}

/**
 * SHA-256 hex of the DER of the first CERTIFICATE block, as `parseCaPem` gives it for a valid one, without
 * checking anything (a live object's `ca_pem` is compared, never refused); of the text itself when there
 * is no such block.
 */
export function pemSha256(pem: string): string {
  const block = [...pem.matchAll(BLOCK)].find((b) => b[1] === 'CERTIFICATE');
  return sha256Hex(block ? Buffer.from(block[2]!.replace(/\s+/g, ''), 'base64') : Buffer.from(pem.trim()));
}

function sha256Hex(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function commonName(subject: string): string {
  for (const line of subject.split('\n')) {
    if (line.startsWith('CN=')) return line.slice(3);
  }
  return '';
}
