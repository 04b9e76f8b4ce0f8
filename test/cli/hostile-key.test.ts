// A service that returns the API key inside resource data (a description, a metadata string): accord
// never prints it or saves it, in any output or file (DESIGN §5: the key is never printed, logged or
// saved in a plan).
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { Secrets } from '../../src/api/redact.js';
import { schemaText } from '../../src/config/schema-file.js';
import { accord } from '../apply/helpers.js';
import { OFFICE, useSeededService } from '../support/server.js';

// A quote and a slash: the key also appears JSON-escaped and percent-encoded in what accord writes.
const KEY = 'hostile"key/0123456789abcdef';

describe('the API key in resource data', () => {
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-hostile-'));
  const file = join(dir, 'accord.yaml');
  const summary = join(dir, 'summary.md');
  const run = (...args: string[]) =>
    accord(server.url, KEY, args, {
      cwd: dir,
      env: { ACCORD_API_KEY: KEY, ACCORD_API_URL: server.url, GITHUB_STEP_SUMMARY: summary },
    });

  it('is in no output and no file accord writes', async () => {
    const client = new ApiClient({ baseUrl: server.url, apiKey: KEY });
    let id: string;
    try {
      const created = await client.post<{ id: string }>('/ip_restrictions', {
        type: 'agent',
        enforced: true,
        ip_policy_ids: [OFFICE],
        description: `holds ${KEY} here`,
        metadata: JSON.stringify({ leaked: KEY, url: encodeURIComponent(KEY) }),
      });
      id = created.id;
    } finally {
      await client.close();
    }
    writeFileSync(
      file,
      [
        'version: 1',
        'owner: hostile',
        'ip_restrictions:',
        '  agents:',
        `    id: ${id}`,
        '    type: agent',
        '    enforced: true',
        `    ip_policies: [${OFFICE}]`,
        '    description: mine now',
        '',
      ].join('\n'),
    );

    const runs = [
      await run('plan', '-f', file),
      await run('plan', '-f', file, '--json', '--out', join(dir, 'plan.json')),
      await run('plan', '-f', file, '--markdown', '--verbose'),
      await run('drift', '-f', file),
      await run('drift', '-f', file, '--json'),
      await run('drift', '-f', file, '--markdown'),
      await run('export', '--owner', 'other', '-o', join(dir, 'export.yaml')),
      await run('export', '--owner', 'other', '-o', '-'),
    ];
    // The runs saw the object: the key was there to leak.
    expect(runs[0]!.out).toContain('~ description = "holds [REDACTED] here" -> "mine now"');
    expect(JSON.parse(runs[1]!.out).changes[0].before.description).toBe('holds [REDACTED] here');
    expect(runs[2]!.err).toContain('[api] ');
    for (const r of runs) {
      for (const text of [r.out, r.err]) {
        expect(text).not.toContain(KEY);
        expect(text).not.toContain(JSON.stringify(KEY).slice(1, -1));
        expect(text).not.toContain(encodeURIComponent(KEY));
      }
    }
    const apply = await run('apply', '-f', file, '--auto-approve');
    expect(apply.code, apply.err).toBe(0);
    expect(apply.out + apply.err).not.toContain(KEY);

    const written = readdirSync(dir).filter((f) => f !== 'accord.yaml');
    expect(written.sort()).toEqual(['accord.schema.json', 'export.yaml', 'plan.json', 'summary.md']);
    // The schema export puts beside its file is the package's own, which holds no account data.
    expect(readFileSync(join(dir, 'accord.schema.json'), 'utf8')).toBe(schemaText('desired'));
    for (const name of written.filter((f) => f !== 'accord.schema.json')) {
      const text = readFileSync(join(dir, name), 'utf8');
      expect(text, name).toContain('[REDACTED]');
      for (const form of [KEY, JSON.stringify(KEY).slice(1, -1), encodeURIComponent(KEY)])
        expect(text, name).not.toContain(form);
    }
    // The saved plan is still a readable plan.
    expect(JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')).changes[0].address).toBe(
      'ip_restrictions.agents',
    );
  });
});

describe('Secrets', () => {
  it('redacts each form of a secret and leaves other text alone', () => {
    const s = new Secrets();
    expect(s.redact(`a ${KEY}`)).toBe(`a ${KEY}`);
    s.add(KEY);
    s.add('');
    expect(s.redact(`a ${KEY} b ${JSON.stringify(KEY)} c ${encodeURIComponent(KEY)}`)).toBe(
      'a [REDACTED] b "[REDACTED]" c [REDACTED]',
    );
    expect(s.redact('Bearer token rotation')).toBe('Bearer token rotation');
    // In any letter case: a name derived from data is lower-cased.
    expect(s.redact(`k-${KEY.toLowerCase()} ${KEY.toUpperCase()}`)).toBe('k-[REDACTED] [REDACTED]');
  });
});
