// The only rule of a policy the dashboard restriction uses (ERR_NGROK_1419), through the CLI against
// `accord serve`: a plan that could only get there through that refusal (the last rule removed, the
// only rule flipped) is a plan error (exit 1), even with --force, naming what to do first; done in two
// applies (the new rule first), it goes through.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSeededService } from '../support/server.js';
import { accord, listAll, markerOf } from './helpers.js';

const KEY = 'test-key-only-rule-0123456789ab';

const file = (rules: string[]) =>
  [
    'version: 1',
    'owner: only',
    'ip_policies:',
    '  office:',
    `    rules: [${rules.join(', ')}]`,
    'ip_restrictions:',
    '  dash:',
    '    type: dashboard',
    '    enforced: true',
    '    ip_policies: [office]',
    '',
  ].join('\n');

describe('the only rule of the dashboard policy', () => {
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-only-rule-'));
  const write = (name: string, rules: string[]) => {
    const path = join(dir, name);
    writeFileSync(path, file(rules));
    return path;
  };
  const run = (args: string[]) => accord(server.url, KEY, args);

  it('is never deleted through a refused request: a plan error, then two applies', async () => {
    expect(
      (await run(['apply', '-f', write('a.yaml', ['{allow: 10.0.0.0/8}']), '--auto-approve'])).code,
    ).toBe(0);
    for (const rules of [[], ['{deny: 10.0.0.0/8}']]) {
      const refused = await run(['apply', '-f', write('b.yaml', rules), '--auto-approve', '--force']);
      expect(refused.code).toBe(1);
      expect(refused.err).toContain('the service refuses that (ERR_NGROK_1419)');
      expect(refused.err).toContain('Give the policy its new rules in an apply of their own first');
    }
    const step = await run([
      'apply',
      '-f',
      write('c.yaml', ['{allow: 10.0.0.0/8}', '{deny: 10.9.0.0/16}']),
      '--auto-approve',
    ]);
    expect(step.code, step.err).toBe(0);
    const done = await run([
      'apply',
      '-f',
      write('d.yaml', ['{deny: 10.9.0.0/16}']),
      '--auto-approve',
      '--force',
    ]);
    expect(done.code, done.err).toBe(0);
    const rules = (await listAll(server.url, KEY, '/ip_policy_rules', 'ip_policy_rules')).filter(
      (r) => markerOf(r)?.owner === 'only',
    );
    expect(rules.map((r) => `${r['action']} ${r['cidr']}`)).toEqual(['deny 10.9.0.0/16']);
  });
});
