// Shared by the bench scripts: paths, generated keys and certificates, and running a process to its end
// while measuring it.
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../bin/accord.js', import.meta.url));
export const SEED = fileURLToPath(new URL('../examples/seed.yaml', import.meta.url));
/** Fixed IDs of examples/seed.yaml. */
export const SEED_SSH_CA = 'sshca_2demoHostCA0000000000000000';
export const SEED_POLICY = 'ipp_2demoOffice0000000000000000';

/**
 * The fewest list requests that read the whole account: every managed kind is listed (any kind may hold
 * the owner's resources to delete), one page of 100 at a time and at least one page. `counts` gives the
 * objects of a kind by its name; a kind not in it holds only the seed's few (under a page).
 */
export async function listingLowerBound(counts) {
  const { managedDescriptors } = await import('../dist/resources/index.js');
  // A kind listed only when the files write its section (cloud endpoints) counts only when they do.
  const listed = managedDescriptors.filter((d) => !d.listedOnlyWhenWritten || counts[d.kind] !== undefined);
  return listed.reduce((n, d) => n + Math.max(1, Math.ceil((counts[d.kind] ?? 0) / 100)), 0);
}

/** `--name N` from the command line, else the fallback. */
export function numberArg(args, name, fallback) {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
}

/** OpenSSH line for a fresh ed25519 key (the raw 32 bytes are the JWK's x). */
export function ed25519Line(comment) {
  const { publicKey } = generateKeyPairSync('ed25519');
  const x = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url');
  const field = (b) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(b.length, 0);
    return Buffer.concat([len, b]);
  };
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(x)]).toString('base64')} ${comment}`;
}

/** A self-signed EC CA certificate at `<dir>/certs/<name>.pem` (its key is removed); returns `certs/<name>.pem`. */
export function caPem(dir, name) {
  const key = join(dir, `${name}.key`);
  const pem = join(dir, 'certs', `${name}.pem`);
  execFileSync(
    'openssl',
    [
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
      '3650',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
    ],
    { stdio: 'ignore' },
  );
  rmSync(key);
  return `certs/${name}.pem`;
}

/**
 * Runs a process to its end asynchronously (this process may be serving the API it calls) and resolves
 * with its exit status, output and wall time.
 */
export function runMeasured(command, args, opts = {}) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr, wallMs: performance.now() - started }));
  });
}

/** Runs the CLI as its own process, under /usr/bin/time -v when there (for peak RSS and CPU time). */
export function runCliTimed(cliArgs, env) {
  const timeV = existsSync('/usr/bin/time');
  const cmd = timeV ? '/usr/bin/time' : process.execPath;
  const cmdArgs = timeV ? ['-v', process.execPath, CLI, ...cliArgs] : [CLI, ...cliArgs];
  return runMeasured(cmd, cmdArgs, { env });
}

/**
 * Fills a seeded local service through its API with IP restrictions of `iprTypes` and `certCount` SSH
 * host certificates of one ed25519 key, many requests in flight. `ipRestriction(i, type)` and
 * `certificate(i)` give each body's own fields (description, metadata). Returns the fill time in ms.
 */
export async function fillAccount({
  url,
  apiKey,
  iprTypes,
  certCount,
  publicKey,
  ipRestriction,
  certificate,
}) {
  const { ApiClient } = await import('../dist/api/client.js');
  const start = performance.now();
  const client = new ApiClient({ baseUrl: url, apiKey, parallelism: 32 });
  const jobs = iprTypes.map((type, i) =>
    client.post('/ip_restrictions', {
      type,
      enforced: true,
      ip_policy_ids: [SEED_POLICY],
      ...ipRestriction(i, type),
    }),
  );
  for (let i = 0; i < certCount; i++) {
    jobs.push(
      client.post('/ssh_host_certificates', {
        ssh_certificate_authority_id: SEED_SSH_CA,
        public_key: publicKey,
        principals: [`host-${i}.example.com`],
        ...certificate(i),
      }),
    );
  }
  await Promise.all(jobs);
  await client.close();
  return performance.now() - start;
}
