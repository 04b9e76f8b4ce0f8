// Statements of the docs that were once false when tried, each checked against what accord does.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seedFile } from '../../src/cli/commands/serve.js';
import { main } from '../../src/cli/main.js';
import { REACH_FORMAT_VERSION } from '../../src/render/reach-report.js';
import { managedDescriptors } from '../../src/resources/index.js';
import { captureIo } from '../support/cli.js';
import { ROOT, SEED } from '../support/server.js';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)];

describe('the docs say what accord does', () => {
  it('docs/cli.md gives the reach JSON the format accord writes', () => {
    const row = read('docs/cli.md')
      .split('\n')
      .find((l) => l.includes('`scopes[]{scope, now, after}`'));
    expect(row).toContain(`(\`format_version\` ${REACH_FORMAT_VERSION})`);
  });

  it("docs/export.md lists every file of --split: one per section of the registry's top-level kinds", () => {
    const page = read('docs/export.md');
    for (const d of managedDescriptors.filter((k) => k.within === undefined))
      expect(page, d.section).toContain(`\`${d.section.replaceAll('_', '-')}.yaml\``);
  });

  it('README says what the service allows on one URL: pooled endpoints share it', () => {
    const readme = read('README.md');
    expect(readme).not.toContain('the service lets one endpoint hold a URL at a time)');
    expect(readme).toMatch(/endpoints with `pooling_enabled` share one/);
  });

  it('apply PLAN takes -f beside it, as docs/cli.md says', async () => {
    expect(read('docs/cli.md')).not.toContain('Not together with `-f`');
    expect(read('docs/cli.md')).toContain('`apply p.json -f a -f b`');
    const io = captureIo();
    expect(await main(['apply', 'p.json', '-f', 'a', '-f', 'b'], io, { parseOnly: true })).toBe(0);
  });

  it('no page points at a specification file that neither the repository nor the package has', () => {
    for (const doc of DOCS) expect(read(doc), doc).not.toMatch(/shared\/SPEC/);
  });

  it('examples/seed.yaml, as the docs give it, is found from any directory: the package ships it', async () => {
    const pkg = JSON.parse(read('package.json')) as { files: string[] };
    expect(pkg.files).toContain('examples/seed.yaml');
    const elsewhere = mkdtempSync(join(tmpdir(), 'accord-seed-'));
    expect(await seedFile('examples/seed.yaml', elsewhere)).toBe(SEED);
    expect(await seedFile('examples/seed.yaml', ROOT)).toBe('examples/seed.yaml');
    expect(await seedFile('other.yaml', elsewhere)).toBe('other.yaml');
    expect(await seedFile('../examples/seed.yaml', elsewhere)).toBe('../examples/seed.yaml');
    expect(read('scripts/demo.mjs')).toContain('node bin/accord.js serve --seed examples/seed.yaml');
  });

  it("README's words on validate agree with its exit codes: a second line with guards, 3 on a breach", () => {
    const readme = read('README.md');
    expect(readme).not.toContain('A valid file gives exit code 0 and one line:');
    expect(readme).toMatch(/with `guards`, a second line says[\s\S]{0,200}but exit 3/);
  });

  it('docs/production.md says which flags the throttling error suggests, as the error does', () => {
    expect(read('docs/production.md')).not.toContain('suggests both flags');
    expect(read('docs/production.md')).toMatch(/suggests `--rate-limit\s+120\/60` and raising `--deadline`/);
    expect(read('src/api/errors.ts')).toContain('run again with --rate-limit 120/60');
  });

  it('README does not promise a reason the text plan does not show for a deleted rule', () => {
    expect(read('README.md')).not.toContain('is deleted (`not in the file`)');
  });

  it('docs/cli.md lists reach among the commands that exit 130', () => {
    const row = read('docs/cli.md')
      .split('\n')
      .find((l) => l.startsWith('| 130'));
    expect(row).toMatch(/`reach`/);
  });
});
