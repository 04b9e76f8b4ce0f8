import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Extent, type ReadData, readPlainYaml } from '../../src/config/plain-yaml.js';
import { readYamlDocument } from '../../src/config/yaml-document.js';
import { REPO } from './helpers.js';

const MAX = 5_000_000;

/** What a reading says about every mapping and list: members, offsets and their line:col. */
function shape(read: ReadData, linePos: (offset: number) => { line: number; col: number }): unknown {
  const pos = (o: number) => {
    const { line, col } = linePos(o);
    return `${o}@${line}:${col}`;
  };
  const seen = new Set<object>();
  const walk = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    const extent = read.extents.get(v) as Extent;
    if (seen.has(v)) return { alias: pos(extent.start) };
    seen.add(v);
    const members = Object.entries(v).map(([k, item], i) => [
      k,
      pos(extent.keys[i]!),
      pos(extent.values[i]!),
      walk(item),
    ]);
    expect(extent.keys.length).toBe(members.length);
    expect(extent.values.length).toBe(members.length);
    return { start: pos(extent.start), members };
  };
  return { root: pos(read.root), data: walk(read.data) };
}

/** Reads `text` both ways; when the fast reader accepts it, the full parser must agree exactly. */
function agree(text: string): boolean {
  const fast = readPlainYaml(text, MAX);
  if (!fast) return false;
  const full = readYamlDocument(text, MAX);
  if (!full.ok)
    throw new Error(
      `fast reader accepted a file the full parser refuses:\n${text}\n${JSON.stringify(full.problems)}`,
    );
  expect(fast.data, text).toEqual(full.data.data);
  expect(shape(fast, fast.linePos), text).toEqual(shape(full.data, full.data.linePos));
  // Every line start, as the full parser counts lines.
  for (let o = text.indexOf('\n') + 1; o > 0; o = text.indexOf('\n', o) + 1) {
    if (o < text.length) expect(fast.linePos(o), text).toEqual(full.data.linePos(o));
  }
  return true;
}

// Random documents in the styles desired-state files use, and some they should not.
const KEYS = ['a', 'b', 'c', 'key-1', 'ca_pem', 'x.y', '$s', 'host_2', 'id', 'metadata', 'z9', 'A_B', 'p/q'];
const ODD_KEYS = ['true', '1', 'null', '__proto__', "'q'", 'a b', '<<', '0x1', '"d"', '? a', 'a:b'];
const SCALARS = [
  'abc',
  'host-1.example.com',
  '10.0.0.1',
  'a b  ',
  'x#y',
  'x #c',
  '-x',
  ':x',
  '?x',
  'true',
  'False',
  'null',
  '~',
  'NULL',
  '0',
  '-5',
  '+3',
  '007',
  '-0',
  '1_000',
  "'it''s'",
  "''",
  '"dq"',
  '""',
  "'a # b'",
  'é ü',
  'ssh-ed25519 AAAAC3Nz root@h',
  '90d',
  '2027-06-01T00:00:00Z',
  '[a, b]',
  '{a: 1}',
  '[]',
  '{}',
  '[a,b]',
  '[a, [b, c], {d: e}]',
  '{a: [1, 2], b: *x}',
  '[&z q, *z]',
  '[\'x\', "y", -1]',
  '{ k: v }',
  'a]b',
  'a}',
];
const ODD_SCALARS = [
  'a: b',
  '-',
  '- x',
  '1.5',
  '1e3',
  '.inf',
  '0x1F',
  '0o7',
  '123456789012345678',
  '"a\\"b"',
  '@x',
  '!tag x',
  '%x',
  '[a, ]',
  '{a: 1,}',
  '[a',
  "'open",
  '*nope',
  '{a}',
  '[a: b]',
  'a, b',
  '|',
  '>',
  '[a]b',
  '{a:1}',
];

function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return (n: number) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

function generate(seed: number): string {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[r(xs.length)]!;
  const key = () => (r(40) === 0 ? pick(ODD_KEYS) : `${pick(KEYS)}${r(3) === 0 ? '' : r(100)}`);
  const scalar = () => (r(40) === 0 ? pick(ODD_SCALARS) : pick(SCALARS));
  const out: string[] = [];
  const defined: string[] = [];
  const tail = () => (r(6) === 0 ? pick([' # note', '  #c', '#x', ' ']) : '');
  const extra = (ind: string) => {
    if (r(8) === 0) out.push(pick(['', `${ind}# comment`, '  ', '#', r(4) === 0 ? '---' : '']));
  };
  const value = (ind: string, depth: number, inSeq: boolean): string | undefined => {
    const kind = depth > 3 ? 0 : r(7);
    const anchor = r(8) === 0 ? `&${pick(['x', 'y', 'z'])} ` : '';
    if (anchor) defined.push(anchor.slice(1, -1));
    if (kind === 0 || kind === 1) return ` ${anchor}${scalar()}${tail()}`;
    if (kind === 2) {
      const target = defined.length > 0 && r(10) > 0 ? pick(defined) : pick(['x', 'y', 'z']);
      return ` ${anchor}*${target}${tail()}`;
    }
    if (kind === 3) {
      out.push(
        `${ind}x:${pick([' |', ' |-', ' |', ' |-', ' | # c', ' |', ' |-', r(4) === 0 ? pick([' |+', ' >', ' |2']) : ' |'])}`,
      );
      const n = 1 + r(3);
      const body = ind + pick(['  ', '   ', ' ']);
      for (let i = 0; i < n; i++)
        out.push(
          pick([`${body}line ${i}`, `${body}line ${i}`, '', `${body}  more`, `${body}# not a comment`, body]),
        );
      return undefined;
    }
    const child = ind + pick(['  ', '  ', ' ', '    ']);
    out.push(`${ind}x:${anchor ? ` ${anchor.trim()}` : ''}${tail()}`);
    if (kind === 4 || kind === 5) map(child, depth + 1);
    else seq(r(3) === 0 && !inSeq ? ind : child, depth + 1);
    return undefined;
  };
  // The line `x...` pushed by value() stands for "key: value"; map() and seq() rewrite its start.
  const map = (ind: string, depth: number) => {
    const n = 1 + r(4);
    for (let i = 0; i < n; i++) {
      extra(ind);
      const name = key();
      const at = out.length;
      const v = value(ind, depth, false);
      if (v !== undefined) out.push(`${ind}${name}:${v}`);
      else out[at] = out[at]!.replace(`${ind}x:`, `${ind}${name}:`);
    }
  };
  const seq = (ind: string, depth: number) => {
    const n = 1 + r(4);
    for (let i = 0; i < n; i++) {
      extra(ind);
      if (r(4) === 0) {
        // - key: value, more keys lined up below
        out.push(`${ind}- ${key()}:${value(ind, 9, true) ?? ' v'}`);
        if (r(2) === 0) out.push(`${ind}  ${key()}: ${scalar()}`);
        continue;
      }
      const at = out.length;
      const v = value(ind, depth, true);
      if (v !== undefined) out.push(`${ind}-${v}`);
      else out[at] = out[at]!.replace(`${ind}x:`, `${ind}-`);
    }
  };
  if (r(10) === 0) seq('', 0);
  else map('', 0);
  let text = `${out.join('\n')}${r(10) === 0 ? '' : '\n'}`;
  // Now and then, a random edit: a space, a tab, a colon, a quote or a line break somewhere.
  for (let k = r(4) === 0 ? 1 + r(2) : 0; k > 0; k--) {
    const at = r(text.length + 1);
    const cut = r(3) === 0 ? 1 : 0;
    text = text.slice(0, at) + pick([' ', '\t', ':', "'", '\n', '-', '#', '\r', '']) + text.slice(at + cut);
  }
  return text;
}

describe('the fast YAML reader', () => {
  it('reads the example files, exactly as the full parser does', () => {
    for (const name of ['examples/accord.yaml', 'examples/seed.yaml']) {
      expect(agree(readFileSync(join(REPO, name), 'utf8')), name).toBe(true);
    }
  });

  it('agrees with the full parser on every random file it accepts, and accepts many', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        if (agree(generate(seed))) accepted++;
      }),
      { numRuns: Number(process.env.RUNS ?? 3000) },
    );
    expect(accepted).toBeGreaterThan(300);
  });

  it('declines what it leaves to the full parser', () => {
    const declined = [
      'a: 1\na: 2\n', // duplicate key
      '__proto__: 1\n',
      'a:\n\tb: 1\n', // tab
      'a: 1\r\nb: 2\r\n',
      '--- \na: 1\n',
      'a: !!str 1\n',
      'a: >\n  folded\n',
      'a: "multi\n  line"\n',
      'a: plain\n  continued\n',
      'a: *missing\n',
      'a: &x [*x]\n',
      'a:\n',
      '- 1\n- 2\n'.slice(0, 0), // empty
      'a: 1.5\n',
      '- a\n- b\n',
    ];
    for (const text of declined) expect(readPlainYaml(text, MAX), JSON.stringify(text)).toBeUndefined();
  });

  it('declines deep nesting rather than overflowing the stack', () => {
    expect(readPlainYaml(`a: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n`, MAX)).toBeUndefined();
    const lines = Array.from({ length: 5000 }, (_, i) => `${'  '.repeat(i)}k:`);
    expect(readPlainYaml(`${lines.join('\n')} 1\n`, MAX)).toBeUndefined();
    expect(readPlainYaml(`a: ${'['.repeat(60)}1${']'.repeat(60)}\n`, MAX)).toBeDefined();
  });

  it('declines a file whose aliases expand past the limit', () => {
    const text = 'a: &a [1, 1, 1, 1]\nb: &b [*a, *a, *a, *a]\nc: &c [*b, *b, *b, *b]\nd: [*c, *c, *c, *c]\n';
    // 1 + a 5 + b 21 + c 85 + d 341 values
    expect(readPlainYaml(text, 452)).toBeUndefined();
    expect(readPlainYaml(text, 453)).toBeDefined();
  });
});
