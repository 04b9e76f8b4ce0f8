// Certificate authorities (shared/SPEC.md "Certificate authorities"): one X.509 CA certificate per
// object, its subject and validity read from the certificate itself.
import { PemError, parseCaPem } from '../../crypto/pem.js';
import type { Collection } from '../collections.js';
import { ServiceError } from '../errors.js';
import { timestamp } from '../http.js';

export const certificateAuthorities: Collection = {
  kind: 'certificate_authority',
  noun: 'certificate authority',
  listKey: 'certificate_authorities',
  route: '/certificate_authorities',
  createSchema: 'certificate_authority.create',
  updateSchema: 'certificate_authority.update',
  create: (ctx, body) => {
    const pem = body.ca_pem as string;
    let cert: ReturnType<typeof parseCaPem>;
    try {
      cert = (ctx.parseCaPem ?? parseCaPem)(pem);
    } catch (err) {
      if (err instanceof PemError) throw new ServiceError('ERR_INVALID_PEM', `ca_pem ${err.message}`);
      throw err;
    }
    return {
      fields: {
        ca_pem: `${pem.trim()}\n`,
        subject_common_name: cert.subjectCommonName,
        not_before: timestamp(cert.notBefore),
        not_after: timestamp(cert.notAfter),
        key_usages: [],
        extended_key_usages: [],
      },
    };
  },
};
