// Certificate authorities (shared/SPEC.md "Certificate authorities"): uploaded X.509 CA certificates,
// of the shape src/resources/shapes/uploaded_certificate.ts describes.
import { ID_PREFIXES } from '../ids.js';
import { type UploadedCertificate, uploadedCertificateShape } from './shapes/uploaded_certificate.js';

export type DesiredCertificateAuthority = UploadedCertificate<'certificate_authority'>;

export const certificateAuthority = uploadedCertificateShape({
  kind: 'certificate_authority',
  section: 'certificate_authorities',
  nouns: { one: 'certificate authority', many: 'certificate authorities' },
  idPrefix: ID_PREFIXES.certificate_authority,
});
