// SSH host certificates (shared/SPEC.md "SSH host certificates"): everything but description and
// metadata is immutable; `renew_before` replaces a certificate whose expiry is near.

import { parseSshPublicKey, SshKeyError } from '../crypto/sshkey.js';
import { ID_PREFIXES } from '../ids.js';
import { durationText, parseDuration, readInstant } from './reading.js';
import { type DescriptorWarning, type ManagedEntry, managedKind } from './types.js';
import {
  canonicalPublicKey,
  DAY_MS,
  instant,
  type LiveObject,
  list,
  samePublicKey,
  str,
  stringSet,
  stringsAsSet,
} from './values.js';

export interface DesiredSshHostCertificate extends ManagedEntry {
  kind: 'ssh_host_certificate';
  ssh_certificate_authority_id: string;
  /** The key line as written (comment kept), sent on create. */
  public_key: string;
  /** `algorithm base64`, the comparison value. */
  public_key_canonical: string;
  /** Sorted, unique; [] means all hosts. */
  principals: string[];
  /** ISO instants (`new Date(x).toISOString()`), only when the file sets them. */
  valid_after?: string;
  valid_until?: string;
  /** `valid_for` in seconds: create time only. */
  valid_for_seconds?: number;
  /** `renew_before` in seconds. */
  renew_before_seconds?: number;
}

export const sshHostCertificate = managedKind<DesiredSshHostCertificate, 'ssh_host_certificates'>({
  kind: 'ssh_host_certificate',
  section: 'ssh_host_certificates',
  nouns: { one: 'SSH host certificate', many: 'SSH host certificates' },
  idPrefix: ID_PREFIXES.ssh_host_certificate,
  // `accord apply --cert-dir` writes the signed certificate to <key>-cert.pub.
  certificateFile: { field: 'certificate', suffix: '-cert.pub' },
  read: (e, shared, reader) => {
    const at = ['ssh_host_certificates', shared.key];
    const validAfter = readInstant(reader, [...at, 'valid_after'], e.valid_after);
    const validUntil = readInstant(reader, [...at, 'valid_until'], e.valid_until);
    if (validAfter && validUntil && validAfter >= validUntil) {
      reader.report([...at, 'valid_until'], `must be later than valid_after (${e.valid_after})`);
    }
    const validFor = typeof e.valid_for === 'string' ? parseDuration(e.valid_for) : undefined;
    const renewBefore = typeof e.renew_before === 'string' ? parseDuration(e.renew_before) : undefined;
    if (validFor !== undefined && renewBefore !== undefined && renewBefore >= validFor) {
      reader.report(
        [...at, 'renew_before'],
        `is not shorter than valid_for (${e.valid_for}): the certificate would be replaced on every apply`,
      );
    }
    const content = reader.content([...at, 'public_key'], e.public_key, 'public_key_file', e.public_key_file);
    if (!content) return undefined;
    if (/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(content.text)) {
      // Never quoted: it is a secret.
      reader.report(
        content.where,
        `${content.label} holds a private key; use the .pub file (the host's public key), and keep the private key out of the repository`,
      );
      return undefined;
    }
    try {
      const parsed = parseSshPublicKey(content.text);
      const entry: DesiredSshHostCertificate = {
        kind: 'ssh_host_certificate',
        ...shared,
        ssh_certificate_authority_id: e.ssh_certificate_authority_id,
        public_key: content.text.trim(),
        public_key_canonical: parsed.canonical,
        principals: stringSet(e.principals),
      };
      // Set only where the file sets them: an absent field is absent, not undefined.
      if (validAfter) entry.valid_after = validAfter;
      if (validUntil) entry.valid_until = validUntil;
      if (validFor !== undefined) entry.valid_for_seconds = validFor;
      if (renewBefore !== undefined) entry.renew_before_seconds = renewBefore;
      return entry;
    } catch (err) {
      if (!(err instanceof SshKeyError)) throw err;
      reader.report(content.where, `${content.label} is not a valid OpenSSH public key: ${err.message}`);
      return undefined;
    }
  },
  fields: [
    { name: 'ssh_certificate_authority_id', immutable: true },
    {
      name: 'public_key',
      immutable: true,
      // `after` holds the key line as written (a create sends its comment); the comment is not compared.
      equals: samePublicKey,
      identity: canonicalPublicKey,
    },
    { name: 'principals', immutable: true },
    { name: 'valid_after', immutable: true, optional: true },
    { name: 'valid_until', immutable: true, optional: true },
  ],
  shown: {
    valid_for_seconds: (v) => (typeof v === 'number' ? JSON.stringify(durationText(v)) : undefined),
  },
  normalizeLive: (live) => ({
    ssh_certificate_authority_id: str(live['ssh_certificate_authority_id']),
    public_key: canonicalPublicKey(live['public_key']),
    principals: stringsAsSet(live['principals']),
    valid_after: instant(live['valid_after']),
    valid_until: instant(live['valid_until']),
  }),
  normalizeDesired: (d) => ({
    ssh_certificate_authority_id: d.ssh_certificate_authority_id,
    public_key: d.public_key,
    principals: [...d.principals],
    valid_after: d.valid_after,
    valid_until: d.valid_until,
    valid_for_seconds: d.valid_until === undefined ? d.valid_for_seconds : undefined,
  }),
  createBody: (v, now) => {
    const body: Record<string, unknown> = {
      ssh_certificate_authority_id: v['ssh_certificate_authority_id'],
      public_key: v['public_key'],
      principals: list(v['principals']),
    };
    const validAfter = v['valid_after'];
    const validFor = v['valid_for_seconds'];
    if (validAfter !== undefined) body['valid_after'] = validAfter;
    if (v['valid_until'] !== undefined) body['valid_until'] = v['valid_until'];
    else if (typeof validFor === 'number') {
      // From the plan's created_at: `apply FILE` plans again, so from when the apply runs.
      const from =
        typeof validAfter === 'string' ? Math.max(Date.parse(validAfter), now.getTime()) : now.getTime();
      body['valid_until'] = new Date(from + validFor * 1000).toISOString();
    }
    return body;
  },
  renewal: (d, live, now) => {
    const renew = renewBefore(d, live, now);
    if (renew.replace !== undefined || renew.warning !== undefined) return renew;
    const note = validForNote(d, live);
    return note === undefined ? {} : { warning: note };
  },
  exportFields: (live, context) => {
    const fields: Record<string, unknown> = {
      ssh_certificate_authority_id: str(live['ssh_certificate_authority_id']),
      public_key: str(live['public_key']),
      principals: writtenPrincipals(live),
    };
    if (typeof live['valid_after'] === 'string') fields['valid_after'] = live['valid_after'];
    if (typeof live['valid_until'] === 'string') {
      fields['valid_until'] = live['valid_until'];
      if (context.now && Date.parse(live['valid_until']) <= context.now.getTime()) {
        context.comment(
          ` expired on ${live['valid_until']}: adopting keeps it as it is. To have apply replace it, use`,
        );
        context.comment(' valid_for (e.g. 90d) instead of valid_until and add renew_before (e.g. 30d).');
      }
    }
    return fields;
  },
  exportName: (live) => writtenPrincipals(live)[0] ?? '',
  exportComments: [
    ' valid_after and valid_until are the certificates as issued, so nothing is replaced. To renew',
    ' one automatically, replace its valid_until with valid_for (e.g. 90d) and add renew_before (e.g. 30d).',
  ],
});

/** `renew_before`: replace a certificate whose live expiry is nearer than it (DESIGN §4). */
function renewBefore(
  d: DesiredSshHostCertificate,
  live: LiveObject,
  now: Date,
): { replace?: { code: 'renewal'; days: number; expired: boolean }; warning?: DescriptorWarning } {
  if (d.renew_before_seconds === undefined) return {};
  const until = typeof live['valid_until'] === 'string' ? Date.parse(live['valid_until']) : Number.NaN;
  if (Number.isNaN(until)) return {};
  const window = d.renew_before_seconds * 1000;
  const left = until - now.getTime();
  if (left >= window) return {};
  // A fixed valid_until inside the window would be replaced on every plan: warn instead.
  if (d.valid_until !== undefined && Date.parse(d.valid_until) - now.getTime() < window) {
    return {
      warning: {
        code: 'valid_until_within_renewal',
        address: `ssh_host_certificates.${d.key}`,
        valid_until: d.valid_until,
      },
    };
  }
  const days = Math.floor(Math.abs(left) / DAY_MS);
  return {
    replace: { code: 'renewal', days, expired: left <= 0 },
  };
}

/**
 * `valid_for` sets a certificate's lifetime when it is created, and only then: a live certificate
 * issued for another lifetime keeps it. Said, with how to renew it, rather than a silent "No changes".
 * The lifetime is counted from when the certificate became valid (or was created, if later); a day or a
 * tenth of `valid_for`, whichever is less, is tolerated (a saved plan applied later starts later).
 */
function validForNote(d: DesiredSshHostCertificate, live: LiveObject): DescriptorWarning | undefined {
  const validFor = d.valid_for_seconds;
  if (validFor === undefined) return undefined;
  const until = Date.parse(str(live['valid_until']));
  const start = Math.max(Date.parse(str(live['valid_after'])), Date.parse(str(live['created_at'])) || 0);
  if (Number.isNaN(until) || Number.isNaN(start)) return undefined;
  const lifetime = (until - start) / 1000;
  if (Math.abs(lifetime - validFor) <= Math.min(86_400, validFor / 10)) return undefined;
  return {
    code: 'valid_for_kept',
    address: `ssh_host_certificates.${d.key}`,
    id: str(live['id']),
    valid_for: validFor,
    lifetime,
    valid_until: str(live['valid_until']),
  };
}

/** The live principals in the service's order ([] = all hosts). */
function writtenPrincipals(live: LiveObject): string[] {
  const principals = live['principals'];
  return Array.isArray(principals) ? principals.filter((p) => typeof p === 'string') : [];
}
