// Checks that need no network beyond the schema (byte limits, one restriction per type, PEM and public
// key contents, time windows, the metadata marker budget) and the normalization into DesiredState.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { type CaCertificate, PemError, parseCaPem } from '../crypto/pem.js';
import { parseSshPublicKey, SshKeyError } from '../crypto/sshkey.js';
import type { DesiredCertificateAuthority } from '../resources/certificate_authority.js';
import type { DesiredIpRestriction } from '../resources/ip_restriction.js';
import type { DesiredSshHostCertificate } from '../resources/ssh_host_certificate.js';
import type { DesiredTcpEdgeIpRestriction } from '../resources/tcp_edge_ip_restriction.js';
import { isRecord, parseInstant, stringSet } from '../resources/values.js';
import type { DesiredWebsocketTcpConverter } from '../resources/websocket_tcp_converter.js';
import { type ReferencedFile, readReferencedFile } from './files.js';
import type {
  AccordFile,
  CertificateAuthority,
  HttpsEdge,
  IpRestriction,
  SshHostCertificate,
  TcpEdge,
} from './generated/accord-file.js';
import { entryBudgetLeft, METADATA_MAX_BYTES } from './marker.js';
import type { DesiredState, SourceLocation } from './model.js';
import { displayPath, type Problem } from './problems.js';
import { locate, type PathSegment, type YamlSource } from './source.js';

export const DESCRIPTION_MAX_BYTES = 255;
export const DEFAULT_OWNER = 'default';

const SECONDS: Record<string, number> = { d: 86_400, h: 3_600, m: 60 };

/** `90d` -> seconds; the schema has already checked the form. */
export function parseDuration(text: string): number | undefined {
  const m = /^([1-9][0-9]{0,5})([dhm])$/.exec(text);
  return m ? Number(m[1]) * SECONDS[m[2]!]! : undefined;
}

class Checker {
  readonly problems: Problem[] = [];
  private realBase: string | undefined;
  /** Parsed PEMs by text: files often name the same CA file several times. */
  private readonly pems = new Map<string, CaCertificate | PemError>();
  private readonly files = new Map<string, ReferencedFile>();

  constructor(
    readonly source: YamlSource,
    readonly baseDir: string,
  ) {}

  /** Each referenced file is read once, however many entries name it. */
  readFile(name: string): ReferencedFile {
    let read = this.files.get(name);
    if (!read) {
      read = readReferencedFile(this.baseDir, name, () => {
        this.realBase ??= realpathSync.native(this.baseDir);
        return this.realBase;
      });
      this.files.set(name, read);
    }
    return read;
  }

  parsePem(text: string): CaCertificate {
    let parsed = this.pems.get(text);
    if (!parsed) {
      try {
        parsed = parseCaPem(text);
      } catch (err) {
        if (!(err instanceof PemError)) throw err;
        parsed = err;
      }
      this.pems.set(text, parsed);
    }
    if (parsed instanceof PemError) throw parsed;
    return parsed;
  }

  report(segments: PathSegment[], message: string, target: 'key' | 'value' = 'value'): void {
    const { line, col } = locate(this.source, segments, target);
    this.problems.push({ file: this.source.file, line, col, path: displayPath(segments), message });
  }

  loc(segments: PathSegment[]): SourceLocation {
    const { line, col } = locate(this.source, segments, 'key');
    return { file: this.source.file, line, col };
  }
}

type Entries<T> = Array<[string, T]>;

/** A section's entries whose value is a mapping; anything else has been reported by the schema. */
function entries<T>(section: Record<string, T> | undefined): Entries<T> {
  if (!isRecord(section)) return [];
  return Object.entries(section).filter(([, v]) => isRecord(v));
}

/**
 * Runs every client-side check on schema-valid data and builds the desired model. `problems` is empty
 * exactly when `state` is set.
 */
export function normalize(
  source: YamlSource,
  absPath: string,
): { state?: DesiredState; problems: Problem[] } {
  const c = new Checker(source, dirname(absPath));
  const file = source.data as AccordFile;
  const owner = file.owner ?? DEFAULT_OWNER;

  const ipRestrictions = entries<IpRestriction>(file.ip_restrictions).map(([key, e]) =>
    ipRestriction(c, owner, key, e),
  );
  checkOnePerType(c, ipRestrictions);
  const certificateAuthorities = entries<CertificateAuthority>(file.certificate_authorities).map(([key, e]) =>
    certificateAuthority(c, owner, key, e),
  );
  const sshHostCertificates = entries<SshHostCertificate>(file.ssh_host_certificates).map(([key, e]) =>
    sshHostCertificate(c, owner, key, e),
  );
  for (const section of ['ip_restrictions', 'certificate_authorities', 'ssh_host_certificates'] as const) {
    checkAdoptedIdsUnique(c, section, entries<CommonFields>(file[section]));
  }
  const tcpEdgeIpRestrictions = entries<TcpEdge>(file.tcp_edges).map(([edgeId, e]) =>
    tcpEdgeIpRestriction(c, edgeId, e),
  );
  const websocketTcpConverters = entries<HttpsEdge>(file.https_edges).flatMap(([edgeId, e]) =>
    entries(e.routes).map(([routeId, route]) => websocketTcpConverter(c, edgeId, routeId, route)),
  );

  if (c.problems.length > 0) return { problems: c.problems };
  return {
    problems: [],
    state: {
      file: absPath,
      digest: createHash('sha256').update(source.bytes).digest('hex'),
      owner,
      ip_restrictions: ipRestrictions,
      certificate_authorities: certificateAuthorities as DesiredCertificateAuthority[],
      ssh_host_certificates: sshHostCertificates as DesiredSshHostCertificate[],
      tcp_edge_ip_restrictions: tcpEdgeIpRestrictions,
      websocket_tcp_converters: websocketTcpConverters,
    },
  };
}

interface CommonFields {
  id?: string;
  description?: string;
  metadata?: unknown;
  lifecycle?: { prevent_destroy?: boolean };
}

/** description, metadata, lifecycle and id: shared by the three server-assigned kinds. */
function common(c: Checker, at: PathSegment[], owner: string, key: string, e: CommonFields) {
  const description = typeof e.description === 'string' ? e.description : '';
  const bytes = Buffer.byteLength(description, 'utf8');
  if (bytes > DESCRIPTION_MAX_BYTES) {
    c.report(
      [...at, 'description'],
      `is ${bytes} bytes of UTF-8 (${[...description].length} characters); the limit is ${DESCRIPTION_MAX_BYTES} bytes`,
    );
  }
  // `metadata:` with nothing after it is YAML null: treated as unset, like an omitted field.
  const data = e.metadata === null ? undefined : e.metadata;
  const protect = e.lifecycle?.prevent_destroy === true;
  if (data !== undefined) {
    const bad = unrepresentable(data, []);
    if (bad) {
      c.report([...at, 'metadata', ...bad.path], bad.message);
    } else {
      const left = entryBudgetLeft(owner, key, protect, data);
      if (left < 0) {
        c.report(
          [...at, 'metadata'],
          `is too large: stored with accord's ownership marker it takes ${METADATA_MAX_BYTES - left} bytes, ${-left} over the ${METADATA_MAX_BYTES}-byte limit; shorten it by at least ${-left} bytes`,
        );
      }
    }
  }
  return {
    key,
    ...(e.id !== undefined ? { id: e.id } : {}),
    description,
    ...(data !== undefined ? { data } : {}),
    protect,
    loc: c.loc(at),
  };
}

/** Values JSON cannot carry faithfully (they would come back different and never compare equal). */
function unrepresentable(
  v: unknown,
  path: PathSegment[],
): { path: PathSegment[]; message: string } | undefined {
  if (typeof v === 'number' && !Number.isFinite(v)) {
    return { path, message: 'holds .inf or .nan, which JSON cannot store; quote it as a string' };
  }
  if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) {
    return { path, message: 'holds an integer too large to store exactly; quote it as a string' };
  }
  if (typeof v === 'bigint' || typeof v === 'function' || typeof v === 'symbol') {
    return { path, message: 'holds a value JSON cannot store' };
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const bad = unrepresentable(v[i], [...path, i]);
      if (bad) return bad;
    }
  } else if (v instanceof Uint8Array || v instanceof Date || v instanceof Map || v instanceof Set) {
    return {
      path,
      message: 'holds a value JSON cannot store (binary, timestamp or set tag); use plain values',
    };
  } else if (typeof v === 'object' && v !== null) {
    for (const [k, item] of Object.entries(v)) {
      const bad = unrepresentable(item, [...path, k]);
      if (bad) return bad;
    }
  }
  return undefined;
}

function ipRestriction(c: Checker, owner: string, key: string, e: IpRestriction): DesiredIpRestriction {
  return {
    kind: 'ip_restriction',
    ...common(c, ['ip_restrictions', key], owner, key, e),
    type: e.type,
    enforced: e.enforced,
    ip_policy_ids: stringSet(e.ip_policies),
  };
}

function checkOnePerType(c: Checker, restrictions: DesiredIpRestriction[]): void {
  const byType = new Map<string, string>();
  for (const r of restrictions) {
    if (typeof r.type !== 'string') continue;
    const first = byType.get(r.type);
    if (first === undefined) byType.set(r.type, r.key);
    else {
      c.report(
        ['ip_restrictions', r.key, 'type'],
        `"${first}" already has type ${r.type}; the service allows one IP restriction per type, so merge their ip_policies into one entry`,
      );
    }
  }
}

function checkAdoptedIdsUnique(c: Checker, section: string, list: Entries<CommonFields>): void {
  const seen = new Map<string, string>();
  for (const [key, entry] of list) {
    if (typeof entry.id !== 'string') continue;
    const first = seen.get(entry.id);
    if (first === undefined) seen.set(entry.id, key);
    else c.report([section, key, 'id'], `"${first}" already adopts ${entry.id}; one entry per resource`);
  }
}

function contentOf(
  c: Checker,
  at: PathSegment[],
  inline: string | undefined,
  fileField: string,
  fileName: string | undefined,
): { text: string; where: PathSegment[]; label: string } | undefined {
  if (typeof inline === 'string') return { text: inline, where: at, label: 'the value' };
  if (typeof fileName !== 'string') return undefined;
  const where = [...at.slice(0, -1), fileField];
  const read = c.readFile(fileName);
  if (!read.ok) {
    c.report(where, read.message);
    return undefined;
  }
  return { text: read.text, where, label: `file ${JSON.stringify(fileName)}` };
}

function certificateAuthority(
  c: Checker,
  owner: string,
  key: string,
  e: CertificateAuthority,
): DesiredCertificateAuthority | undefined {
  const at = ['certificate_authorities', key];
  const base = common(c, at, owner, key, e);
  const content = contentOf(c, [...at, 'ca_pem'], e.ca_pem, 'ca_pem_file', e.ca_pem_file);
  if (!content) return undefined;
  try {
    const ca = c.parsePem(content.text);
    return {
      kind: 'certificate_authority',
      ...base,
      ca_pem: content.text,
      ca_sha256: ca.sha256,
      subject_common_name: ca.subjectCommonName,
      not_before: ca.notBefore.toISOString(),
      not_after: ca.notAfter.toISOString(),
    };
  } catch (err) {
    if (!(err instanceof PemError)) throw err;
    c.report(content.where, `${content.label} ${err.message}`);
    return undefined;
  }
}

function sshHostCertificate(
  c: Checker,
  owner: string,
  key: string,
  e: SshHostCertificate,
): DesiredSshHostCertificate | undefined {
  const at = ['ssh_host_certificates', key];
  const base = common(c, at, owner, key, e);
  const validAfter = checkedInstant(c, [...at, 'valid_after'], e.valid_after);
  const validUntil = checkedInstant(c, [...at, 'valid_until'], e.valid_until);
  if (validAfter && validUntil && validAfter >= validUntil) {
    c.report([...at, 'valid_until'], `must be later than valid_after (${e.valid_after})`);
  }
  const validFor = typeof e.valid_for === 'string' ? parseDuration(e.valid_for) : undefined;
  const renewBefore = typeof e.renew_before === 'string' ? parseDuration(e.renew_before) : undefined;
  if (validFor !== undefined && renewBefore !== undefined && renewBefore >= validFor) {
    c.report(
      [...at, 'renew_before'],
      `is not shorter than valid_for (${e.valid_for}): the certificate would be replaced on every apply`,
    );
  }
  const content = contentOf(c, [...at, 'public_key'], e.public_key, 'public_key_file', e.public_key_file);
  if (!content) return undefined;
  try {
    const parsed = parseSshPublicKey(content.text);
    return {
      kind: 'ssh_host_certificate',
      ...base,
      ssh_certificate_authority_id: e.ssh_certificate_authority_id,
      public_key: content.text.trim(),
      public_key_canonical: parsed.canonical,
      principals: stringSet(e.principals),
      ...(validAfter ? { valid_after: validAfter } : {}),
      ...(validUntil ? { valid_until: validUntil } : {}),
      ...(validFor !== undefined ? { valid_for_seconds: validFor } : {}),
      ...(renewBefore !== undefined ? { renew_before_seconds: renewBefore } : {}),
    };
  } catch (err) {
    if (!(err instanceof SshKeyError)) throw err;
    c.report(content.where, `${content.label} is not a valid OpenSSH public key: ${err.message}`);
    return undefined;
  }
}

/** An RFC 3339 timestamp (already checked by the schema) as an ISO instant. */
function checkedInstant(c: Checker, at: PathSegment[], value: string | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const iso = parseInstant(value);
  if (iso === undefined) c.report(at, `${JSON.stringify(value)} is not a real point in time`);
  return iso;
}

function tcpEdgeIpRestriction(c: Checker, edgeId: string, e: TcpEdge): DesiredTcpEdgeIpRestriction {
  const module = e.ip_restriction;
  const at = ['tcp_edges', edgeId, 'ip_restriction'];
  if (module === 'absent' || typeof module !== 'object' || module === null) {
    return {
      kind: 'tcp_edge_ip_restriction',
      edge_id: edgeId,
      state: 'absent',
      enabled: true,
      ip_policy_ids: [],
      loc: c.loc(at),
    };
  }
  return {
    kind: 'tcp_edge_ip_restriction',
    edge_id: edgeId,
    state: 'present',
    enabled: module.enabled ?? true,
    ip_policy_ids: stringSet(module.ip_policies),
    loc: c.loc(at),
  };
}

function websocketTcpConverter(
  c: Checker,
  edgeId: string,
  routeId: string,
  route: HttpsEdge['routes'][string],
): DesiredWebsocketTcpConverter {
  const module = route?.websocket_tcp_converter;
  const loc = c.loc(['https_edges', edgeId, 'routes', routeId, 'websocket_tcp_converter']);
  const present = typeof module === 'object' && module !== null;
  return {
    kind: 'websocket_tcp_converter',
    edge_id: edgeId,
    route_id: routeId,
    state: present ? 'present' : 'absent',
    enabled: present ? (module.enabled ?? true) : true,
    loc,
  };
}
