// Certificate authorities (shared/SPEC.md "Certificate authorities"): the PEM is immutable and compared
// by the SHA-256 of its DER (the service appends a newline); the plan shows CN, expiry and fingerprint.

import { type CaCertificate, PemError, parseCaPem, pemSha256 } from '../crypto/pem.js';
import { ID_PREFIXES } from '../ids.js';
import { type ManagedEntry, managedKind } from './types.js';
import { DAY_MS, instant, instantText, isRecord, str } from './values.js';

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

export interface DesiredCertificateAuthority extends ManagedEntry {
  kind: 'certificate_authority';
  /** The PEM as read (from ca_pem or ca_pem_file). */
  ca_pem: string;
  /** SHA-256 hex of the certificate DER: the comparison value. */
  ca_sha256: string;
  subject_common_name: string;
  /** ISO instants. */
  not_before: string;
  not_after: string;
}

export const certificateAuthority = managedKind<DesiredCertificateAuthority, 'certificate_authorities'>({
  kind: 'certificate_authority',
  section: 'certificate_authorities',
  nouns: { one: 'certificate authority', many: 'certificate authorities' },
  idPrefix: ID_PREFIXES.certificate_authority,
  read: (e, shared, reader) => {
    const at = ['certificate_authorities', shared.key, 'ca_pem'];
    const content = reader.content(at, e.ca_pem, 'ca_pem_file', e.ca_pem_file);
    if (!content) return undefined;
    const ca = reader.memo(`ca_pem ${content.text}`, () => parseOrError(content.text));
    if (ca instanceof PemError) {
      reader.report(content.where, `${content.label} ${ca.message}`);
      return undefined;
    }
    return {
      kind: 'certificate_authority',
      ...shared,
      ca_pem: content.text,
      ca_sha256: ca.sha256,
      subject_common_name: ca.subjectCommonName,
      not_before: ca.notBefore.toISOString(),
      not_after: ca.notAfter.toISOString(),
    };
  },
  fields: [
    {
      name: 'ca_pem',
      immutable: true,
      equals: (a, b) => isRecord(a) && isRecord(b) && a['sha256'] === b['sha256'],
      identity: (v) => (isRecord(v) ? v['sha256'] : undefined),
    },
  ],
  shown: {
    ca_pem: (v) => {
      if (!isRecord(v) || typeof v['sha256'] !== 'string') return undefined;
      const fp = v['sha256'].replace(/(..)(?!$)/g, '$1:');
      return `CN=${String(v['subject_common_name'])}, expires ${instantText(String(v['not_after']))}, SHA-256 ${fp}`;
    },
  },
  normalizeLive: (live) => ({
    ca_pem: {
      subject_common_name: str(live['subject_common_name']),
      not_after: instant(live['not_after']) ?? '',
      sha256: pemSha256(str(live['ca_pem'])),
    } satisfies PemSummary,
  }),
  normalizeDesired: (d) => ({
    ca_pem: {
      subject_common_name: d.subject_common_name,
      not_after: d.not_after,
      sha256: d.ca_sha256,
      pem: d.ca_pem,
    } satisfies DesiredPem,
  }),
  createBody: (v) => ({ ca_pem: isRecord(v['ca_pem']) ? v['ca_pem']['pem'] : undefined }),
  warnings: (d, now) => {
    const left = Date.parse(d.not_after) - now.getTime();
    const facts = {
      code: 'ca_expiry',
      address: `certificate_authorities.${d.key}`,
      common_name: d.subject_common_name,
      not_after: d.not_after,
    } as const;
    if (left <= 0) return [facts];
    if (left < CA_EXPIRY_WARNING_DAYS * DAY_MS) return [{ ...facts, days: Math.floor(left / DAY_MS) }];
    return [];
  },
  exportFields: (live, context) => {
    const pem = str(live['ca_pem']);
    const fp = pemSha256(pem).slice(0, 16);
    const notAfter = str(live['not_after']);
    const expired = context.now !== undefined && Date.parse(notAfter) <= context.now.getTime();
    context.comment(
      ` CN=${str(live['subject_common_name'])}, ${expired ? 'EXPIRED on' : 'expires'} ${notAfter}, SHA-256 ${fp}...`,
    );
    if (context.inline) return { ca_pem: pem };
    const path = `certs/${context.key}.pem`;
    context.file(path, pem);
    return { ca_pem_file: path };
  },
  exportName: (live) => str(live['subject_common_name']),
});

function parseOrError(text: string): CaCertificate | PemError {
  try {
    return parseCaPem(text);
  } catch (err) {
    if (err instanceof PemError) return err;
    throw err;
  }
}
