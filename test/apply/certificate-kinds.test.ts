// `--cert-dir` writes the certificate of every kind whose descriptor has a `certificateFile`, named by
// that descriptor: a made-up second kind of SSH certificates, registered, is written beside the hosts'.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { certificatesToWrite, staleCertificates, writeCertificates } from '../../src/apply/certs.js';
import type { ChangeResult } from '../../src/apply/types.js';
import type { Plan } from '../../src/plan/types.js';
import { registerKind } from '../../src/resources/index.js';
import { sshHostCertificate } from '../../src/resources/ssh_host_certificate.js';

const dir = mkdtempSync(join(tmpdir(), 'accord-cert-kinds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const userCerts = {
  ...sshHostCertificate,
  kind: 'ssh_user_certificate',
  section: 'ssh_user_certificates',
  certificateFile: { field: 'signed', suffix: '-user-cert.pub' },
} as unknown as typeof sshHostCertificate;

const change = (kind: string, section: string, key: string, id: string) => ({
  address: `${section}.${key}`,
  kind,
  key,
  id,
  action: 'no-op',
});

describe('certificates to write, by descriptor', () => {
  it('writes each kind’s certificate to its own file, and names the stale files of each', () => {
    const restore = registerKind(userCerts);
    try {
      const plan = {
        changes: [
          change('ssh_host_certificate', 'ssh_host_certificates', 'bastion', 'shcrt_1'),
          change('ssh_user_certificate', 'ssh_user_certificates', 'deploy', 'sshuc_1'),
          change('ip_restriction', 'ip_restrictions', 'office', 'ipx_1'),
        ],
      } as unknown as Plan;
      const objects = new Map([
        ['shcrt_1', { id: 'shcrt_1', certificate: 'host-cert' }],
        ['sshuc_1', { id: 'sshuc_1', signed: 'user-cert' }],
        ['ipx_1', { id: 'ipx_1', certificate: 'not one' }],
      ]);
      const certs = certificatesToWrite(plan, [] as ChangeResult[], objects);
      expect(certs.map((c) => [c.section, c.key, c.certificate, c.suffix])).toEqual([
        ['ssh_host_certificates', 'bastion', 'host-cert', '-cert.pub'],
        ['ssh_user_certificates', 'deploy', 'user-cert', '-user-cert.pub'],
      ]);
      writeCertificates(dir, certs);
      expect(readFileSync(join(dir, 'bastion-cert.pub'), 'utf8')).toBe('host-cert\n');
      expect(readFileSync(join(dir, 'deploy-user-cert.pub'), 'utf8')).toBe('user-cert\n');
      writeFileSync(join(dir, 'old-user-cert.pub'), 'x\n');
      writeFileSync(join(dir, 'old-cert.pub'), 'x\n');
      // `deploy-user-cert.pub` ends as a host's file would too: it is the kind's of the longer suffix.
      expect(staleCertificates(dir, plan)).toEqual(['old-cert.pub', 'old-user-cert.pub']);
    } finally {
      restore();
    }
    expect(existsSync(join(dir, 'bastion-cert.pub'))).toBe(true);
  });
});
