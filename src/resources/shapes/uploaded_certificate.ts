// The shape of an uploaded X.509 certificate authority (shared/SPEC.md "Certificate authorities"): a
// PEM read from the file (inline or from `<field>_file`), immutable, compared by the SHA-256 of its DER
// (the service appends a newline); plans show its CN, expiry and fingerprint, never the PEM; `accord
// export` writes it to a file beside the YAML. A kind of this shape declares only what differs.

import { type CaCertificate, PemError, parseCaPem, pemSha256 } from '../../crypto/pem.js';
import {
  type ManagedDescriptorOf,
  type ManagedEntry,
  managedKind,
  type Nouns,
  type PathSegment,
} from '../types.js';
import { DAY_MS, instant, instantText, isRecord, str } from '../values.js';

/** A certificate that expires within this many days is warned of. */
export const CA_EXPIRY_WARNING_DAYS = 30;

/** What a plan shows of a PEM: never the PEM itself. */
export interface PemSummary {
  subject_common_name: string;
  not_after: string;
  sha256: string;
}

/** A desired PEM in the plan's `after`: the summary outputs show, and the text a create sends. */
export interface DesiredPem extends PemSummary {
  pem: string;
}

/** An entry of a kind of this shape, whatever the kind calls its PEM field. */
export interface UploadedCertificate<K extends string> extends ManagedEntry {
  kind: K;
  /** The PEM as read (from the field inline or from its `_file`). */
  ca_pem: string;
  /** SHA-256 hex of the certificate DER: the comparison value. */
  ca_sha256: string;
  subject_common_name: string;
  /** ISO instants. */
  not_before: string;
  not_after: string;
}

/** What differs between kinds of this shape. */
export interface UploadedCertificateSpec<K extends string, S extends string> {
  kind: K;
  section: S;
  nouns: Nouns;
  idPrefix: string;
  /** The API paths, where they differ from `section` (see `managedKind`). */
  collectionPath?: string;
  listKey?: string;
  itemPath?(id: string): string;
  /** The PEM's field in the file, the plan, the API and the live object; the file's `<field>_file`. Default `ca_pem`. */
  field?: string;
  /** Where `accord export` writes the PEMs, relative to the YAML. Default `certs`. */
  exportDir?: string;
}

/** The descriptor of a kind of uploaded certificate authorities. */
export function uploadedCertificateShape<K extends string, S extends string>(
  spec: UploadedCertificateSpec<K, S>,
): ManagedDescriptorOf<UploadedCertificate<K>, S> {
  const { kind, section, field = 'ca_pem', exportDir = 'certs', ...rest } = spec;
  type D = ManagedDescriptorOf<UploadedCertificate<K>, S>;
  return managedKind<UploadedCertificate<K>, S>({
    ...rest,
    kind,
    section,
    read: readEntry(kind, section, field),
    fields: [
      {
        name: field,
        immutable: true,
        equals: (a, b) => isRecord(a) && isRecord(b) && a['sha256'] === b['sha256'],
        identity: (v) => (isRecord(v) ? v['sha256'] : undefined),
      },
    ],
    shown: { [field]: shownPem },
    normalizeLive: (live) => ({
      [field]: {
        subject_common_name: str(live['subject_common_name']),
        not_after: instant(live['not_after']) ?? '',
        sha256: pemSha256(str(live[field])),
      } satisfies PemSummary,
    }),
    normalizeDesired: (d) => ({
      [field]: {
        subject_common_name: d.subject_common_name,
        not_after: d.not_after,
        sha256: d.ca_sha256,
        pem: d.ca_pem,
      } satisfies DesiredPem,
    }),
    createBody: (v) => ({ [field]: isRecord(v[field]) ? v[field]['pem'] : undefined }),
    warnings: (d, now) => expiryWarnings(`${section}.${d.key}`, d, now),
    exportFields: exportPem(field, exportDir) as D['exportFields'],
    exportName: (live) => str(live['subject_common_name']),
  });
}

/** Reads an entry's PEM, inline or from its `_file`, and what the plan compares and shows of it. */
function readEntry<K extends string, S extends string>(kind: K, section: S, field: string) {
  const read: ManagedDescriptorOf<UploadedCertificate<K>, S>['read'] = (written, shared, reader) => {
    const e = written as Readonly<Record<string, string | undefined>>;
    const at: PathSegment[] = [section, shared.key, field];
    const content = reader.content(at, e[field], `${field}_file`, e[`${field}_file`]);
    if (!content) return undefined;
    const ca = reader.memo(`ca_pem ${content.text}`, () => parseOrError(content.text));
    if (ca instanceof PemError) {
      reader.report(content.where, `${content.label} ${ca.message}`);
      return undefined;
    }
    return {
      kind,
      ...shared,
      ca_pem: content.text,
      ca_sha256: ca.sha256,
      subject_common_name: ca.subjectCommonName,
      not_before: ca.notBefore.toISOString(),
      not_after: ca.notAfter.toISOString(),
    };
  };
  return read;
}

/** The warning of a certificate that has expired or expires within CA_EXPIRY_WARNING_DAYS. */
function expiryWarnings(address: string, d: { subject_common_name: string; not_after: string }, now: Date) {
  const left = Date.parse(d.not_after) - now.getTime();
  const facts = {
    code: 'ca_expiry',
    address,
    common_name: d.subject_common_name,
    not_after: d.not_after,
  } as const;
  if (left <= 0) return [facts];
  if (left < CA_EXPIRY_WARNING_DAYS * DAY_MS) return [{ ...facts, days: Math.floor(left / DAY_MS) }];
  return [];
}

/** How `accord export` writes a PEM: to `<exportDir>/<key>.pem` beside the YAML, or inline. */
function exportPem(field: string, exportDir: string) {
  return (
    live: Readonly<Record<string, unknown>>,
    context: {
      now?: Date;
      inline?: boolean;
      key: string;
      comment(text: string): void;
      file(path: string, text: string): void;
    },
  ): Record<string, unknown> => {
    const pem = str(live[field]);
    const fp = pemSha256(pem).slice(0, 16);
    const notAfter = str(live['not_after']);
    const expired = context.now !== undefined && Date.parse(notAfter) <= context.now.getTime();
    context.comment(
      ` CN=${str(live['subject_common_name'])}, ${expired ? 'EXPIRED on' : 'expires'} ${notAfter}, SHA-256 ${fp}...`,
    );
    if (context.inline) return { [field]: pem };
    const path = `${exportDir}/${context.key}.pem`;
    context.file(path, pem);
    return { [`${field}_file`]: path };
  };
}

/** A PEM's summary as a person reads it: `CN=..., expires ..., SHA-256 ab:cd:...`. */
function shownPem(v: unknown): string | undefined {
  if (!isRecord(v) || typeof v['sha256'] !== 'string') return undefined;
  const fp = v['sha256'].replace(/(..)(?!$)/g, '$1:');
  return `CN=${String(v['subject_common_name'])}, expires ${instantText(String(v['not_after']))}, SHA-256 ${fp}`;
}

function parseOrError(text: string): CaCertificate | PemError {
  try {
    return parseCaPem(text);
  } catch (err) {
    if (err instanceof PemError) return err;
    throw err;
  }
}
