// allow_file / deny_file: one CIDR per line, blank lines and everything after `#` ignored, CRLF
// accepted (DESIGN §1); and a path naming the YAML file's own directory is a directory, not a link.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../src/config/index.js';
import { problemsOf, Scratch, y } from './helpers.js';

const scratches: Scratch[] = [];
afterAll(() => {
  for (const s of scratches) s.remove();
});

const policyWith = (field: string) =>
  y('version: 1', 'ip_policies:', '  office:', '    rules:', `      - ${field}`);

/** The rules `office` gets from a cidrs.txt holding `content`. */
async function rulesFrom(content: string): Promise<string[]> {
  const s = new Scratch();
  scratches.push(s);
  s.write('cidrs.txt', content);
  s.write('accord.yaml', policyWith('allow_file: cidrs.txt'));
  const state = await loadDesiredState('accord.yaml', s.dir);
  return state.ip_policy_rules.map((r) => r.cidr);
}

describe('allow_file line ends and comments', () => {
  it.each([
    ['LF', '10.0.0.0/8\n# c\n'],
    ['CRLF', '10.0.0.0/8\r\n# c\r\n'],
    ['CRLF, comment after the CIDR', '10.0.0.0/8 # office\r\n'],
    ['CRLF, comment first, no final line end', '# runners\r\n10.0.0.0/8'],
    ['CRLF, blank lines', '\r\n10.0.0.0/8\r\n\r\n  # indented comment\r\n'],
    ['lone CR in a comment', '10.0.0.0/8\n# a\rb\n'],
  ])('%s', async (_name, content) => {
    expect(await rulesFrom(content)).toEqual(['10.0.0.0/8']);
  });

  it('names the line of a bad CIDR after a CRLF comment', async () => {
    const s = new Scratch();
    scratches.push(s);
    s.write('cidrs.txt', '# c\r\nnot-a-cidr\r\n');
    const [p] = await problemsOf(s, policyWith('allow_file: cidrs.txt'));
    expect(p?.message).toMatch(/cidrs\.txt" line 2 is not a CIDR range/);
  });

  it.each([
    ['10.0.0.1/8', 'is not the lowest address of its range; write 10.0.0.0/8'],
    ['10.2.3.4', 'has no prefix length; a single address is /32; write 10.2.3.4/32'],
    [
      '10.0.0.0/99',
      'is not a CIDR range: the prefix length must be a number from 0 to 32 (one CIDR per line, # comments)',
    ],
    ['foo', 'is not a CIDR range such as 203.0.113.0/24 or 2001:db8::/32 (one CIDR per line, # comments)'],
  ])(
    'a bad line %j: the file, its line and the reason an inline rule gets, without quoting the line',
    async (line, reason) => {
      const s = new Scratch();
      scratches.push(s);
      s.write('cidrs.txt', `192.0.2.0/24\n${line}\n`);
      const problems = await problemsOf(s, policyWith('allow_file: cidrs.txt'));
      expect(problems.map((p) => p.message)).toEqual([`file "cidrs.txt" line 2 ${reason}`]);
    },
  );

  it('property: CRLF or LF, comments and blank lines never change the rules', async () => {
    const cidr = fc.constantFrom('10.0.0.0/8', '192.0.2.0/24', '2001:db8::/32', '198.51.100.7/32');
    const line = fc.oneof(
      cidr,
      fc.tuple(cidr, fc.stringMatching(/^[ a-z#]{0,8}$/)).map(([c, note]) => `${c} # ${note}`),
      fc.stringMatching(/^[ a-z#:/.]{0,10}$/).map((note) => `# ${note}`),
      fc.constantFrom('', '  ', '\t'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 8 }),
        fc.array(fc.constantFrom('\n', '\r\n'), { minLength: 8, maxLength: 8 }),
        async (lines, ends) => {
          // A repeated CIDR is a problem of its own; this property is about line ends and comments.
          const seen = new Set<string>();
          const unique = lines.filter((l) => {
            const c = /^[0-9]/.test(l) ? l.split(' ')[0]! : undefined;
            if (c === undefined) return true;
            if (seen.has(c)) return false;
            seen.add(c);
            return true;
          });
          const content = unique.map((l, i) => `${l}${ends[i]}`).join('');
          expect((await rulesFrom(content)).sort()).toEqual([...seen].sort());
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('a *_file naming a directory', () => {
  it.each(['./', '.', 'sub/', 'sub'])('allow_file: %j is a directory, not a symbolic link', async (name) => {
    const s = new Scratch();
    scratches.push(s);
    s.write('sub/cidrs.txt', '10.0.0.0/8\n');
    const [p] = await problemsOf(s, policyWith(`allow_file: "${name}"`));
    expect(p?.message).toMatch(/is not a regular file \(a directory\?\)/);
    expect(p?.message).not.toMatch(/symbolic link/);
  });
});
