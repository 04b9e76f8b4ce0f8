// The DAG runner alone: run states, parallelism, cycles and skipping, with work that is only promises.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DagNode, type NodeEnd, runDag } from '../../src/apply/dag.js';

const node = (id: string, ...dependsOn: string[]): DagNode<string> => ({ id, dependsOn, item: id });

/** Runs `nodes`, each failing when named in `failing`; returns the ends by ID and the order of starts. */
async function run(nodes: DagNode<string>[], failing: string[] = [], parallelism = 4, aborted = () => false) {
  const started: string[] = [];
  const ends = await runDag(nodes, {
    parallelism,
    aborted,
    work: async (id) => {
      started.push(id);
      await Promise.resolve();
      if (failing.includes(id)) throw new Error(`${id} broke`);
    },
  });
  return { ends: Object.fromEntries(nodes.map((n, i) => [n.id, ends[i]])), started };
}

describe('runDag', () => {
  it('runs a node after its dependencies, and each once', async () => {
    const { ends, started } = await run([node('c', 'b'), node('b', 'a'), node('a'), node('d', 'a', 'x')]);
    expect(Object.values(ends).every((e) => e?.state === 'done')).toBe(true);
    expect(started.indexOf('a')).toBeLessThan(started.indexOf('b'));
    expect(started.indexOf('b')).toBeLessThan(started.indexOf('c'));
    // `x` names no node: nothing to wait for.
    expect(started.sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('skips what depends on a failure, naming the dependency that did not succeed, and runs the rest', async () => {
    const { ends, started } = await run([node('a'), node('b', 'a'), node('c', 'b'), node('d')], ['a']);
    expect(ends['a']).toMatchObject({ state: 'failed', error: new Error('a broke') });
    expect(ends['b']).toEqual({ state: 'skipped', blockedBy: { id: 'a', state: 'failed' } });
    expect(ends['c']).toEqual({ state: 'skipped', blockedBy: { id: 'b', state: 'skipped' } });
    expect(ends['d']).toEqual({ state: 'done' });
    expect(started.sort()).toEqual(['a', 'd']);
  });

  it('fails the nodes on a cycle and those waiting on one, without running them', async () => {
    const { ends, started } = await run([
      node('a', 'c'),
      node('b', 'a'),
      node('c', 'b'),
      node('d', 'c'),
      node('e'),
    ]);
    for (const id of ['a', 'b', 'c', 'd']) expect(ends[id]).toEqual({ state: 'failed', cycle: true });
    expect(ends['e']).toEqual({ state: 'done' });
    expect(started).toEqual(['e']);
  });

  it('holds at most `parallelism` running, handing slots out in node order', async () => {
    const gates = new Map<string, () => void>();
    const started: string[] = [];
    let running = 0;
    let most = 0;
    const nodes = ['a', 'b', 'c', 'd', 'e'].map((id) => node(id));
    const done = runDag(nodes, {
      parallelism: 2,
      aborted: () => false,
      work: (id) =>
        new Promise<void>((resolve) => {
          started.push(id);
          most = Math.max(most, ++running);
          gates.set(id, () => {
            running--;
            resolve();
          });
        }),
    });
    const settle = async () => {
      for (let i = 0; i < 20; i++) await Promise.resolve();
    };
    await settle();
    expect(started).toEqual(['a', 'b']);
    gates.get('b')?.();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    for (const id of ['a', 'c', 'd', 'e']) {
      gates.get(id)?.();
      await settle();
    }
    expect((await done).map((e) => e.state)).toEqual(['done', 'done', 'done', 'done', 'done']);
    expect(most).toBe(2);
  });

  it('once interrupted, starts nothing: what was queued and what waits on it end not started', async () => {
    let stop = false;
    const ends = await runDag([node('a'), node('b'), node('c', 'b'), node('d', 'c')], {
      parallelism: 1,
      aborted: () => stop,
      work: async () => {
        stop = true;
      },
    });
    expect(ends.map((e) => e.state)).toEqual(['done', 'not_started', 'not_started', 'not_started']);
  });

  it('tells onStart and onEnd of each node, and whether it ran', async () => {
    const told: string[] = [];
    await runDag([node('a'), node('b', 'a')], {
      parallelism: 1,
      aborted: () => false,
      work: async (id) => {
        if (id === 'a') throw new Error('no');
      },
      onStart: (id) => told.push(`start ${id}`),
      onEnd: (id, end, ran) => told.push(`${end.state} ${id}${ran ? '' : ' without running'}`),
    });
    expect(told).toEqual(['start a', 'failed a', 'skipped b without running']);
  });
});

describe('runDag, as a property', () => {
  // Node i may depend on any node (cycles included) and on IDs that name no node.
  const graph = fc.integer({ min: 1, max: 12 }).chain((n) =>
    fc.record({
      deps: fc.array(fc.uniqueArray(fc.integer({ min: 0, max: n }), { maxLength: 3 }), {
        minLength: n,
        maxLength: n,
      }),
      failing: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: n }),
      parallelism: fc.integer({ min: 1, max: 4 }),
    }),
  );

  it('every node ends once; it runs only when all it waits on is done, and ends as its work did', async () => {
    await fc.assert(
      fc.asyncProperty(graph, async ({ deps, failing, parallelism }) => {
        const nodes = deps.map((d, i) => node(String(i), ...d.filter((j) => j !== i).map(String)));
        const endOf = new Map<string, NodeEnd>();
        let running = 0;
        let most = 0;
        const ends = await runDag(nodes, {
          parallelism,
          aborted: () => false,
          work: async (id) => {
            most = Math.max(most, ++running);
            for (const dep of nodes[Number(id)]?.dependsOn ?? []) {
              const known = dep !== String(nodes.length);
              if (known) expect(endOf.get(dep)?.state).toBe('done');
            }
            await Promise.resolve();
            running--;
            if (failing.includes(Number(id))) throw new Error('broke');
          },
          onEnd: (id, end) => {
            expect(endOf.has(id)).toBe(false);
            endOf.set(id, end);
          },
        });
        expect(most).toBeLessThanOrEqual(parallelism);
        expect(endOf.size).toBe(nodes.length);
        ends.forEach((end, i) => {
          const waitsOn = (nodes[i]?.dependsOn ?? []).filter((d) => d !== String(nodes.length));
          const allDone = waitsOn.every((d) => endOf.get(d)?.state === 'done');
          if (end.state === 'done') expect(allDone && !failing.includes(i)).toBe(true);
          if (end.state === 'failed' && 'error' in end) expect(allDone && failing.includes(i)).toBe(true);
          if (end.state === 'skipped') expect(endOf.get(end.blockedBy.id)?.state).toBe(end.blockedBy.state);
          expect(end.state).not.toBe('not_started');
        });
      }),
    );
  });
});
