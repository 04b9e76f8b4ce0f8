// Runs work items as a DAG (DESIGN §4), as a small scheduler that knows nothing of plans or HTTP. Each
// node moves through named states:
//
//   waiting --(every node in dependsOn done)--> queued --(a slot of `parallelism`)--> running
//   running --> done | failed
//   waiting --(a dependency failed or was skipped)--> skipped
//   waiting --(on a cycle of dependsOn, or waiting on one)--> failed
//   queued  --(interrupted before it got a slot)--> not_started, and so every node waiting on it
//
// A running node holds its slot until its work has ended (and onEnd has been told), so at most
// `parallelism` run at once. Slots are handed out first come, first served, which is node order among
// nodes that are ready.
import { Semaphore } from '../api/semaphore.js';

export interface DagNode<T> {
  /** Unique among the nodes. */
  id: string;
  /** IDs of nodes that must be done first; an ID that names no node is nothing to wait for. */
  dependsOn: readonly string[];
  item: T;
}

export type NodeState = 'waiting' | 'queued' | 'running' | NodeEnd['state'];

/** How a node ended. */
export type NodeEnd =
  | { state: 'done' }
  /** Its work threw `error`. */
  | { state: 'failed'; error: unknown }
  /** It never ran: it is on a cycle of dependsOn, or waits on one. */
  | { state: 'failed'; cycle: true }
  /** It never ran: `blockedBy`, the first of its dependencies that did not succeed, ended so. */
  | { state: 'skipped'; blockedBy: { id: string; state: 'failed' | 'skipped' } }
  /** It never ran: the run was interrupted first. */
  | { state: 'not_started' };

export interface DagOptions<T> {
  /** Nodes running at once, at most. */
  parallelism: number;
  /** Once true, no node starts; nodes already running run to their end. */
  aborted: () => boolean;
  /** A node's work: throwing fails the node. */
  work: (item: T) => Promise<void>;
  /** Told as a node starts running. Must not throw. */
  onStart?: (item: T) => void;
  /** Told as a node ends, before a running node gives up its slot. Must not throw. */
  onEnd?: (item: T, end: NodeEnd, ran: boolean) => void;
}

interface Run<T> {
  node: DagNode<T>;
  state: NodeState;
  /** Settles when the node has ended; made on first demand, so that each node starts once. */
  settled?: Promise<void>;
}

/** Runs every node to its end; the ends come back in node order. */
export async function runDag<T>(nodes: readonly DagNode<T>[], options: DagOptions<T>): Promise<NodeEnd[]> {
  const slots = new Semaphore(options.parallelism);
  const runs = nodes.map<Run<T>>((node) => ({ node, state: 'waiting' }));
  const byId = new Map(runs.map((r) => [r.node.id, r]));
  const cyclic = inCycles(runs, byId);
  const ends = new Map<Run<T>, NodeEnd>();
  const end = (r: Run<T>, how: NodeEnd, ran: boolean) => {
    r.state = how.state;
    ends.set(r, how);
    options.onEnd?.(r.node.item, how, ran);
  };

  const settle = (r: Run<T>): Promise<void> => {
    r.settled ??= (async () => {
      if (cyclic.has(r)) return end(r, { state: 'failed', cycle: true }, false);
      for (const id of r.node.dependsOn) {
        const dep = byId.get(id);
        if (!dep) continue;
        await settle(dep);
        if (dep.state === 'done') continue;
        if (dep.state === 'not_started') return end(r, { state: 'not_started' }, false);
        const blockedBy = { id, state: dep.state === 'failed' ? ('failed' as const) : ('skipped' as const) };
        return end(r, { state: 'skipped', blockedBy }, false);
      }
      r.state = 'queued';
      const release = await slots.acquire();
      try {
        if (options.aborted()) return end(r, { state: 'not_started' }, false);
        r.state = 'running';
        options.onStart?.(r.node.item);
        try {
          await options.work(r.node.item);
        } catch (error) {
          return end(r, { state: 'failed', error }, true);
        }
        end(r, { state: 'done' }, true);
      } finally {
        release();
      }
    })();
    return r.settled;
  };

  await Promise.all(runs.map(settle));
  return runs.map((r) => ends.get(r) ?? { state: 'not_started' });
}

/** The runs on a cycle of dependsOn, or waiting on one. */
function inCycles<T>(runs: readonly Run<T>[], byId: ReadonlyMap<string, Run<T>>): Set<Run<T>> {
  const bad = new Set<Run<T>>();
  const state = new Map<Run<T>, 'open' | 'closed'>();
  const visit = (r: Run<T>): boolean => {
    const seen = state.get(r);
    if (seen === 'open') return true;
    if (seen === 'closed') return bad.has(r);
    state.set(r, 'open');
    let cyclic = false;
    for (const id of r.node.dependsOn) {
      const dep = byId.get(id);
      if (dep && visit(dep)) cyclic = true;
    }
    state.set(r, 'closed');
    if (cyclic) bad.add(r);
    return cyclic;
  };
  for (const r of runs) visit(r);
  return bad;
}
