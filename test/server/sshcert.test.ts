import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, HOST_CA, startApi } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'accord-sshcert-'));

function keygen(type: string, bits: string[], name: string): string {
  const path = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', type, ...bits, '-N', '', '-C', `${name}@test`, '-f', path]);
  return readFileSync(`${path}.pub`, 'utf8').trim();
}

function readCert(certificate: string, name: string): string {
  const path = join(dir, `${name}-cert.pub`);
  writeFileSync(path, `${certificate}\n`);
  return execFileSync('ssh-keygen', ['-L', '-f', path], { env: { ...process.env, TZ: 'UTC' } }).toString();
}

function fingerprint(publicKey: string, name: string): string {
  const path = join(dir, `${name}.ca.pub`);
  writeFileSync(path, `${publicKey}\n`);
  return execFileSync('ssh-keygen', ['-l', '-f', path]).toString().split(' ')[1]!;
}

describe('SSH host certificates read by the real ssh-keygen', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.server.close());

  const hostKeys = [
    ['ed25519', []],
    ['ecdsa', ['-b', '256']],
    ['ecdsa', ['-b', '521']],
    ['rsa', ['-b', '2048']],
  ] as const;
  const cas = [
    { private_key_type: 'ed25519' },
    { private_key_type: 'ecdsa', elliptic_curve: 'p384' },
    { private_key_type: 'rsa', key_size: 2048 },
  ];

  for (const caBody of cas) {
    for (const [type, bits] of hostKeys) {
      it(`${type} ${bits.join(' ')} host key signed by a ${caBody.private_key_type} CA`, async () => {
        const ca = await api.call('POST', '/ssh_certificate_authorities', caBody);
        expect(ca.status).toBe(201);
        expect(ca.body.key_type).toBe(caBody.private_key_type);
        const name = `${caBody.private_key_type}-${type}-${bits.join('')}`;
        const publicKey = keygen(type, [...bits], name);
        const res = await api.call('POST', '/ssh_host_certificates', {
          ssh_certificate_authority_id: ca.body.id,
          public_key: publicKey,
          principals: ['bastion.example.com', '10.0.0.5'],
          valid_after: '2026-12-01T00:00:00Z',
          valid_until: '2027-06-01T12:30:00Z',
        });
        expect(res.status).toBe(201);
        expect(res.body.key_type).toBe(type);
        const listing = readCert(res.body.certificate, name);
        expect(listing).toContain('host certificate');
        expect(listing).toContain('Valid: from 2026-12-01T00:00:00 to 2027-06-01T12:30:00');
        expect(listing).toMatch(/Principals: \n\s+bastion\.example\.com\n\s+10\.0\.0\.5\n/);
        expect(listing).toContain(`Key ID: "${res.body.id}"`);
        expect(listing).toContain(
          `Signing CA: ${caBody.private_key_type === 'rsa' ? 'RSA' : caBody.private_key_type === 'ecdsa' ? 'ECDSA' : 'ED25519'} ${fingerprint(ca.body.public_key, name)}`,
        );
        if (caBody.private_key_type === 'rsa') expect(listing).toContain('(using rsa-sha2-512)');
      });
    }
  }

  it('issues a certificate valid for all hosts when principals are empty, with default validity', async () => {
    // The service's clock, fixed: the default validity is from its now, whatever the machine's speed.
    const at = Date.parse('2026-03-01T12:34:56Z');
    const fixed = await startApi({ now: () => new Date(at) });
    try {
      const publicKey = keygen('ed25519', [], 'allhosts');
      const res = await fixed.call('POST', '/ssh_host_certificates', {
        ssh_certificate_authority_id: HOST_CA,
        public_key: publicKey,
      });
      expect(res.status).toBe(201);
      expect(res.body.principals).toEqual([]);
      expect(res.body.valid_after).toBe('2026-03-01T12:34:56Z');
      expect(res.body.valid_until).toBe('2027-03-01T12:34:56Z');
      const listing = readCert(res.body.certificate, 'allhosts');
      expect(listing).toMatch(/Principals: \(none\)/);
      expect(listing).toMatch(/Valid: from 2026-03-01T\d\d:34:56 to 2027-03-01T\d\d:34:56/);
    } finally {
      await fixed.server.close();
    }
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a real sshd presenting an issued certificate', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.server.close());

  it('is accepted by ssh trusting the CA through @cert-authority, and refused with another CA', async () => {
    // sshd run as root needs its privilege separation directory; the openssh-server package makes it at boot.
    if (process.getuid?.() === 0 && !existsSync('/run/sshd')) mkdirSync('/run/sshd', { mode: 0o755 });
    const hostKey = join(dir, 'sshd_host_key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
    const cert = await api.call('POST', '/ssh_host_certificates', {
      ssh_certificate_authority_id: HOST_CA,
      public_key: readFileSync(`${hostKey}.pub`, 'utf8'),
      principals: ['localhost'],
    });
    expect(cert.status).toBe(201);
    writeFileSync(`${hostKey}-cert.pub`, `${cert.body.certificate}\n`);
    const ca = await api.call('GET', `/ssh_certificate_authorities/${HOST_CA}`);
    const port = await freePort();
    const config = join(dir, 'sshd_config');
    writeFileSync(
      config,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${hostKey}`,
        `HostCertificate ${hostKey}-cert.pub`,
        'PidFile none',
        'UsePAM no',
        'StrictModes no',
        '',
      ].join('\n'),
    );
    const sshd = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      await new Promise<void>((resolve, reject) => {
        let log = '';
        sshd.stderr.on('data', (chunk: Buffer) => {
          log += chunk.toString();
          if (log.includes('Server listening')) resolve();
        });
        sshd.on('exit', (code) => reject(new Error(`sshd exited with ${code}: ${log}`)));
      });
      const ssh = async (caLine: string) => {
        const knownHosts = join(dir, `known_hosts_${Math.random()}`);
        writeFileSync(knownHosts, `@cert-authority * ${caLine}\n`);
        const args = [
          '-v',
          '-o',
          'BatchMode=yes',
          '-o',
          `UserKnownHostsFile=${knownHosts}`,
          '-o',
          'GlobalKnownHostsFile=/dev/null',
          '-o',
          'StrictHostKeyChecking=yes',
          '-o',
          'HostKeyAlgorithms=ssh-ed25519-cert-v01@openssh.com',
          '-o',
          'ConnectTimeout=10',
          '-o',
          'PubkeyAuthentication=no',
          '-o',
          'PasswordAuthentication=no',
          '-o',
          'KbdInteractiveAuthentication=no',
          '-p',
          String(port),
          'nobody@localhost',
          'true',
        ];
        try {
          const out = await promisify(execFile)('ssh', args, { timeout: 20_000 });
          return out.stderr;
        } catch (err) {
          return String((err as { stderr?: string }).stderr ?? err);
        }
      };
      const trusted = await ssh(ca.body.public_key);
      expect(trusted).toContain(`ID "${cert.body.id}"`);
      expect(trusted).toMatch(
        /Host '\[localhost\]:\d+' is known and matches the ED25519-CERT host certificate/,
      );
      const other = await api.call('POST', '/ssh_certificate_authorities', {});
      const untrusted = await ssh(other.body.public_key);
      expect(untrusted).not.toContain('is known and matches');
      expect(untrusted).toContain('Host key verification failed');
    } finally {
      sshd.kill('SIGTERM');
    }
  });
});
