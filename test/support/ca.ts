// Self-signed EC P-256 certificates made with openssl at test time (no private key is kept unless asked).
import { execFile, execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const CA_TRUE = ['-addext', 'basicConstraints=critical,CA:TRUE'];
export const CA_FALSE = ['-addext', 'basicConstraints=critical,CA:FALSE'];

export interface CaOptions {
  /** openssl -subj; default `/CN=<name>`. */
  subject?: string;
  days?: number;
  /** Extra openssl arguments; default marks the certificate as a CA. */
  extra?: readonly string[];
  /** Keep `<dir>/<name>.key` (for tests that send a private key where a certificate belongs). */
  keepKey?: boolean;
}

function opensslArgs(key: string, pem: string, name: string, opts: CaOptions): string[] {
  return [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    key,
    '-out',
    pem,
    '-days',
    String(opts.days ?? 30),
    '-subj',
    opts.subject ?? `/CN=${name}`,
    ...(opts.extra ?? CA_TRUE),
  ];
}

/** Writes `<dir>/<name>.pem` and returns its path. */
export function makeCaPemSync(dir: string, name: string, opts: CaOptions = {}): string {
  const key = join(dir, `${name}.key`);
  const pem = join(dir, `${name}.pem`);
  execFileSync('openssl', opensslArgs(key, pem, name, opts), { stdio: 'ignore' });
  if (!opts.keepKey) rmSync(key);
  return pem;
}

/** Like makeCaPemSync, without blocking the event loop (so many can be made at once). */
export async function makeCaPem(dir: string, name: string, opts: CaOptions = {}): Promise<string> {
  const key = join(dir, `${name}.key`);
  const pem = join(dir, `${name}.pem`);
  await execFileAsync('openssl', opensslArgs(key, pem, name, opts));
  if (!opts.keepKey) rmSync(key);
  return pem;
}
