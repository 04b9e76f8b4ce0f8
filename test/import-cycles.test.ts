// No module of src/ imports itself through others, type-only imports included: a cycle makes the order
// in which modules load matter, and says two concerns are not yet apart.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Each file's relative static imports and re-exports (`import type` too), as paths of src/. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles('src')) {
    const text = readFileSync(file, 'utf8');
    const deps = [...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms)].map((m) =>
      relative('.', resolve(dirname(file), (m[1] ?? '').replace(/\.js$/, '.ts'))),
    );
    graph.set(relative('.', file), deps);
  }
  return graph;
}

/** One cycle through the graph as a list of files, or undefined when there is none. */
function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === 'done') return undefined;
    if (state.get(file) === 'open') return [...path.slice(path.indexOf(file)), file];
    state.set(file, 'open');
    path.push(file);
    for (const dep of graph.get(file) ?? []) {
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(file, 'done');
    return undefined;
  };
  for (const file of graph.keys()) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('src/ imports', () => {
  it('form no cycle', () => {
    const graph = importGraph();
    expect(graph.get('src/cli/main.ts')).toContain('src/cli/commands/plan.ts'); // the graph is read
    expect(findCycle(graph)?.join(' -> ')).toBeUndefined();
  });

  it('a cycle is found when there is one', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['b']],
    ]);
    expect(findCycle(graph)).toEqual(['b', 'c', 'b']);
  });
});
