// --target and --exclude: which changes a pattern selects, how depends_on pulls dependencies in and
// drops dependents, and what the planner then reports for the part kept.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import {
  matchesPattern,
  type Selection,
  selectChanges,
  type UnmatchedPattern,
  UnmatchedSelection,
} from '../../src/plan/select.js';
import type { Action, PlanChange, ResourceKind } from '../../src/plan/types.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { renderText } from '../../src/render/text.js';
import { managedDescriptors, moduleDescriptors } from '../../src/resources/index.js';
import {
  ca,
  cert,
  desiredState,
  emptyLive,
  ipr,
  liveCert,
  liveIpr,
  liveState,
  marker,
  NOW,
  OPTIONS,
  tcpModule,
  wsModule,
} from './fixtures.js';

const KIND_OF_SECTION: Record<string, ResourceKind> = Object.fromEntries(
  [...managedDescriptors, ...moduleDescriptors].map((d) => [d.section, d.kind]),
);

/**
 * A change at `address` (its kind read from the section), acting unless told it is a no-op; `a#ipx_2`
 * is a duplicate of entry `a`, which says so in its fields as the planner's do.
 */
function change(address: string, dependsOn: string[] = [], action: Action = 'patch'): PlanChange {
  const hash = address.indexOf('#');
  const step = hash < 0 ? {} : { step: 'duplicate' as const, step_of: address.slice(0, hash) };
  return {
    address,
    kind: KIND_OF_SECTION[address.slice(0, address.indexOf('.'))]!,
    key: address.slice(address.indexOf('.') + 1),
    id: null,
    action,
    reasons: action === 'no-op' ? [] : ['x'],
    reason_codes: [],
    before: null,
    after: null,
    changed_fields: [],
    depends_on: dependsOn,
    requests: [],
    drift: {},
    ...step,
  };
}

const TCP = 'tcp_edges.edgtcp_1.ip_restriction';
const WS_1 = 'https_edges.edghts_1.routes.edghtsrt_1.websocket_tcp_converter';
const WS_2 = 'https_edges.edghts_1.routes.edghtsrt_2.websocket_tcp_converter';
const WS_3 = 'https_edges.edghts_2.routes.edghtsrt_3.websocket_tcp_converter';

const CHANGES: PlanChange[] = [
  change('ip_restrictions.office'),
  change('ip_restrictions.office#ipx_2', [], 'delete'),
  change('ip_restrictions.vpn', [], 'no-op'),
  change('certificate_authorities.root'),
  change('ssh_host_certificates.db'),
  change('ssh_host_certificates.db.replica'),
  change('ssh_host_certificates.web-1'),
  change('ssh_host_certificates.web-2.eu'),
  change('ssh_host_certificates.webby'),
  change(TCP),
  change(WS_1),
  change(WS_2),
  change(WS_3),
];

const kept = (s: Partial<Selection>, changes = CHANGES) =>
  selectChanges(changes, { target: [], exclude: [], ...s }).kept.map((c) => c.address);

describe('what a pattern selects', () => {
  it.each([
    [
      'an address, with the duplicates of its entry',
      'ip_restrictions.office',
      ['ip_restrictions.office', 'ip_restrictions.office#ipx_2'],
    ],
    [
      'one duplicate by its full address, which brings its entry along',
      'ip_restrictions.office#ipx_2',
      ['ip_restrictions.office', 'ip_restrictions.office#ipx_2'],
    ],
    [
      'a key, not a longer key that starts with it and a dot',
      'ssh_host_certificates.db',
      ['ssh_host_certificates.db'],
    ],
    ['a key holding a dot', 'ssh_host_certificates.db.replica', ['ssh_host_certificates.db.replica']],
    ['a section', 'certificate_authorities', ['certificate_authorities.root']],
    ['a section of modules', 'tcp_edges', [TCP]],
    ['a module by its full address', WS_2, [WS_2]],
    ['the modules of an edge', 'https_edges.edghts_1', [WS_1, WS_2]],
    ['the module of a route', 'https_edges.edghts_1.routes.edghtsrt_2', [WS_2]],
    [
      'a glob within a section, across dots',
      'ssh_host_certificates.web-*',
      ['ssh_host_certificates.web-1', 'ssh_host_certificates.web-2.eu'],
    ],
    ['a glob over module addresses', 'tcp_edges.*', [TCP]],
    ['a glob for every route of every edge', 'https_edges.*.websocket_tcp_converter', [WS_1, WS_2, WS_3]],
    [
      'a glob matching an entry also takes its duplicates',
      '*.office',
      ['ip_restrictions.office', 'ip_restrictions.office#ipx_2'],
    ],
    ['a glob: a dot is a dot', 'ssh_host_certificates.web.*', []],
    ['a no-op, kept as it is', 'ip_restrictions.vpn', ['ip_restrictions.vpn']],
  ])('%s: %s', (_what, pattern, expected) => {
    if (expected.length === 0) {
      expect(() => kept({ target: [pattern] })).toThrow(UnmatchedSelection);
      return;
    }
    expect(kept({ target: [pattern] })).toEqual(expected);
  });
});

describe('dependencies and dependents', () => {
  // c depends on b, b on a; d depends on a; e stands alone.
  const chain = [
    change('ip_restrictions.a', [], 'delete'),
    change('ip_restrictions.b', ['ip_restrictions.a']),
    change('ip_restrictions.c', ['ip_restrictions.b']),
    change('ssh_host_certificates.d', ['ip_restrictions.a']),
    change('ssh_host_certificates.e'),
  ];
  const at = (...names: string[]) =>
    names.map((n) => (n === 'd' || n === 'e' ? `ssh_host_certificates.${n}` : `ip_restrictions.${n}`));

  it.each([
    ['--target pulls in what the target depends on, transitively', { target: at('c') }, at('a', 'b', 'c')],
    ['--target of a dependency keeps only it', { target: at('a') }, at('a')],
    ['--exclude drops what depends on the excluded change, transitively', { exclude: at('a') }, at('e')],
    ['--exclude of a dependent keeps its dependencies', { exclude: at('c') }, at('a', 'b', 'd', 'e')],
    ['target first, then exclude', { target: at('c', 'e'), exclude: at('b') }, at('a', 'e')],
    ['excluding a dependency of the target drops the target', { target: at('c'), exclude: at('a') }, []],
    [
      'several targets and excludes',
      { target: ['ip_restrictions', 'ssh_host_certificates.d'], exclude: at('c') },
      at('a', 'b', 'd'),
    ],
  ] as const)('%s', (_what, selection, expected) => {
    expect(kept(selection, chain)).toEqual(expected);
  });

  it('an entry and its duplicates go together, with what depends on them', () => {
    const dup = [
      change('ip_restrictions.a'),
      change('ip_restrictions.a#ipx_9', [], 'delete'),
      change('ip_restrictions.b', ['ip_restrictions.a']),
      change('ip_restrictions.c', ['ip_restrictions.a#ipx_9']),
    ];
    expect(kept({ target: ['ip_restrictions.b'] }, dup)).toEqual([
      'ip_restrictions.a',
      'ip_restrictions.a#ipx_9',
      'ip_restrictions.b',
    ]);
    expect(kept({ exclude: ['ip_restrictions.a#ipx_9'] }, dup)).toEqual([]);
    expect(kept({ exclude: ['ip_restrictions.c'] }, dup)).toEqual([
      'ip_restrictions.a',
      'ip_restrictions.a#ipx_9',
      'ip_restrictions.b',
    ]);
  });

  it('a dependency cycle (two replaces swapping a slot) is kept or left out whole', () => {
    const cycle = [
      change('ip_restrictions.a', ['ip_restrictions.b']),
      change('ip_restrictions.b', ['ip_restrictions.a']),
    ];
    expect(kept({ target: ['ip_restrictions.a'] }, cycle)).toEqual([
      'ip_restrictions.a',
      'ip_restrictions.b',
    ]);
    expect(kept({ exclude: ['ip_restrictions.b'] }, cycle)).toEqual([]);
  });

  it('records the patterns and the changes left out, no-ops aside, in plan order', () => {
    const s = selectChanges(CHANGES, { target: ['ssh_host_certificates'], exclude: ['*.webby'] });
    expect(s.record).toEqual({
      target: ['ssh_host_certificates'],
      exclude: ['*.webby'],
      left_out: [
        'ip_restrictions.office',
        'ip_restrictions.office#ipx_2',
        'certificate_authorities.root',
        'ssh_host_certificates.webby',
        TCP,
        WS_1,
        WS_2,
        WS_3,
      ],
    });
    expect(s.leftOut.map((c) => c.address)).toContain('ip_restrictions.vpn');
    expect([...s.kept, ...s.leftOut]).toHaveLength(CHANGES.length);
  });
});

/** What selectChanges reports of the patterns that match nothing; undefined when it selects. */
function unmatched(s: Partial<Selection>, changes = CHANGES): readonly UnmatchedPattern[] | undefined {
  try {
    selectChanges(changes, { target: [], exclude: [], ...s });
    return undefined;
  } catch (err) {
    if (err instanceof UnmatchedSelection) return err.unmatched;
    throw err;
  }
}

describe('a pattern that matches nothing', () => {
  it('is reported, with the addresses it is close to', () => {
    expect(unmatched({ target: ['ip_restrictions.ofice'] })).toEqual([
      { flag: '--target', pattern: 'ip_restrictions.ofice', near: ['ip_restrictions.office'] },
    ]);
  });

  it('every unmatched pattern is reported, of both flags, with the sections it is close to', () => {
    expect(
      unmatched({
        target: ['ip_restrictions.office', 'ssh_host_certificate'],
        exclude: ['nothing.like.this'],
      }),
    ).toEqual([
      { flag: '--target', pattern: 'ssh_host_certificate', near: ['ssh_host_certificates'] },
      { flag: '--exclude', pattern: 'nothing.like.this', near: [] },
    ]);
  });

  it('the addresses a pattern begins are near it, for a key typed in part', () => {
    const near = (pattern: string) => unmatched({ target: [pattern] })?.[0]?.near;
    expect(near('ssh_host_certificates.web-')).toEqual(['ssh_host_certificates.web-1']);
    expect(near('ssh_host_certificates.web-2')).toEqual(['ssh_host_certificates.web-1']);
    expect(near('certificate_authorities.r')).toEqual(['certificate_authorities.root']);
    expect(near('zzz')).toEqual([]);
  });

  it('a section with no change in the plan matches nothing', () => {
    expect(unmatched({ exclude: ['certificate_authorities'] }, [change('ip_restrictions.a')])).toEqual([
      { flag: '--exclude', pattern: 'certificate_authorities', near: [] },
    ]);
  });
});

describe('the selection, as a property', () => {
  const SECTIONS = ['ip_restrictions', 'ssh_host_certificates'];
  const graph = fc
    .uniqueArray(
      fc.tuple(fc.constantFrom(...SECTIONS), fc.constantFrom('a', 'b', 'c', 'a#ipx_1', 'b#ipx_2', 'a#ipx_3')),
      {
        selector: ([s, k]) => `${s}.${k}`,
        minLength: 1,
        maxLength: 10,
      },
    )
    .chain((nodes) => {
      const addresses = nodes.map(([s, k]) => `${s}.${k}`);
      return fc.record({
        changes: fc.tuple(
          ...addresses.map((address) =>
            fc
              .record({
                deps: fc.subarray(addresses),
                action: fc.constantFrom<Action>('create', 'delete', 'replace', 'no-op'),
              })
              // Cycles included: two replaces may wait on each other's delete.
              .map(({ deps, action }) =>
                change(
                  address,
                  deps.filter((d) => d !== address),
                  action,
                ),
              ),
          ),
        ),
        pattern: fc.constantFrom(
          ...addresses,
          ...SECTIONS.filter((s) => addresses.some((a) => a.startsWith(s))),
          '*.a',
          '*',
        ),
      });
    })
    .chain(({ changes, pattern }) => {
      const matchable = [...changes.map((c) => c.address), pattern];
      return fc.record({
        changes: fc.constant(changes),
        target: fc.subarray(matchable, { maxLength: 2 }),
        exclude: fc.subarray(matchable, { maxLength: 2 }),
      });
    });

  it('the kept part is closed under depends_on, holds no excluded change, and every target not excluded', () => {
    fc.assert(
      fc.property(graph, ({ changes, target, exclude }) => {
        const byAddress = new Map(changes.map((c) => [c.address, c]));
        const matched = (patterns: string[]) =>
          changes.filter((c) => patterns.some((p) => matchesPattern(p, c)));
        let s: ReturnType<typeof selectChanges>;
        try {
          s = selectChanges(changes, { target, exclude });
        } catch (err) {
          // Refused exactly when some pattern matches nothing.
          expect(err).toBeInstanceOf(UnmatchedSelection);
          expect([...target, ...exclude].some((p) => matched([p]).length === 0)).toBe(true);
          return;
        }
        expect([...target, ...exclude].every((p) => matched([p]).length > 0)).toBe(true);
        const keptAddresses = new Set(s.kept.map((c) => c.address));
        // Everything a kept change depends on is kept.
        // An entry's duplicates count as its dependencies, and it as theirs.
        const entry = (a: string) => a.split('#')[0];
        const deps = (c: PlanChange) => [
          ...c.depends_on,
          ...changes.filter((o) => o !== c && entry(o.address) === entry(c.address)).map((o) => o.address),
        ];
        for (const c of s.kept) for (const d of deps(c)) expect(keptAddresses).toContain(d);
        /** Whether `to` is among the changes `from` depends on, transitively. */
        const reaches = (from: PlanChange, to: string): boolean => {
          const seen = new Set<string>();
          const stack = deps(from);
          for (let a = stack.pop(); a !== undefined; a = stack.pop()) {
            if (a === to) return true;
            if (seen.has(a)) continue;
            seen.add(a);
            stack.push(...deps(byAddress.get(a)!));
          }
          return false;
        };
        // Nothing excluded is kept, nor anything that (transitively) depends on it.
        for (const x of matched(exclude)) {
          expect(keptAddresses.has(x.address)).toBe(false);
          for (const c of s.kept) expect(reaches(c, x.address)).toBe(false);
        }
        // With --target, every kept change is a target or a dependency of one.
        const targets = target.length > 0 ? matched(target) : changes;
        for (const c of s.kept) {
          expect(targets.some((t) => t === c || reaches(t, c.address))).toBe(true);
        }
        // Every target that no exclusion reaches is kept.
        const excluded = matched(exclude);
        for (const t of targets) {
          const dropped = excluded.some((x) => x === t || reaches(t, x.address));
          expect(keptAddresses.has(t.address)).toBe(!dropped);
        }
        // Kept and left out partition the plan, in its order.
        expect([...s.kept, ...s.leftOut].sort(byAddr)).toEqual([...changes].sort(byAddr));
        expect(s.kept).toEqual(changes.filter((c) => keptAddresses.has(c.address)));
        expect(s.record.left_out).toEqual(
          changes.filter((c) => !keptAddresses.has(c.address) && c.action !== 'no-op').map((c) => c.address),
        );
      }),
      { numRuns: 300 },
    );
  });
});

const byAddr = (a: PlanChange, b: PlanChange) => (a.address < b.address ? -1 : 1);

describe('plan with a selection', () => {
  const live = (parts: Partial<ReturnType<typeof emptyLive>['managed']>) => ({
    ...emptyLive(),
    managed: { ...emptyLive().managed, ...parts },
  });

  it('keeps only the part in changes and the summary, and records the rest', () => {
    const desired = desiredState({
      ip_restrictions: [ipr('office', { enforced: false })],
      ssh_host_certificates: [cert('web-1'), cert('web-2'), cert('db')],
      tcp_edge_ip_restrictions: [tcpModule('edgtcp_1')],
    });
    const l = live({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('office') })] });
    const full = plan(desired, l, NOW, OPTIONS);
    const part = plan(desired, l, NOW, {
      ...OPTIONS,
      selection: { target: ['ssh_host_certificates.web-*'], exclude: [] },
    });
    expect(part.changes.map((c) => c.address)).toEqual([
      'ssh_host_certificates.web-1',
      'ssh_host_certificates.web-2',
    ]);
    expect(part.changes).toEqual(full.changes.filter((c) => c.address.includes('web-')));
    expect(part.summary).toMatchObject({ create: 2, patch: 0, put: 0, no_op: 0 });
    expect(part.selection).toEqual({
      target: ['ssh_host_certificates.web-*'],
      exclude: [],
      left_out: ['ip_restrictions.office', 'ssh_host_certificates.db', 'tcp_edges.edgtcp_1.ip_restriction'],
    });
    expect(full.selection).toBeUndefined();
  });

  it('sees the whole account: a duplicate of a targeted entry is found and deleted with it', () => {
    const l = live({
      ssh_host_certificate: [
        liveCert('shcrt_1', { metadata: marker('web'), created_at: '2026-01-01T00:00:00Z' }),
        liveCert('shcrt_2', { metadata: marker('web'), created_at: '2026-02-01T00:00:00Z' }),
        liveCert('shcrt_3', { metadata: marker('gone') }),
      ],
    });
    const p = plan(desiredState({ ssh_host_certificates: [cert('web')] }), l, NOW, {
      ...OPTIONS,
      selection: { target: ['ssh_host_certificates.web'], exclude: [] },
    });
    expect(p.changes.map((c) => `${c.address} ${c.action}`)).toEqual([
      'ssh_host_certificates.web no-op',
      'ssh_host_certificates.web#shcrt_2 delete',
    ]);
    expect(p.selection?.left_out).toEqual(['ssh_host_certificates.gone']);
  });

  it('takes the safety verdict on the part kept, against every managed resource', () => {
    const owned = Array.from({ length: 10 }, (_, i) => liveCert(`shcrt_${i}`, { metadata: marker(`c${i}`) }));
    const protectedOne = liveIpr('ipx_1', { metadata: marker('guarded', { protect: true }) });
    const l = live({ ssh_host_certificate: owned, ip_restriction: [protectedOne] });
    const desired = desiredState({
      ssh_host_certificates: Array.from({ length: 6 }, (_, i) => cert(`c${i}`)),
    });
    const full = plan(desired, l, NOW, OPTIONS);
    expect(full.safe).toBe(false);
    expect(full.unsafe_reasons).toHaveLength(2); // the threshold (5 of 11) and the protected one

    const oneDelete = plan(desired, l, NOW, {
      ...OPTIONS,
      selection: { target: ['ssh_host_certificates.c9'], exclude: [] },
    });
    expect(oneDelete.safe).toBe(true);
    expect(oneDelete.safety).toMatchObject({
      managed: 11,
      destroyed: 1,
      threshold_exceeded: false,
      protected: [],
    });

    const withoutGuarded = plan(desired, l, NOW, {
      ...OPTIONS,
      selection: { target: [], exclude: ['ip_restrictions.guarded'] },
    });
    expect(withoutGuarded.safe).toBe(false);
    expect(withoutGuarded.safety).toMatchObject({ managed: 11, destroyed: 4, protected: [] });
    expect(withoutGuarded.unsafe_reasons).toEqual([expect.stringContaining('4 of 11 managed resources')]);

    const guarded = plan(desired, l, NOW, {
      ...OPTIONS,
      force: true,
      selection: { target: ['ip_restrictions'], exclude: [] },
    });
    expect(guarded.safety.protected).toEqual(['ip_restrictions.guarded']);
    expect(guarded.safe).toBe(false);
  });

  it('warnings about a change left out go with it; the others stay', () => {
    const expiring = { not_after: '2026-12-01T00:00:00.000Z' };
    const desired = desiredState({
      certificate_authorities: [ca('soon', 's1', expiring), ca('later', 's2', expiring)],
    });
    const full = plan(desired, emptyLive(), NOW, OPTIONS);
    expect(full.warnings).toHaveLength(2);
    const part = plan(desired, emptyLive(), NOW, {
      ...OPTIONS,
      selection: { target: ['certificate_authorities.soon'], exclude: [] },
    });
    expect(part.warnings).toEqual([expect.stringMatching(/^certificate_authorities\.soon: /)]);
  });

  it('a warning that names its entry with its place in the file goes with its change too', () => {
    // `id:` names an object an earlier apply replaced: matched by its marker instead, with a warning.
    const desired = desiredState({
      ip_restrictions: [ipr('office', { id: 'ipx_gone' }), ipr('vpn', { type: 'api' })],
    });
    const live = liveState({
      ip_restriction: [liveIpr('ipx_1', { metadata: marker('office') })],
    });
    const full = plan(desired, live, NOW, OPTIONS);
    expect(full.warnings).toEqual([expect.stringContaining('id ipx_gone no longer exists')]);
    const part = plan(desired, live, NOW, {
      ...OPTIONS,
      selection: { target: ['ip_restrictions.vpn'], exclude: [] },
    });
    expect(part.warnings).toEqual([]);
  });

  it('a pattern matching nothing refuses to plan', () => {
    const desired = desiredState({ websocket_tcp_converters: [wsModule('edghts_1', 'edghtsrt_1')] });
    expect(() =>
      plan(desired, emptyLive(), NOW, {
        ...OPTIONS,
        selection: { target: ['https_edges.edghts_9'], exclude: [] },
      }),
    ).toThrow(UnmatchedSelection);
  });
});

describe('a targeted plan as text and Markdown', () => {
  const desired = desiredState({
    ssh_host_certificates: Array.from({ length: 300 }, (_, i) => cert(`host-${i}`)),
  });
  const part = plan(desired, emptyLive(), NOW, {
    ...OPTIONS,
    selection: { target: ['ssh_host_certificates.host-1*'], exclude: ['ssh_host_certificates.host-10'] },
  });

  it('text ends with the count left out, after the summary', () => {
    const lines = renderText(part, { color: false }).trimEnd().split('\n');
    expect(lines.at(-2)).toMatch(/^Plan: 110 to create, /);
    expect(lines.at(-1)).toBe('190 changes left out by --target/--exclude.');
  });

  it('Markdown names the patterns and keeps the last line when it truncates', () => {
    const md = renderMarkdown(part, 4000);
    expect(md.length).toBeLessThanOrEqual(4000);
    expect(md).toContain('more changes are not shown');
    expect(md).toContain(
      'Only part of the file was planned (`--target ssh_host_certificates.host-1* --exclude ssh_host_certificates.host-10`)',
    );
    expect(md.trimEnd().split('\n').at(-1)).toBe('190 changes left out by --target/--exclude.');
  });

  it('a full plan has neither line', () => {
    const full = plan(desired, emptyLive(), NOW, OPTIONS);
    expect(renderText(full, { color: false })).not.toContain('left out');
    expect(renderMarkdown(full)).not.toContain('left out');
    expect(renderMarkdown(full)).not.toContain('Only part of the file');
  });
});
