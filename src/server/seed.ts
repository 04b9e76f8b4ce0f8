// `accord serve --seed FILE`: preloads IP policies, SSH certificate authorities, TCP and HTTPS edges and
// routes with fixed IDs (examples/seed.yaml). Objects that already exist (a --data file) are kept.
import { readFileSync } from 'node:fs';
import { parse, YAMLError } from 'yaml';
import { sshSigningKey } from '../crypto/sshcert.js';
import { AccordError } from '../errors.js';
import {
  type Collection,
  insertObject,
  type JsonObject,
  type ServiceContext,
  validateBody,
} from './collections.js';
import { ServiceError } from './errors.js';
import { type IdKind, isIdOf } from './ids.js';
import {
  generateSshCaKey,
  httpsEdgeRoutes,
  httpsEdges,
  ipPolicies,
  sshCertificateAuthorities,
  tcpEdges,
} from './routes/standins.js';

export class SeedError extends AccordError {
  override name = 'SeedError';
  static override readonly code = 'ACCORD_SERVE_SEED';
}

// Seeding treats every collection alike; only the SSH CA uses its prepared value (the private key).
type SeedCollection = Collection<string | undefined>;
const as = (c: Collection<string> | Collection): SeedCollection => c as unknown as SeedCollection;

const SECTIONS: [string, SeedCollection][] = [
  ['ip_policies', as(ipPolicies)],
  ['ssh_certificate_authorities', as(sshCertificateAuthorities)],
  ['tcp_edges', as(tcpEdges)],
  ['https_edges', as(httpsEdges)],
];

export async function loadSeed(ctx: ServiceContext, file: string): Promise<void> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? String(err)})`;
    throw new SeedError(`the seed file ${file} ${why}; give --seed a YAML file like examples/seed.yaml`, {
      cause: err,
    });
  }
  let doc: unknown;
  try {
    doc = parse(text, { uniqueKeys: true });
  } catch (err) {
    // The yaml package's message ends with a code frame over several lines; the position says enough.
    const pos = err instanceof YAMLError ? err.linePos?.[0] : undefined;
    const where = pos ? `${file}:${pos.line}:${pos.col}` : file;
    const what = ((err as Error).message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    throw new SeedError(
      `${where}: the seed file is not valid YAML: ${what}; fix it (see examples/seed.yaml)`,
      { cause: err },
    );
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new SeedError(`the seed file ${file} must be a mapping of ${SECTIONS.map((s) => s[0]).join(', ')}`);
  }
  const known = new Set(SECTIONS.map((s) => s[0]));
  for (const key of Object.keys(doc)) {
    if (!known.has(key))
      throw new SeedError(`${file}: unknown section "${key}"; known: ${[...known].join(', ')}`);
  }
  for (const [section, collection] of SECTIONS) {
    const entries = (doc as Record<string, unknown>)[section] ?? [];
    if (!Array.isArray(entries)) throw new SeedError(`${file}: ${section} must be a list`);
    for (const [i, entry] of entries.entries()) {
      const where = `${file}: ${section}[${i}]`;
      try {
        await seedEntry(ctx, collection, entry as JsonObject, '', where);
      } catch (err) {
        if (err instanceof ServiceError) throw new SeedError(`${where}: ${err.message}`, { cause: err });
        throw err;
      }
    }
  }
}

async function seedEntry(
  ctx: ServiceContext,
  c: SeedCollection,
  entry: JsonObject,
  parent: string,
  where: string,
): Promise<void> {
  if (typeof entry !== 'object' || entry === null) throw new SeedError(`${where} must be a mapping`);
  const { id, routes, private_key: privateKey, ...body } = entry;
  if (typeof id !== 'string' || !isIdOf(c.kind as IdKind, id)) {
    throw new SeedError(`${where}: "id" must be an ID of this kind (prefix and 27 letters and digits)`);
  }
  if (routes !== undefined && c !== as(httpsEdges))
    throw new SeedError(`${where}: only HTTPS edges have routes`);
  if (privateKey !== undefined && c !== as(sshCertificateAuthorities)) {
    throw new SeedError(`${where}: only SSH certificate authorities have a private_key`);
  }
  validateBody(ctx, c.createSchema, body);
  if (!ctx.store.get(c.kind, id)) {
    let prepared: string | undefined;
    if (c === as(sshCertificateAuthorities)) {
      if (privateKey !== undefined) {
        try {
          sshSigningKey(String(privateKey));
        } catch {
          throw new SeedError(`${where}: private_key is not a PEM private key of type ed25519, ecdsa or rsa`);
        }
        prepared = String(privateKey);
      } else {
        prepared = await generateSshCaKey(body);
      }
    }
    insertObject(ctx, c, body, id, parent, prepared);
  }
  if (routes !== undefined) {
    if (!Array.isArray(routes)) throw new SeedError(`${where}: routes must be a list`);
    for (const [i, route] of routes.entries()) {
      await seedEntry(ctx, as(httpsEdgeRoutes), route as JsonObject, id, `${where}.routes[${i}]`);
    }
  }
}
