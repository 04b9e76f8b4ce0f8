// `--cert-dir DIR`: the certificate of each entry of a kind that has one (an SSH host certificate) in
// DIR/<key><suffix> (`certificateFile` in its descriptor: <key>-cert.pub), where sshd's HostCertificate
// can point. Written atomically (temp file in DIR, then
// rename) so sshd never reads half a file.
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { AccordError } from '../errors.js';
import type { Plan } from '../plan/types.js';
import { type ManagedDescriptor, managedDescriptors } from '../resources/index.js';
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

/** A certificate to write: its entry (section and key), its object's ID, and its file's suffix. */
export interface CertificateToWrite {
  section: string;
  key: string;
  id: string;
  certificate: string;
  suffix: string;
}

type WithCertificate = ManagedDescriptor & Required<Pick<ManagedDescriptor, 'certificateFile'>>;

/** The kinds whose objects hold a certificate to write, by kind. */
function certificateKinds(): Map<string, WithCertificate> {
  const kinds = managedDescriptors.filter((d): d is WithCertificate => d.certificateFile !== undefined);
  return new Map(kinds.map((d) => [d.kind, d]));
}

/**
 * The certificate of every entry the file manages whose kind has one and that exists after the run:
 * created or replaced ones from the POST answers, the others from the live objects read before the run.
 */
export function certificatesToWrite(
  plan: Plan,
  results: readonly ChangeResult[],
  objects: ReadonlyMap<string, LiveObject>,
): CertificateToWrite[] {
  const kinds = certificateKinds();
  const byAddress = new Map(results.map((r) => [r.address, r]));
  const out: CertificateToWrite[] = [];
  for (const c of plan.changes) {
    const d = kinds.get(c.kind);
    if (d === undefined || c.action === 'delete') continue;
    const r = byAddress.get(c.address);
    if (r && r.status !== 'done') continue;
    const id = r?.id ?? c.id;
    const certificate = id === null ? undefined : objects.get(id)?.[d.certificateFile.field];
    if (id !== null && typeof certificate === 'string') {
      out.push({ section: d.section, key: c.key, id, certificate, suffix: d.certificateFile.suffix });
    }
  }
  return out;
}

/**
 * Linux file systems that show the kernel's state as files (proc, sysfs, cgroup, debugfs, ...): writes
 * there are not files sshd could read back, and some paths make a directory walk loop forever.
 */
const KERNEL_FILE_SYSTEMS = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x62656570, 'configfs'],
  [0x6165676c, 'pstore'],
  [0xcafe4a11, 'bpf'],
  [0xde5e81e4, 'efivarfs'],
  [0x1cd1, 'devpts'],
]);

/**
 * Makes sure `--cert-dir` is (or can become) a writable directory: creates what is missing, then writes
 * and removes a probe file. Called before the first request, so that a wrong DIR is reported while the
 * account is still untouched. Never uses a recursive mkdir: Node 20's loops forever under /proc.
 */
export function prepareCertDir(dir: string): string {
  const root = resolve(dir);
  const fail = (why: string, cause?: unknown): never => {
    throw new CertDirError(
      `--cert-dir ${dir} ${why}; give a writable directory (it is created if missing).`,
      cause === undefined ? undefined : { cause },
    );
  };
  const failWith = (err: unknown): never => {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    return fail(
      code === 'EEXIST' || code === 'ENOTDIR'
        ? 'is a file (or lies under one), not a directory'
        : code === 'EACCES' || code === 'EPERM'
          ? `is not writable (${code}: no permission)`
          : code === 'EROFS'
            ? `is not writable (${code}: a read-only file system)`
            : `cannot be created (${code})`,
      err,
    );
  };

  // The nearest ancestor that exists, and the directories to create under it, outermost first.
  const missing: string[] = [];
  let existing = root;
  for (;;) {
    try {
      if (!statSync(existing).isDirectory()) fail('is a file (or lies under one), not a directory');
      break;
    } catch (err) {
      if (err instanceof CertDirError) throw err;
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(existing) === existing) failWith(err);
      missing.unshift(existing);
      existing = dirname(existing);
    }
  }
  const kernel = kernelFileSystem(existing);
  if (kernel) fail(`lies on ${kernel}, a kernel file system, not on disk`);

  for (const d of missing) {
    try {
      mkdirSync(d, { mode: 0o755 });
    } catch (err) {
      // Made meanwhile by someone else is as good as made here.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !isDirectory(d)) failWith(err);
    }
  }
  // access(W_OK) says yes to root on a directory it cannot write (a read-only mount may still say so
  // under some kernels): only a real write tells.
  const probe = join(root, `.accord-probe.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(probe, '', { flag: 'wx' });
  } catch (err) {
    failWith(err);
  }
  rmSync(probe, { force: true });
  return root;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The kernel file system `path` lies on (Linux), or undefined for an ordinary one or elsewhere. */
function kernelFileSystem(path: string): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return KERNEL_FILE_SYSTEMS.get(Number(statfsSync(path).type));
  } catch {
    return undefined;
  }
}

export function writeCertificates(dir: string, certs: readonly CertificateToWrite[]): WrittenCertificate[] {
  const root = prepareCertDir(dir);
  const written: WrittenCertificate[] = [];
  for (const { section, key, id, certificate, suffix } of certs) {
    const name = `${key}${suffix}`;
    const path = join(root, name);
    if (!SAFE_KEY.test(key) || basename(path) !== name || resolve(root, name) !== path) {
      throw new CertDirError(`${section}.${key}: the key is not a safe file name; nothing written for it.`);
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
        { cause: err },
      );
    }
    written.push({ key, id, path });
  }
  return written;
}

/**
 * The `<key><suffix>` files in DIR (`<key>-cert.pub`) whose key `plan` (of the whole file) no longer
 * manages as an entry of the kind that writes them (the kind of the longest suffix the name ends in).
 * Named so that the user removes them: accord never deletes a file it did not write in this run, and
 * one left there may still be what an sshd serves.
 */
export function staleCertificates(dir: string, plan: Plan): string[] {
  const kinds = [...certificateKinds().values()].map((d) => ({
    suffix: d.certificateFile.suffix,
    keys: new Set(plan.changes.filter((c) => c.kind === d.kind && c.action !== 'delete').map((c) => c.key)),
  }));
  kinds.sort((a, b) => b.suffix.length - a.suffix.length);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => {
      const kind = kinds.find((k) => name.endsWith(k.suffix));
      const key = kind && name.slice(0, -kind.suffix.length);
      return kind !== undefined && key !== undefined && SAFE_KEY.test(key) && !kind.keys.has(key);
    })
    .sort();
}
