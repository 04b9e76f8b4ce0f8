// A saved plan refused because the files changed since it was made names the file that changed: a CIDR
// file an `allow_file` or a guard reads as much as a YAML file, one the files name now and did not
// then, and one they no longer name. A plan saved before each file's digest was kept still names its
// YAML files.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/types.js';
import { accord } from '../apply/helpers.js';
import { useSeededService } from '../support/server.js';

const KEY = 'test-key-apply-changed-files-0123456789';

const GUARD = 'only_let_in_file: cidrs/allowed.txt';

const files = (guard: string) => ({
  'accord.yaml': [
    'version: 1',
    'owner: changed-files',
    'ip_policies:',
    '  office:',
    '    rules:',
    '      - allow_file: cidrs/office.txt',
    'ip_restrictions:',
    '  agent: {type: agent, enforced: true, ip_policies: [office]}',
  ],
  'guards.yaml': ['version: 1', 'guards:', '  agent:', `    ${guard}`],
  'cidrs/office.txt': ['10.0.0.0/8 # the office'],
  'cidrs/allowed.txt': ['10.0.0.0/8', '192.0.2.0/24'],
  'cidrs/wide.txt': ['0.0.0.0/0'],
});

describe('accord apply PLAN.json after the files changed', () => {
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-changed-files-'));
  const write = (name: string, lines: string[]) => writeFileSync(join(dir, name), `${lines.join('\n')}\n`);
  const writeAll = (guard = GUARD) => {
    for (const [name, lines] of Object.entries(files(guard))) write(name, lines);
  };
  const run = (args: string[]) => accord(server.url, KEY, args, { cwd: dir });
  const FILES = ['-f', 'accord.yaml', '-f', 'guards.yaml'];

  /** `apply plan.json` after `edit`, which plan.json was made before; the files restored after. */
  const refusal = async (edit: () => void) => {
    writeAll();
    const plan = await run(['plan', ...FILES, '--out', 'plan.json']);
    expect(plan.code, plan.err).toBe(0);
    edit();
    const apply = await run(['apply', 'plan.json', ...FILES]);
    expect(apply.code).toBe(1);
    writeAll();
    return apply.err;
  };
  const said = (what: string) =>
    `Error: the files changed since the plan was made: plan again (plan.json ${what}; accord plan --out FILE, review, then apply that file).\n`;

  beforeAll(() => mkdirSync(join(dir, 'cidrs')));

  it('names the CIDR file a guard reads', async () => {
    expect(await refusal(() => write('cidrs/allowed.txt', ['10.0.0.0/8']))).toBe(
      said('was made from other contents of cidrs/allowed.txt'),
    );
  });

  it('names the CIDR file an allow_file reads', async () => {
    expect(await refusal(() => write('cidrs/office.txt', ['10.0.0.0/8 # the office, moved']))).toBe(
      said('was made from other contents of cidrs/office.txt'),
    );
  });

  it('names a YAML file, and each file that changed', async () => {
    const edit = () => {
      write('guards.yaml', [...files(GUARD)['guards.yaml'], '    enforced: true']);
      write('cidrs/office.txt', ['10.0.0.0/8']);
    };
    expect(await refusal(edit)).toBe(said('was made from other contents of cidrs/office.txt, guards.yaml'));
  });

  it('names a file the files name now and not then, and one they named then and no longer', async () => {
    expect(await refusal(() => writeAll('only_let_in_file: cidrs/wide.txt'))).toBe(
      said(
        'was made from other contents of guards.yaml; it was made without cidrs/wide.txt, which the files now name; it was made from cidrs/allowed.txt too, which the files no longer name',
      ),
    );
  });

  it('a plan saved without the digest of each file names its files', async () => {
    const err = await refusal(() => {
      const plan = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')) as Plan;
      delete plan.file_digests;
      writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan));
      write('cidrs/allowed.txt', ['10.0.0.0/8']);
    });
    expect(err).toBe(said('was made from other contents of accord.yaml, guards.yaml'));
    rmSync(join(dir, 'plan.json'));
  });
});
