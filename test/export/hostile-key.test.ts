// `accord export` writes a file meant to be committed, and derives names from the account's data: entry
// keys from descriptions, CA common names, principals and markers; PEM file names from those keys;
// comments from metadata. A service whose every free-text string holds the API key (in its own case,
// lower-cased, upper-cased, after a prefix that cuts it at the key length limit) must not get the key,
// or a piece of it, into any of that (DESIGN §5: the key is never printed or saved).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { encodeMarker } from '../../src/resources/marker.js';
import { accord } from '../apply/helpers.js';
import { makeCaPem } from '../support/ca.js';
import { HOST_CA, OFFICE, useSeededService } from '../support/server.js';
import { hostKeys } from './account.js';

// Only characters a key keeps when slugged, so that a derived key would hold it whole (lower-cased).
const KEY = 'Ak3fX9pQ7zL2mN8rT4vW6yB1cD5eG0hJ';
const lower = KEY.toLowerCase();
/** Every piece of the key long enough to matter: none may appear anywhere, in any case. */
const PIECES = Array.from({ length: lower.length - 11 }, (_, i) => lower.slice(i, i + 12));

/** The key as a service may hand it back in a free-text field. */
const FORMS = [
  KEY,
  `leak ${KEY}`,
  lower,
  KEY.toUpperCase(),
  `${'x'.repeat(44)} ${KEY}`, // slugged and cut at 63 characters: a piece of the key
  `${KEY}-${KEY}`,
];

async function fillAccount(url: string, dir: string): Promise<void> {
  const client = new ApiClient({ baseUrl: url, apiKey: KEY });
  try {
    const post = (path: string, body: Record<string, unknown>) => client.post<{ id: string }>(path, body);
    const metadata = [
      KEY,
      JSON.stringify({ note: KEY, nested: { deep: [lower] } }),
      encodeMarker(lower, `leak-${lower}`, false, { by: KEY }),
      `{"blob": "${'y'.repeat(100)}${KEY}"}`,
      encodeMarker('other', lower, true, undefined),
      KEY.toUpperCase(),
    ];
    for (const [i, description] of FORMS.entries()) {
      const policy = await post('/ip_policies', { description, metadata: metadata[i]! });
      await post('/ip_policy_rules', {
        ip_policy_id: policy.id,
        action: 'allow',
        cidr: `10.${i}.0.0/16`,
        description,
      });
      const pem = await makeCaPem(dir, `ca${i}`, { subject: `/CN=${i % 2 ? KEY : `${lower} root`}` });
      await post('/certificate_authorities', {
        ca_pem: readFileSync(pem, 'utf8'),
        ...(i % 3 === 0 ? {} : { description }),
        metadata: metadata[(i + 1) % metadata.length]!,
      });
    }
    for (const [i, key] of hostKeys(FORMS.length).entries()) {
      await post('/ssh_host_certificates', {
        ssh_certificate_authority_id: HOST_CA,
        public_key: key,
        principals: [`${lower}.example.com`, `${KEY}${i}`],
        ...(i % 2 === 0 ? {} : { description: FORMS[i]! }),
        metadata: metadata[(i + 2) % metadata.length]!,
      });
    }
    for (const [i, type] of (['api', 'agent'] as const).entries()) {
      await post('/ip_restrictions', {
        type,
        enforced: false,
        ip_policy_ids: [OFFICE],
        description: FORMS[i]!,
        metadata: metadata[i + 2]!,
      });
    }
  } finally {
    await client.close();
  }
}

/** Every file under `dir`, as its path relative to `dir` and its text. */
function filesUnder(dir: string): { path: string; text: string }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path: relative(dir, path), text: readFileSync(path, 'utf8') }));
}

function expectNoKey(what: string, text: string): void {
  const folded = text.toLowerCase();
  for (const piece of PIECES) expect(folded.includes(piece), `${what} holds ${piece}`).toBe(false);
}

describe('accord export against a service that returns the API key in every free-text field', () => {
  const server = useSeededService(KEY);
  const work = mkdtempSync(join(tmpdir(), 'accord-export-key-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('puts no form or piece of the key in any key, file name, comment or value', async () => {
    const pems = mkdtempSync(join(tmpdir(), 'accord-export-key-ca-'));
    try {
      await fillAccount(server.url, pems);
    } finally {
      rmSync(pems, { recursive: true, force: true });
    }
    const out = join(work, 'out');
    const owners = ['--include-other-owners', '--include-managed'];
    const runs = [
      await accord(server.url, KEY, ['export', ...owners, '-o', '-'], { cwd: work }),
      await accord(server.url, KEY, ['export', ...owners, '-o', join(out, 'one', 'accord.yaml')], {
        cwd: work,
      }),
      await accord(server.url, KEY, ['export', ...owners, '--split', join(out, 'split')], { cwd: work }),
    ];
    for (const [i, r] of runs.entries()) {
      expect(r.code, r.err).toBe(0);
      expectNoKey(`run ${i} stdout`, r.out);
      expectNoKey(`run ${i} stderr`, r.err);
    }
    // The data was there to leak: the account was exported, redacted.
    expect(runs[0]!.out).toContain('[REDACTED]');
    expect(runs[0]!.out.match(/^ {2}\S+:$/gm)?.length).toBeGreaterThan(20);
    const written = filesUnder(out);
    expect(written.some((f) => f.path.startsWith('split/') && f.path.endsWith('.yaml'))).toBe(true);
    expect(written.some((f) => /certs\/.+\.pem$/.test(f.path))).toBe(true);
    for (const f of written) {
      expectNoKey(`the name ${f.path}`, f.path);
      expectNoKey(f.path, f.text);
    }
  });
});
