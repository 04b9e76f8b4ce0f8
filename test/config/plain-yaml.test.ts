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

// A document is generated as a tree (so that fast-check shrinks a failing one to a small one) and then
// written out as text. Weights give the common styles most of the runs.
type Anchor = 'x' | 'y' | 'z';
/** A comment, blank or `---` line before a member. */
type Extra = 'blank' | 'comment' | 'spaces' | 'hash' | 'dashes';
type Value =
  | { kind: 'scalar'; text: string; anchor: Anchor | undefined; tail: string }
  /** `target`: an index into the anchors defined so far, or a name that may not be defined. */
  | { kind: 'alias'; target: number | Anchor; anchor: Anchor | undefined; tail: string }
  | { kind: 'literal'; header: string; step: string; lines: LiteralLine[] }
  | { kind: 'map'; anchor: Anchor | undefined; tail: string; step: string; entries: Entry[] }
  | { kind: 'seq'; anchor: Anchor | undefined; tail: string; step: string; flush: boolean; items: Item[] };
type LiteralLine = 'line' | 'empty' | 'more' | 'hash' | 'indent';
interface Entry {
  extra: Extra | undefined;
  key: string;
  value: Value;
}
type Item =
  | { extra: Extra | undefined; value: Value }
  /** `- key: value`, and maybe one more key lined up below. */
  | {
      extra: Extra | undefined;
      key: string;
      value: Value;
      more: { key: string; scalar: string } | undefined;
    };
interface Edit {
  at: number;
  cut: boolean;
  char: string;
}
interface Doc {
  root: { map: Entry[] } | { seq: Item[] };
  noFinalNewline: boolean;
  edits: Edit[];
}

/** `rare` one time in `oneIn`, `common` otherwise; shrinks towards `common`. */
const mostly = <T>(common: fc.Arbitrary<T>, rare: fc.Arbitrary<T>, oneIn: number) =>
  fc.oneof(
    { withCrossShrink: true },
    { arbitrary: common, weight: oneIn - 1 },
    { arbitrary: rare, weight: 1 },
  );
/** `arb` one time in `oneIn`, undefined otherwise. */
const sometimes = <T>(arb: fc.Arbitrary<T>, oneIn: number) =>
  mostly<T | undefined>(fc.constant(undefined), arb, oneIn);
const yes = (oneIn: number) => mostly(fc.constant(false), fc.constant(true), oneIn);

const keyArb = mostly(
  fc
    .tuple(fc.constantFrom(...KEYS), fc.option(fc.nat(99), { freq: 3, nil: undefined }))
    .map(([k, n]) => `${k}${n ?? ''}`),
  fc.constantFrom(...ODD_KEYS),
  40,
);
const scalarText = mostly(fc.constantFrom(...SCALARS), fc.constantFrom(...ODD_SCALARS), 40);
const tailArb = sometimes(fc.constantFrom(' # note', '  #c', '#x', ' '), 6).map((t) => t ?? '');
const anchorArb = sometimes(fc.constantFrom<Anchor>('x', 'y', 'z'), 8);
const extraArb = sometimes(
  mostly(fc.constantFrom<Extra>('blank', 'comment', 'spaces', 'hash'), fc.constant<Extra>('dashes'), 20),
  8,
);
const stepArb = fc.constantFrom('  ', ' ', '    ');
const scalarNode = fc.record({
  kind: fc.constant('scalar' as const),
  text: scalarText,
  anchor: anchorArb,
  tail: tailArb,
});
const aliasNode = fc.record({
  kind: fc.constant('alias' as const),
  target: mostly<number | Anchor>(fc.nat(), fc.constantFrom<Anchor>('x', 'y', 'z'), 10),
  anchor: anchorArb,
  tail: tailArb,
});
const literalNode = fc.record({
  kind: fc.constant('literal' as const),
  header: mostly(fc.constantFrom(' |', ' |-', ' | # c'), fc.constantFrom(' |+', ' >', ' |2'), 28),
  step: fc.constantFrom('  ', '   ', ' '),
  lines: fc.array(
    mostly(
      fc.constant<LiteralLine>('line'),
      fc.constantFrom<LiteralLine>('empty', 'more', 'hash', 'indent'),
      3,
    ),
    { minLength: 1, maxLength: 3 },
  ),
});

const values = new Map<number, fc.Arbitrary<Value>>();
/** A value at `depth`: scalars only below the third level, as desired-state files are shallow. */
function valueArb(depth: number): fc.Arbitrary<Value> {
  let arb = values.get(depth);
  if (arb) return arb;
  arb =
    depth > 3
      ? scalarNode
      : fc.oneof(
          { withCrossShrink: true },
          { arbitrary: scalarNode, weight: 2 },
          { arbitrary: aliasNode, weight: 1 },
          { arbitrary: literalNode, weight: 1 },
          {
            arbitrary: fc.record({
              kind: fc.constant('map' as const),
              anchor: anchorArb,
              tail: tailArb,
              step: stepArb,
              entries: entriesArb(depth + 1),
            }),
            weight: 2,
          },
          {
            arbitrary: fc.record({
              kind: fc.constant('seq' as const),
              anchor: anchorArb,
              tail: tailArb,
              step: stepArb,
              flush: yes(3),
              items: itemsArb(depth + 1),
            }),
            weight: 1,
          },
        );
  values.set(depth, arb);
  return arb;
}
function entriesArb(depth: number): fc.Arbitrary<Entry[]> {
  return fc.array(fc.record({ extra: extraArb, key: keyArb, value: valueArb(depth) }), {
    minLength: 1,
    maxLength: 4,
  });
}
function itemsArb(depth: number): fc.Arbitrary<Item[]> {
  const compact = fc.record({
    extra: extraArb,
    key: keyArb,
    value: scalarNode as fc.Arbitrary<Value>,
    more: sometimes(fc.record({ key: keyArb, scalar: scalarText }), 2),
  });
  const item = mostly<Item>(fc.record({ extra: extraArb, value: valueArb(depth) }), compact, 4);
  return fc.array(item, { minLength: 1, maxLength: 4 });
}

const docArb: fc.Arbitrary<Doc> = fc.record({
  root: mostly<Doc['root']>(
    entriesArb(0).map((map) => ({ map })),
    itemsArb(0).map((seq) => ({ seq })),
    10,
  ),
  noFinalNewline: yes(10),
  // Now and then, a random edit: a space, a tab, a colon, a quote or a line break somewhere.
  edits: mostly(
    fc.constant([]),
    fc.array(
      fc.record({
        at: fc.nat(),
        cut: yes(3),
        char: fc.constantFrom(' ', '\t', ':', "'", '\n', '-', '#', '\r', ''),
      }),
      { minLength: 1, maxLength: 2 },
    ),
    4,
  ),
});

/** The text of a generated document. */
function render(doc: Doc): string {
  const out: string[] = [];
  const defined: Anchor[] = [];
  const anchored = (anchor: Anchor | undefined) => {
    if (anchor === undefined) return '';
    defined.push(anchor);
    return `&${anchor} `;
  };
  const extra = (ind: string, e: Extra | undefined) => {
    if (e === undefined) return;
    out.push({ blank: '', comment: `${ind}# comment`, spaces: '  ', hash: '#', dashes: '---' }[e]);
  };
  /** `lead` is `ind` and then `key:` or `-`. */
  const value = (lead: string, ind: string, v: Value, inSeq: boolean) => {
    switch (v.kind) {
      case 'scalar':
        out.push(`${lead} ${anchored(v.anchor)}${v.text}${v.tail}`);
        return;
      case 'alias': {
        const anchor = anchored(v.anchor);
        const target =
          typeof v.target === 'number' ? (defined[v.target % Math.max(1, defined.length)] ?? 'x') : v.target;
        out.push(`${lead} ${anchor}*${target}${v.tail}`);
        return;
      }
      case 'literal': {
        out.push(`${lead}${v.header}`);
        const body = ind + v.step;
        v.lines.forEach((line, i) => {
          out.push(
            {
              line: `${body}line ${i}`,
              empty: '',
              more: `${body}  more`,
              hash: `${body}# not a comment`,
              indent: body,
            }[line],
          );
        });
        return;
      }
      case 'map':
        out.push(`${lead}${v.anchor ? ` ${anchored(v.anchor).trim()}` : ''}${v.tail}`);
        map(ind + v.step, v.entries);
        return;
      case 'seq':
        out.push(`${lead}${v.anchor ? ` ${anchored(v.anchor).trim()}` : ''}${v.tail}`);
        seq(v.flush && !inSeq ? ind : ind + v.step, v.items);
        return;
    }
  };
  const map = (ind: string, entries: Entry[]) => {
    for (const e of entries) {
      extra(ind, e.extra);
      value(`${ind}${e.key}:`, ind, e.value, false);
    }
  };
  const seq = (ind: string, items: Item[]) => {
    for (const item of items) {
      extra(ind, item.extra);
      if ('key' in item) {
        value(`${ind}- ${item.key}:`, ind, item.value, true);
        if (item.more) out.push(`${ind}  ${item.more.key}: ${item.more.scalar}`);
      } else {
        value(`${ind}-`, ind, item.value, true);
      }
    }
  };
  if ('map' in doc.root) map('', doc.root.map);
  else seq('', doc.root.seq);
  let text = `${out.join('\n')}${doc.noFinalNewline ? '' : '\n'}`;
  for (const edit of doc.edits) {
    const at = edit.at % (text.length + 1);
    text = text.slice(0, at) + edit.char + text.slice(at + (edit.cut ? 1 : 0));
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
      fc.property(docArb.map(render), (text) => {
        if (agree(text)) accepted++;
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
