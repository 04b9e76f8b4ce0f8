// yaml gives one code to several mistakes (BAD_INDENT, MISSING_CHAR); accord tells them apart by the
// code and the document's nodes where yaml complains, never by yaml's English.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { readYamlDocument, type YamlProblem } from '../../src/config/yaml-document.js';

function problems(...lines: string[]): Pick<YamlProblem, 'line' | 'col' | 'message'>[] {
  const read = readYamlDocument(lines.join('\n'), 100_000);
  if (read.ok) throw new Error('expected a problem');
  return read.problems.map(({ line, col, message }) => ({ line, col, message }));
}

const UNCLOSED_QUOTE = 'a quoted value is not closed; add the closing quote';
const KEY = 'this key is not lined up with the other keys of its mapping; indent it like them, with spaces';
const FLOW =
  'a list in [ ] or a mapping in { } is not closed on its line, or its next line is not indented enough';

describe('MISSING_CHAR', () => {
  it.each([
    ['double', ['version: 1', 'owner: "platform', 'ip_restrictions: {}', '']],
    ['single', ['version: 1', "owner: 'platform", 'ip_restrictions: {}', '']],
  ])('a %s quote not closed: at the quote that opens it, not where the text ran out', (_q, lines) => {
    expect(problems(...lines)).toEqual([{ line: 2, col: 8, message: UNCLOSED_QUOTE }]);
  });

  it('a quote opened alone at the end of the file', () => {
    expect(problems('version: 1', 'owner: "')).toEqual([{ line: 2, col: 8, message: UNCLOSED_QUOTE }]);
  });

  it('another character missing: where yaml found it missing, never at a quote before it', () => {
    expect(problems('["a", "b"', '')).toEqual([
      { line: 2, col: 1, message: 'something is not closed (Flow sequence must end with a ]); close it' },
    ]);
  });

  it('a quote closed right before a missing comma is no unclosed quote', () => {
    expect(problems('["a" "b"]')).toEqual([
      {
        line: 1,
        col: 6,
        message: 'something is not closed (Missing , or : between flow sequence items); close it',
      },
    ]);
  });

  it('an unclosed quote that runs to the end of an unclosed list: each told once', () => {
    expect(problems('[1, "a, 2', '')).toEqual([
      { line: 1, col: 5, message: UNCLOSED_QUOTE },
      { line: 2, col: 1, message: 'something is not closed (Flow sequence must end with a ]); close it' },
    ]);
  });
});

describe('BAD_INDENT', () => {
  it('a key out of line with its mapping', () => {
    expect(
      problems('version: 1', 'ip_restrictions:', '  office:', '    type: dashboard', '   enforced: true'),
    ).toEqual([{ line: 5, col: 1, message: KEY }]);
  });

  it('a key out of line after a block of text', () => {
    expect(problems('a: |2', '  x', ' y', '')[0]).toEqual({ line: 3, col: 1, message: KEY });
  });

  it('a list in brackets not closed on its line', () => {
    expect(problems('version: 1', 'ip_restrictions: [a, b', 'x: 1')).toEqual([
      { line: 3, col: 1, message: FLOW },
    ]);
  });

  it('a closing bracket not indented enough', () => {
    expect(problems('a:', '  b: [', '  1', '  ]', '')[0]).toEqual({ line: 3, col: 3, message: FLOW });
  });

  it('a list in brackets in a mapping in braces, neither closed, then a key out of line: each said once', () => {
    expect(problems('version: 1', 'ip_policies:', '  a: {x: [1, 2}', ' b: 1', '')).toEqual([
      { line: 3, col: 15, message: FLOW },
      { line: 4, col: 2, message: FLOW },
      { line: 4, col: 2, message: KEY },
    ]);
  });
});

describe('BAD_SCALAR_START', () => {
  it('property: says what yaml says of the character, in accord’s words', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('@', '`', '%', '|', '>', ','),
        fc.stringMatching(/^[a-z]{1,5}$/),
        (c, rest) => {
          const text = `version: 1\nowner: [${c}${rest}]\n`;
          const [said] = parseDocument(text).errors.filter((e) => e.code === 'BAD_SCALAR_START');
          if (!said) return; // not a value start for yaml here (a flow indicator inside brackets)
          const what = said.message.split(' at line')[0]!.replace('Plain value', 'a value without quotes');
          expect(problems(text)).toContainEqual({
            line: 2,
            col: 9,
            message: `${what}; put the value in quotes`,
          });
        },
      ),
    );
  });

  it('a value starting with @', () => {
    expect(problems('version: 1', 'owner: @platform', '')).toEqual([
      {
        line: 2,
        col: 8,
        message: 'a value without quotes cannot start with reserved character @; put the value in quotes',
      },
    ]);
  });
});
