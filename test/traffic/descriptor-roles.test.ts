// A kind is its descriptor: what the service refuses about a restriction (ERR_NGROK_1420, 1419) and
// where a module's edges are listed are fields and hooks of the descriptors, which traffic and the
// account read; no code outside src/resources and src/server names a kind.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type LiveState, liveEdges } from '../../src/account/model.js';
import { type LiveSource, readTcpEdges } from '../../src/account/read.js';
import { PlanError, plan } from '../../src/plan/planner.js';
import type { PlanProblem } from '../../src/plan/types.js';
import { managedDescriptors, moduleDescriptors, type TrafficRole } from '../../src/resources/index.js';
import { ipRestriction } from '../../src/resources/ip_restriction.js';
import { tcpEdgeIpRestriction } from '../../src/resources/tcp_edge_ip_restriction.js';
import {
  desiredState,
  emptyLive,
  ipr,
  liveIpr,
  livePolicy,
  liveRule,
  marker,
  NOW,
  OPTIONS,
  policy,
  withPolicies,
} from '../plan/fixtures.js';

const P1 = 'ipp_000000000000000000000000p01';

type RestrictionRole = Extract<TrafficRole, { role: 'restriction' }>;
const role = ipRestriction.traffic as RestrictionRole;
const saved = { ...role };
const savedListing = tcpEdgeIpRestriction.listing;

afterEach(() => {
  Object.assign(role, saved);
  if (!saved.protectsLastRule) delete role.protectsLastRule;
  tcpEdgeIpRestriction.listing = savedListing;
});

/** The policy `office` (P1) with one allow of 10.0.0.0/8, and a warn-only restriction of `type` naming it. */
function account(type: string): LiveState {
  const live = emptyLive();
  live.managed.ip_policy = [...live.managed.ip_policy, livePolicy(P1, { metadata: marker('office') })];
  live.managed.ip_policy_rule = [
    ...live.managed.ip_policy_rule,
    liveRule('ipr_o1', P1, ['allow', '10.0.0.0/8'], { metadata: marker('office/10.0.0.0/8') }),
  ];
  live.managed.ip_restriction = [liveIpr('ipx_r', { type, enforced: false, metadata: marker('r') }, [P1])];
  return live;
}

function problemsOf(run: () => unknown): PlanProblem[] {
  try {
    run();
  } catch (err) {
    if (err instanceof PlanError) return err.problems;
    throw err;
  }
  return [];
}

describe('what the service refuses about a restriction is its descriptor’s', () => {
  // The only rule of the policy flipped: its delete may leave the policy with no rules.
  const flipped = (type: 'dashboard' | 'agent') =>
    desiredState({
      ...withPolicies(policy('office', [['deny', '10.0.0.0/8']])),
      ip_restrictions: [ipr('r', { type, ip_policy_ids: ['office'], enforced: false })],
    });
  const flip = (type: 'dashboard' | 'agent') =>
    problemsOf(() => plan(flipped(type), account(type), NOW, { ...OPTIONS, force: true })).map((p) => p.code);

  it('keeps the only rule of the policies that the restrictions it protects name (1419)', () => {
    expect(flip('dashboard')).toEqual(['last_rule']);
    expect(flip('agent')).toEqual([]);
    role.protectsLastRule = (values) => values['type'] === 'agent';
    expect(flip('agent')).toEqual(['last_rule']);
    expect(flip('dashboard')).toEqual([]);
  });

  it('says the service refuses a policy delete only for a kind that keeps the policies it names (1420)', () => {
    const desired = desiredState({ ip_restrictions: [] });
    const live = account('agent');
    live.managed.ip_restriction = [liveIpr('ipx_other', { type: 'agent', enforced: false }, [P1])];
    const still = () => problemsOf(() => plan(desired, live, NOW, OPTIONS));
    expect(still()).toEqual([expect.objectContaining({ code: 'policy_still_named', refused: true })]);
    role.keepsPolicies = false;
    expect(still()).toEqual([expect.objectContaining({ code: 'policy_still_named', refused: false })]);
  });
});

describe('where the edges are listed is the module descriptor’s', () => {
  it('reads the edges at its listing’s path and list key, each module under its field', async () => {
    tcpEdgeIpRestriction.listing = { path: '/edges/elsewhere', listKey: 'elsewhere', field: 'module' };
    const asked: string[] = [];
    const source: LiveSource = {
      async *listAll<T>(path: string, listKey: string) {
        asked.push(`${path} ${listKey}`);
        yield { id: 'edgtcp_1', module: { enabled: false, ip_policies: [{ id: P1 }] } } as T;
      },
      getOptional: async () => undefined,
    };
    const listed = await readTcpEdges(source);
    expect(asked).toEqual(['/edges/elsewhere elsewhere']);
    expect(liveEdges(listed as Exclude<typeof listed, 'unavailable'>)).toEqual([
      { id: 'edgtcp_1', module: { enabled: false, ip_policies: [P1] } },
    ]);
  });
});

describe('no code outside src/resources and src/server names a kind', () => {
  const root = join(__dirname, '../../src');
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return name === 'generated' ? [] : files(path);
      return path.endsWith('.ts') ? [path] : [];
    });
  const kinds: string[] = [...managedDescriptors, ...moduleDescriptors].map((d) => d.kind);

  it.each(['resources', 'server'])('(the kinds are named in src/%s)', (dir) => {
    const named = files(join(root, dir)).some((f) =>
      kinds.some((k) => readFileSync(f, 'utf8').includes(`'${k}'`)),
    );
    expect(named).toBe(true);
  });

  it('finds no kind name quoted anywhere else', () => {
    const found: string[] = [];
    for (const file of files(root)) {
      const at = relative(root, file);
      if (at.startsWith('resources/') || at.startsWith('server/')) continue;
      const text = readFileSync(file, 'utf8');
      for (const k of kinds) if (text.includes(`'${k}'`)) found.push(`${at}: '${k}'`);
    }
    expect(found).toEqual([]);
  });

  it.each(['account', 'plan', 'traffic', 'render', 'cli'])(
    'finds no kind’s descriptor imported in src/%s',
    (dir) => {
      const found: string[] = [];
      for (const file of files(join(root, dir))) {
        const imported = /from '(?:\.\.\/)+resources\/([a-z_]+)\.js'/g;
        for (const m of readFileSync(file, 'utf8').matchAll(imported))
          if (kinds.includes(m[1]!)) found.push(`${relative(root, file)}: imports ${m[1]}`);
      }
      expect(found).toEqual([]);
    },
  );
});
