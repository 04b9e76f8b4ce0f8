import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ListenError, SeedError, startServer } from '../../src/server/index.js';
import { startApi } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'accord-seed-'));

function seedFile(text: string): string {
  const file = join(dir, `seed-${Math.random()}.yaml`);
  writeFileSync(file, text);
  return file;
}

describe('--seed', () => {
  it('preloads the demo objects with their fixed IDs', async () => {
    const api = await startApi();
    try {
      expect(
        (await api.call('GET', '/ip_policies')).body.ip_policies.map((p: { id: string }) => p.id),
      ).toEqual(['ipp_2demoVpn0000000000000000000', 'ipp_2demoOffice0000000000000000']);
      const routes = await api.call('GET', '/edges/https/edghts_2demoWeb0000000000000000000/routes');
      expect(routes.body.routes.map((r: { id: string }) => r.id).sort()).toEqual([
        'edghtsrt_2demoApi0000000000000000000',
        'edghtsrt_2demoWebSocket0000000000000',
      ]);
      expect((await api.call('GET', '/edges/tcp/edgtcp_2demoDb00000000000000000000')).status).toBe(200);
      expect(
        (await api.call('GET', '/ssh_certificate_authorities/sshca_2demoHostCA0000000000000000')).body
          .key_type,
      ).toBe('ed25519');
    } finally {
      await api.server.close();
    }
  });

  it('uses a given SSH CA private key', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const seed = seedFile(
      `ssh_certificate_authorities:\n  - id: sshca_2fixed000000000000000000000\n    private_key: |\n${pem
        .trim()
        .split('\n')
        .map((l) => `      ${l}`)
        .join('\n')}\n`,
    );
    const api = await startApi({ seed });
    try {
      const ca = await api.call('GET', '/ssh_certificate_authorities/sshca_2fixed000000000000000000000');
      const jwk = privateKey.export({ format: 'jwk' });
      const point = Buffer.concat([
        Buffer.from([4]),
        Buffer.from(jwk.x!, 'base64url'),
        Buffer.from(jwk.y!, 'base64url'),
      ]);
      expect(Buffer.from(ca.body.public_key.split(' ')[1], 'base64').subarray(-97)).toEqual(point);
    } finally {
      await api.server.close();
    }
  });

  it('keeps seeded objects of a --data file, generated keys included, across restarts', async () => {
    const data = join(dir, 'seeded.db');
    const path = '/ssh_certificate_authorities/sshca_2demoHostCA0000000000000000';
    const first = await startApi({ dataFile: data });
    const before = (await first.call('GET', path)).body;
    await first.server.close();
    const second = await startApi({ dataFile: data });
    try {
      const after = (await second.call('GET', path)).body;
      expect({ ...after, uri: '' }).toEqual({ ...before, uri: '' });
    } finally {
      await second.server.close();
    }
  });

  it.each([
    ['ip_policies:\n  - id: ipx_2demoOffice0000000000000000\n', /"id" must be an ID/],
    ['ip_policies:\n  - id: ipp_2demoOffice0000000000000000\n    colour: red\n', /unknown field "colour"/],
    ['widgets: []\n', /unknown section "widgets"/],
    [
      'ssh_certificate_authorities:\n  - id: sshca_2fixed000000000000000000000\n    private_key: nope\n',
      /private_key/,
    ],
    ['ip_policies: [\n', /:2:1: the seed file is not valid YAML/],
    [
      'ip_policies:\n  - id: ipp_2demoOffice0000000000000000\n    rules:\n      - id: ipr_2r0000000000000000000000000\n        action: allow\n        cidr: 10.1.2.3/16\n',
      /ip_policies\[0\]\.rules\[0\]: field "cidr": "10\.1\.2\.3\/16" is not the lowest address of its range; write 10\.1\.0\.0\/16/,
    ],
    [
      'ip_policies:\n  - id: ipp_2demoOffice0000000000000000\n    rules:\n      - id: ipp_2r000000000000000000000000\n',
      /ip_policies\[0\]\.rules\[0\]: "id" must be an ID of this kind/,
    ],
    ['tcp_edges:\n  - id: edgtcp_2demoDb00000000000000000000\n    rules: []\n', /unknown field "rules"/],
  ])('rejects a bad seed: %j', async (text, message) => {
    const err = await startServer({ port: 0, seed: seedFile(text) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SeedError);
    expect((err as Error).message).toMatch(message);
  });

  it('says every problem of a seed file, each at its line', async () => {
    const text =
      'ip_policies:\n  - id: ipx_2demoOffice0000000000000000\n  - id: ipp_2demoOffice0000000000000000\n    colour: red\n' +
      'ssh_certificate_authorities:\n  - description: no id\n';
    const file = seedFile(text);
    const err = (await startServer({ port: 0, seed: file }).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(SeedError);
    expect(err.message).toBe(
      'Error: 3 problems in the seed file, so the service did not start; fix them (see examples/seed.yaml):\n'.slice(
        7,
      ) +
        `${file}:2:9: ip_policies[0]: "id" must be an ID of this kind (prefix and 27 letters and digits)\n` +
        `${file}:3:5: ip_policies[1]: unknown field "colour"; this request accepts: description, metadata\n` +
        `${file}:6:5: ssh_certificate_authorities[0]: "id" must be an ID of this kind (prefix and 27 letters and digits)`,
    );
  });
});

describe('listening', () => {
  it('reports a taken port as a ListenError', async () => {
    const first = await startServer({ port: 0 });
    try {
      const port = Number(new URL(first.url).port);
      const err = await startServer({ port }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ListenError);
      expect((err as Error).message).toMatch(/EADDRINUSE.*--port/);
    } finally {
      await first.close();
    }
  });
});
