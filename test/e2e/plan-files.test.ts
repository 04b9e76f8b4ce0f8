// A saved plan never chooses which files are applied (DESIGN §4 "Saved plans"): `accord apply PLAN.json`
// reads the files the command names (-f, ACCORD_FILES, the default), and the plan's `files` must be
// those, as relative paths inside the working directory. A plan artifact comes from a CI run that the
// pull request's author controls: replacing its files, digest and changes with those of another file of
// the checkout must not apply that file, and a path out of the directory must not make accord read it.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/types.js';
import { accord, listAll, markerOf, OFFICE, VPN } from '../apply/helpers.js';
import { useSeededService } from '../support/server.js';

const KEY = 'test-key-apply-plan-files-0123456789';

/** One restriction, of `type`, by owner `files`: which file was applied shows in the account. */
const desired = (type: string, policy: string) =>
  [
    'version: 1',
    'owner: files',
    'ip_restrictions:',
    `  ${type}:`,
    `    type: ${type}`,
    '    enforced: true',
    `    ip_policies: [${policy}]`,
    '',
  ].join('\n');

describe('accord apply PLAN.json: the files come from the command', () => {
  const server = useSeededService(KEY);
  const root = mkdtempSync(join(tmpdir(), 'accord-plan-files-'));
  const dir = join(root, 'checkout');
  const run = (args: string[], env: Record<string, string> = {}) =>
    accord(server.url, KEY, args, {
      cwd: dir,
      env: { ACCORD_API_KEY: KEY, ACCORD_API_URL: server.url, ...env },
    });
  /** This owner's restrictions, as `type:key`. */
  const applied = async () =>
    (await listAll(server.url, KEY, '/ip_restrictions', 'ip_restrictions'))
      .filter((o) => markerOf(o)?.owner === 'files')
      .map((o) => `${String(o['type'])}:${markerOf(o)!.key}`)
      .sort();
  /** The saved plan `name`, edited, written back. */
  const edit = (name: string, change: (plan: Plan) => void) => {
    const plan = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Plan;
    change(plan);
    writeFileSync(join(dir, name), JSON.stringify(plan));
  };

  beforeAll(async () => {
    mkdirSync(join(dir, 'envs'), { recursive: true });
    // The reviewed file, and another file of the same checkout that nobody reviewed.
    writeFileSync(join(dir, 'accord.yaml'), desired('dashboard', OFFICE));
    writeFileSync(join(dir, 'envs', 'other.yaml'), desired('agent', VPN));
    // Outside the checkout: a file whose keys would show in an error, were it read.
    writeFileSync(join(root, 'secret.yaml'), 'version: 1\nsecret_token_field: 1\n');
    for (const [file, out] of [
      ['accord.yaml', 'reviewed.json'],
      ['envs/other.yaml', 'other.json'],
    ]) {
      const r = await run(['plan', '-f', file!, '--out', out!]);
      expect(r.code, r.err).toBe(0);
    }
  });

  it('a plan of another file of the checkout is refused, naming both lists, with the account unchanged', async () => {
    // The artifact swapped for the plan of envs/other.yaml: files, digest and changes all match that file.
    for (const [args, env, source] of [
      [['-f', 'accord.yaml'], {}, '-f'],
      [[], { ACCORD_FILES: 'accord.yaml' }, 'ACCORD_FILES'],
      [[], {}, 'the default'],
    ] as const) {
      const r = await run(['apply', 'other.json', ...args], env);
      expect(r.code, r.out + r.err).toBe(1);
      expect(r.err).toContain(
        `the plan was made from other files: other.json names envs/other.yaml, and this apply reads accord.yaml (from ${source}); nothing was changed.`,
      );
      expect(await applied()).toEqual([]);
    }
    // Naming that file in the command is what applying it takes: the command's choice, reviewed in CI.
    const json = await run(['apply', 'other.json', '--json']);
    expect(JSON.parse(json.out)).toEqual({
      error: { code: 'ACCORD_PLAN_FILE', message: expect.any(String) },
    });
  });

  it('absolute paths and paths leaving the directory are refused before any file is read', async () => {
    for (const path of [join(root, 'secret.yaml'), '../secret.yaml', 'envs/../../secret.yaml']) {
      edit('reviewed.json', (p) => {
        p.files = [path];
      });
      for (const args of [[], ['-f', '../secret.yaml']]) {
        const r = await run(['apply', 'reviewed.json', ...args]);
        expect(r.code, r.err).toBe(1);
        expect(r.err).toContain(
          `reviewed.json names ${JSON.stringify(path)} among its desired-state files: a plan names its files relative to the directory plan ran in, never absolute or leaving it`,
        );
        expect(r.err).not.toContain('secret_token_field');
      }
    }
    expect(await applied()).toEqual([]);
  });

  it('applies when the command names the plan’s files, in any order or spelling', async () => {
    const r = await run(['plan', '-f', './accord.yaml', '--out', 'reviewed.json']);
    expect(r.code, r.err).toBe(0);
    // Files outside the working directory cannot be the plan's.
    const outside = await run(['apply', 'reviewed.json', '-f', '../secret.yaml']);
    expect(outside.code).toBe(1);
    expect(outside.err).toContain(
      '../secret.yaml (from -f) is outside the working directory, and a saved plan names its files relative to it',
    );
    expect(outside.err).not.toContain('secret_token_field');
    const ok = await run(['apply', 'reviewed.json', '-f', 'accord.yaml']);
    expect(ok.code, ok.out + ok.err).toBe(0);
    expect(await applied()).toEqual(['dashboard:dashboard']);
    // Two files, named in another order, one through its directory: the same desired state.
    const both = await run(['plan', '-f', 'envs/other.yaml', '-f', 'accord.yaml', '--out', 'both.json']);
    expect(both.code, both.err).toBe(0);
    const two = await run(['apply', 'both.json', '-f', 'accord.yaml', '-f', 'envs']);
    expect(two.code, two.out + two.err).toBe(0);
    expect(await applied()).toEqual(['agent:agent', 'dashboard:dashboard']);
  });
});
