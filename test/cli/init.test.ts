// `accord init` and `accord schema`: what they write and print, and every way init refuses.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/config/index.js';
import { runMain } from '../support/cli.js';
import { entriesByKind, kindCounts } from '../support/kinds.js';
import { ROOT } from '../support/server.js';

const base = mkdtempSync(join(tmpdir(), 'accord-init-'));
let n = 0;
const freshDir = () => {
  const dir = join(base, String(++n));
  mkdirSync(dir);
  return dir;
};
const read = (dir: string, path: string) => readFileSync(join(dir, path), 'utf8');
const schema = readFileSync(join(ROOT, 'schemas', 'accord.schema.json'), 'utf8');

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

describe('accord schema', () => {
  it('prints the desired-state schema, and with --plan the saved plan schema, as the package holds them', async () => {
    const desired = await runMain(['schema']);
    expect(desired.code, desired.err).toBe(0);
    expect(desired.out).toBe(schema);
    expect(JSON.parse(desired.out).$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const plan = await runMain(['schema', '--plan']);
    expect(plan.code, plan.err).toBe(0);
    expect(plan.out).toBe(readFileSync(join(ROOT, 'schemas', 'plan.schema.json'), 'utf8'));
  });
});

describe('accord init', () => {
  it('writes a valid, commented accord.yaml whose $schema comment names the schema it writes beside it', async () => {
    const dir = freshDir();
    const r = await runMain(['init'], {}, { cwd: dir });
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe(
      'Wrote accord.yaml and accord.schema.json.\nNext: edit accord.yaml, then run accord validate and accord plan.\n',
    );
    const text = read(dir, 'accord.yaml');
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=./accord.schema.json');
    expect(read(dir, 'accord.schema.json')).toBe(schema);
    const state = await loadDesiredState(join(dir, 'accord.yaml'));
    expect(state.owner).toBe('default');
    const validated = await runMain(['validate'], {}, { cwd: dir });
    expect(validated.code, validated.err).toBe(0);
  });

  it('has a commented example of every section, valid once uncommented', async () => {
    const dir = freshDir();
    expect((await runMain(['init'], {}, { cwd: dir })).code).toBe(0);
    const text = read(dir, 'accord.yaml');
    // The example block: every line after the first commented section name, uncommented.
    const lines = text.split('\n');
    const start = lines.findIndex((l) => /^# [a-z_]+:/.test(l));
    const uncommented = [
      ...lines.slice(0, start),
      ...lines.slice(start).map((l) => (l === '#' ? '' : l.replace(/^# /, ''))),
    ].join('\n');
    const sections = Object.keys(JSON.parse(schema).properties).filter(
      (k) => k !== 'version' && k !== 'owner',
    );
    for (const section of sections) expect(uncommented).toMatch(new RegExp(`^${section}:`, 'm'));
    writeFileSync(join(dir, 'accord.yaml'), uncommented);
    cpSync(join(ROOT, 'examples', 'certs'), join(dir, 'certs'), { recursive: true });
    cpSync(join(ROOT, 'examples', 'keys'), join(dir, 'keys'), { recursive: true });
    const validated = await runMain(['validate'], {}, { cwd: dir });
    expect(validated.code, validated.err).toBe(0);
    // One entry of every kind (a policy's two rules), counted in registry order.
    const starter = await loadDesiredState('accord.yaml', dir);
    expect(entriesByKind(starter)).toMatchObject({
      ip_policy: 1,
      ip_policy_rule: 2,
      ip_restriction: 1,
      certificate_authority: 1,
      ssh_host_certificate: 1,
    });
    expect(validated.out.startsWith(`accord.yaml is valid: ${kindCounts(starter)}; `)).toBe(true);
    expect(validated.out).toContain('\nGuards: 1 scope checked on the files alone.\n');
  });

  it.each([
    ['github', '.github/workflows/accord.yml', 'github-actions.yml'],
    ['gitlab', '.gitlab-ci.yml', 'gitlab-ci.yml'],
  ])('--ci %s also writes %s: the tested recipe', async (ci, path, recipe) => {
    const dir = freshDir();
    const r = await runMain(['init', '--ci', ci], {}, { cwd: dir });
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`Wrote accord.yaml, accord.schema.json and ${path}.\n`);
    expect(r.err).toContain(`read the comments at the top of ${path}`);
    expect(read(dir, path)).toBe(readFileSync(join(ROOT, 'examples', 'ci', recipe), 'utf8'));
  });

  it('never overwrites without --force: writes what is missing, keeps what exists and says so', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'accord.yaml'), 'version: 1\n# mine\n');
    const added = await runMain(['init'], {}, { cwd: dir });
    expect(added.code, added.err).toBe(0);
    expect(added.err).toContain(
      'Wrote accord.schema.json.\nKept accord.yaml as it exists (--force replaces it).\n',
    );
    expect(read(dir, 'accord.yaml')).toBe('version: 1\n# mine\n');
    expect(() => statSync(join(dir, '.github'))).toThrow();

    const again = await runMain(['init'], {}, { cwd: dir });
    expect(again.code).toBe(1);
    expect(again.err).toBe(
      'Error: accord.yaml, accord.schema.json already exist, so accord init wrote nothing; it does not overwrite files. Pass --force to replace them, or --ci github|gitlab to add a CI file.\n',
    );
    const forced = await runMain(['init', '--force'], {}, { cwd: dir });
    expect(forced.code, forced.err).toBe(0);
    expect(read(dir, 'accord.yaml')).toMatch(/^# yaml-language-server/);
  });

  it('accord init --ci github after accord init and an edit: adds the workflow, keeps the edited accord.yaml', async () => {
    const dir = freshDir();
    expect((await runMain(['init'], {}, { cwd: dir })).code).toBe(0);
    const edited = `${read(dir, 'accord.yaml')}\n# edited after init\n`;
    writeFileSync(join(dir, 'accord.yaml'), edited);
    const ci = await runMain(['init', '--ci', 'github'], {}, { cwd: dir });
    expect(ci.code, ci.err).toBe(0);
    expect(ci.err).toContain(
      'Wrote .github/workflows/accord.yml.\nKept accord.yaml and accord.schema.json as they exist (--force replaces them).\n',
    );
    expect(read(dir, 'accord.yaml')).toBe(edited);
    expect(read(dir, '.github/workflows/accord.yml')).toBe(
      readFileSync(join(ROOT, 'examples', 'ci', 'github-actions.yml'), 'utf8'),
    );
    const twice = await runMain(['init', '--ci', 'github'], {}, { cwd: dir });
    expect(twice.code).toBe(1);
    expect(twice.err).toMatch(
      /^Error: accord\.yaml, accord\.schema\.json, \.github\/workflows\/accord\.yml already exist, so accord init wrote nothing; .* Pass --force to replace them\.\n$/,
    );
    expect(read(dir, 'accord.yaml')).toBe(edited);
  });

  it('says what is wrong with a directory it cannot write to, an unknown --ci, and a directory in the way', async () => {
    // /sys refuses new files to everyone, root included.
    const unwritable = await runMain(['init'], {}, { cwd: '/sys' });
    expect(unwritable.code).toBe(1);
    expect(unwritable.err).toBe(
      'Error: cannot write accord.yaml (EACCES); run accord init in a directory you can write to.\n',
    );
    const dir = freshDir();
    const unknown = await runMain(['init', '--ci', 'bitbucket'], {}, { cwd: dir });
    expect(unknown.code).toBe(1);
    expect(unknown.err).toBe('Error: --ci must be one of github, gitlab, got "bitbucket".\n');
    mkdirSync(join(dir, 'accord.yaml'));
    const inTheWay = await runMain(['init', '--force'], {}, { cwd: dir });
    expect(inTheWay.code).toBe(1);
    expect(inTheWay.err).toMatch(/^Error: cannot write accord\.yaml \(E[A-Z]+\); run accord init/);
    const json = await runMain(['init', '--json'], {}, { cwd: dir });
    expect(json.err).toContain('unknown option --json');
  });
});
