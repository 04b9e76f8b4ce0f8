// `--cert-dir DIR`: each managed SSH host certificate in DIR/<key>-cert.pub, where sshd's
// HostCertificate can point. Written atomically (temp file in DIR, then rename) so sshd never reads
// half a file.
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  constants,
  mkdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { AccordError } from '../errors.js';
import type { Plan } from '../plan/types.js';
import type { LiveObject } from '../resources/values.js';
import type { ChangeResult } from './types.js';

export class CertDirError extends AccordError {
  override name = 'CertDirError';
  static override readonly code = 'ACCORD_CERT_DIR';
}

/** Entry keys are `[a-z0-9][a-z0-9._-]{0,62}`; anything else never becomes a file name. */
const SAFE_KEY = /^[a-z0-9][a-z0-9._-]{0,62}$/;

export interface WrittenCertificate {
  key: string;
  id: string;
  path: string;
}

/**
 * The certificate of every SSH host certificate the file manages that exists after the run: created
 * or replaced ones from the POST answers, the others from the live objects read before the run.
 */
export function certificatesToWrite(
  plan: Plan,
  results: readonly ChangeResult[],
  objects: ReadonlyMap<string, LiveObject>,
): { key: string; id: string; certificate: string }[] {
  const byAddress = new Map(results.map((r) => [r.address, r]));
  const out: { key: string; id: string; certificate: string }[] = [];
  for (const c of plan.changes) {
    if (c.kind !== 'ssh_host_certificate' || c.action === 'delete') continue;
    const r = byAddress.get(c.address);
    if (r && r.status !== 'done') continue;
    const id = r?.id ?? c.id;
    const certificate = id === null ? undefined : objects.get(id)?.['certificate'];
    if (id !== null && typeof certificate === 'string') out.push({ key: c.key, id, certificate });
  }
  return out;
}

/**
 * Makes sure `--cert-dir` is (or can become) a writable directory. Called before anything is applied,
 * so that a wrong DIR is reported while the account is still untouched.
 */
export function prepareCertDir(dir: string): string {
  const root = resolve(dir);
  try {
    mkdirSync(root, { recursive: true });
    if (!statSync(root).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    accessSync(root, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    const why =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? 'is a file (or lies under one), not a directory'
        : code === 'EACCES' || code === 'EROFS' || code === 'EPERM'
          ? `is not writable (${code})`
          : `cannot be created (${code})`;
    throw new CertDirError(`--cert-dir ${dir} ${why}; give a writable directory (it is created if missing).`);
  }
  return root;
}

export function writeCertificates(
  dir: string,
  certs: readonly { key: string; id: string; certificate: string }[],
): WrittenCertificate[] {
  const root = prepareCertDir(dir);
  const written: WrittenCertificate[] = [];
  for (const { key, id, certificate } of certs) {
    const name = `${key}-cert.pub`;
    const path = join(root, name);
    if (!SAFE_KEY.test(key) || basename(path) !== name || resolve(root, name) !== path) {
      throw new CertDirError(
        `ssh_host_certificates.${key}: the key is not a safe file name; nothing written for it.`,
      );
    }
    const temp = join(root, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      writeFileSync(temp, certificate.endsWith('\n') ? certificate : `${certificate}\n`, {
        mode: 0o644,
        flag: 'wx',
      });
      chmodSync(temp, 0o644); // the umask may have narrowed it
      renameSync(temp, path);
    } catch (err) {
      rmSync(temp, { force: true });
      throw new CertDirError(
        `cannot write ${path} (${(err as NodeJS.ErrnoException).code ?? err}); check --cert-dir ${dir}.`,
      );
    }
    written.push({ key, id, path });
  }
  return written;
}
