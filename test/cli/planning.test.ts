// How the command line says what the planner reports of --target/--exclude patterns that match nothing.
import { describe, expect, it } from 'vitest';
import { unmatchedMessage } from '../../src/cli/planning.js';

describe('patterns that match nothing, as the usage error says them', () => {
  it('names the pattern, what it may have meant, and what to do', () => {
    expect(
      unmatchedMessage([
        { flag: '--target', pattern: 'ip_restrictions.ofice', near: ['ip_restrictions.office'] },
      ]),
    ).toBe(
      '--target ip_restrictions.ofice (did you mean ip_restrictions.office?) matches no change of the plan ' +
        '(no entry of the file, nor anything it deletes); nothing was planned. A pattern is an address as the ' +
        'plan shows it (ip_restrictions.office), a glob (ssh_host_certificates.web-*) or a section ' +
        '(certificate_authorities); run accord plan without --target/--exclude to see every address.',
    );
  });

  it('names every pattern of both flags, each with what it may have meant', () => {
    expect(
      unmatchedMessage([
        { flag: '--target', pattern: 'ssh_host_certificate', near: ['ssh_host_certificates'] },
        { flag: '--exclude', pattern: 'a.b', near: ['a.c', 'a.d'] },
        { flag: '--exclude', pattern: 'zzz', near: [] },
      ]),
    ).toMatch(
      /^--target ssh_host_certificate \(did you mean ssh_host_certificates\?\), --exclude a\.b \(did you mean a\.c or a\.d\?\), --exclude zzz match no change of the plan /,
    );
  });
});
