// The planner orders around what the service refuses (DESIGN §2; shared/SPEC-ip-policies.md "What the
// production service refuses"): no policy delete while an IP restriction (enforced or not) or a TCP
// edge's module names it, the only rule of a policy the dashboard restriction uses never deleted
// before its replacement exists, and a plan error saying what to detach first where the plan could
// only get there through a refused request.
import { describe, expect, it } from 'vitest';
import type { LiveState } from '../../src/account/model.js';
import { plan } from '../../src/cli/worded-plan.js';
import { PlanError } from '../../src/plan/planner.js';
import type { Plan, PlanChange } from '../../src/plan/types.js';
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
  tcpModule,
  withPolicies,
} from '../plan/fixtures.js';

const P1 = 'ipp_000000000000000000000000p01';
const P2 = 'ipp_000000000000000000000000p02';
const EDGE = 'edgtcp_000000000000000000000000e1';

function live(parts: Partial<LiveState['managed']> = {}, more: Partial<LiveState> = {}): LiveState {
  const managed = emptyLive().managed;
  for (const [kind, objects] of Object.entries(parts)) {
    const k = kind as keyof LiveState['managed'];
    managed[k] = [...managed[k], ...(objects ?? [])];
  }
  return { managed, modules: {}, ...more };
}

/** A managed policy `key` with ID `id` and its live rules (IDs ipr_<key>1, ...). */
function managedPolicy(key: string, id: string, rules: [string, string][]): Partial<LiveState['managed']> {
  return {
    ip_policy: [livePolicy(id, { metadata: marker(key) })],
    ip_policy_rule: rules.map(([action, cidr], i) =>
      liveRule(`ipr_${key}${i + 1}`, id, [action as 'allow', cidr], { metadata: marker(`${key}/${cidr}`) }),
    ),
  };
}

function at(p: Plan, address: string): PlanChange {
  const c = p.changes.find((x) => x.address === address);
  expect(c, address).toBeDefined();
  return c!;
}

function problems(run: () => unknown): string[] {
  try {
    run();
  } catch (err) {
    if (err instanceof PlanError) return err.messages;
    throw err;
  }
  return [];
}

const edge = (modulePolicies: string[] | null) => ({
  id: EDGE,
  uri: `http://x/edges/tcp/${EDGE}`,
  ip_restriction:
    modulePolicies === null
      ? null
      : {
          enabled: true,
          ip_policies: modulePolicies.map((id) => ({ id, uri: `http://x/ip_policies/${id}` })),
        },
});

describe('a policy delete and what names it', () => {
  it('waits for the change that stops a warn-only restriction naming it', () => {
    const desired = desiredState({ ip_restrictions: [] });
    const account = live({
      ...managedPolicy('office', P1, [['allow', '10.0.0.0/8']]),
      ip_restriction: [liveIpr('ipx_1', { enforced: false, metadata: marker('dash') }, [P1])],
    });
    const p = plan(desired, account, NOW, { ...OPTIONS, force: true });
    expect(at(p, 'ip_policies.office').depends_on).toContain('ip_restrictions.dash');
  });

  it("is a plan error while another owner's warn-only restriction still names it (1420)", () => {
    const desired = desiredState({ ip_restrictions: [] });
    const account = live({
      ...managedPolicy('office', P1, [['allow', '10.0.0.0/8']]),
      ip_restriction: [liveIpr('ipx_other', { type: 'agent', enforced: false }, [P1])],
    });
    expect(problems(() => plan(desired, account, NOW, OPTIONS))).toEqual([
      expect.stringMatching(
        new RegExp(
          `^ip_policies\\.office: would delete ${P1}, which IP restriction ipx_other \\(agent\\) still names after this plan \\(the service refuses to delete a policy an IP restriction names, ERR_NGROK_1420\\)`,
        ),
      ),
    ]);
  });

  it('is a plan error while a TCP edge module the files do not name still names it, naming the edge', () => {
    const desired = desiredState({ ip_restrictions: [] });
    const policies = managedPolicy('office', P1, [['allow', '10.0.0.0/8']]);
    const named = problems(() => plan(desired, live(policies, { tcpEdges: [edge([P2, P1])] }), NOW, OPTIONS));
    expect(named).toEqual([
      expect.stringContaining(
        `ip_policies.office: would delete ${P1}, which TCP edge ${EDGE} (its IP restriction module) still names after this plan; the service would then let none of that traffic through`,
      ),
    ]);
    expect(named[0]).not.toContain('ERR_NGROK_1420');
    // Edges whose module names another policy, or none, do not hold it; nor warn.
    const free = plan(
      desired,
      live(policies, { tcpEdges: [edge([P2]), { ...edge(null), id: 'edgtcp_2' }] }),
      NOW,
      OPTIONS,
    );
    expect(free.changes.find((c) => c.address === 'ip_policies.office')?.action).toBe('delete');
    // Nor warn of it; what the listed edge lets through is reach's to say (P2 has no rules here).
    expect(free.warnings.filter((w) => w.includes('TCP edge'))).toEqual([
      `TCP edge ${EDGE}: no address is let through, today or after this plan (policies: ${P2})`,
    ]);
  });

  it('waits for the PUT that takes it out of a module the files name', () => {
    const desired = desiredState({ tcp_edge_ip_restrictions: [tcpModule(EDGE, { ip_policy_ids: [P2] })] });
    const account = live(
      {
        ...managedPolicy('office', P1, [['allow', '10.0.0.0/8']]),
        ip_policy: [livePolicy(P1, { metadata: marker('office') }), livePolicy(P2)],
      },
      {
        modules: { [`tcp_edges.${EDGE}.ip_restriction`]: edge([P1]).ip_restriction },
        tcpEdges: [edge([P1])],
      },
    );
    const p = plan(desired, account, NOW, { ...OPTIONS, force: true });
    expect(at(p, 'ip_policies.office').depends_on).toContain(`tcp_edges.${EDGE}.ip_restriction`);
  });

  it('warns that modules may name it where the service has no list of TCP edges', () => {
    const desired = desiredState({ ip_restrictions: [] });
    const account = live(managedPolicy('office', P1, [['allow', '10.0.0.0/8']]), { tcpEdges: 'unavailable' });
    expect(plan(desired, account, NOW, OPTIONS).warnings).toEqual(
      expect.arrayContaining([
        `ip_policies.office: the service has no list of TCP edges, so TCP edge IP restriction modules the files do not name may still name ${P1}; check them before applying`,
        `ip_policies.office: the endpoints were not listed, so endpoint traffic policies may still name ${P1}; check them before applying`,
      ]),
    );
    const listed = live(managedPolicy('office', P1, [['allow', '10.0.0.0/8']]), { tcpEdges: [] });
    expect(plan(desired, listed, NOW, OPTIONS).warnings.join('\n')).not.toContain('TCP edge');
  });
});

describe('the only rule of a policy the dashboard restriction uses', () => {
  const dashboard = (ids: string[], o: Record<string, unknown> = {}) =>
    liveIpr('ipx_d', { metadata: marker('dash'), ...o }, ids);

  it('is deleted only once its replacement exists', () => {
    const desired = desiredState({
      ...withPolicies(policy('office', [['allow', '192.0.2.0/24']])),
      ip_restrictions: [ipr('dash', { ip_policy_ids: ['office'] })],
    });
    const account = live({
      ...managedPolicy('office', P1, [['allow', '10.0.0.0/8']]),
      ip_restriction: [dashboard([P1])],
    });
    const p = plan(desired, account, NOW, OPTIONS);
    expect(at(p, 'ip_policies.office/10.0.0.0/8').depends_on).toContain('ip_policies.office/192.0.2.0/24');
  });

  it('is a plan error when it is flipped, naming what to do first (1419)', () => {
    const desired = desiredState({
      ...withPolicies(policy('office', [['deny', '10.0.0.0/8']])),
      ip_restrictions: [ipr('dash', { ip_policy_ids: ['office'], enforced: false })],
    });
    const account = live({
      ...managedPolicy('office', P1, [['allow', '10.0.0.0/8']]),
      ip_restriction: [dashboard([P1], { enforced: false })],
    });
    expect(problems(() => plan(desired, account, NOW, { ...OPTIONS, force: true }))).toEqual([
      expect.stringMatching(
        /^ip_policies\.office\/10\.0\.0\.0\/8.*: would delete 10\.0\.0\.0\/8 when it may be the only rule left in ipp_\w+, which the dashboard IP restriction ipx_d uses; the service refuses that \(ERR_NGROK_1419\)\. Give the policy its new rules in an apply of their own first, or take the policy out of the dashboard restriction first/,
      ),
    ]);
  });

  it('is a plan error when the plan (forced) removes every rule', () => {
    const desired = desiredState({
      ...withPolicies(policy('office', [])),
      ip_restrictions: [ipr('dash', { ip_policy_ids: ['office'] })],
    });
    const account = live({
      ...managedPolicy('office', P1, [
        ['allow', '10.0.0.0/8'],
        ['deny', '10.1.0.0/16'],
      ]),
      ip_restriction: [dashboard([P1])],
    });
    const found = problems(() => plan(desired, account, NOW, { ...OPTIONS, force: true }));
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((f) => f.includes('ERR_NGROK_1419'))).toBe(true);
  });

  it('leaving the dashboard restriction: its rules go after the restriction lets go of it', () => {
    const desired = desiredState({
      ...withPolicies(
        policy('office', [['allow', '192.0.2.0/24']]),
        policy('vpn', [['allow', '198.51.100.0/24']]),
      ),
      ip_restrictions: [ipr('dash', { ip_policy_ids: ['vpn'], enforced: false })],
    });
    const account = live({
      ip_policy: [
        livePolicy(P1, { metadata: marker('office') }),
        livePolicy(P2, { metadata: marker('vpn') }),
      ],
      ip_policy_rule: [
        liveRule('ipr_o', P1, ['allow', '10.0.0.0/8'], { metadata: marker('office/10.0.0.0/8') }),
        liveRule('ipr_v', P2, ['allow', '198.51.100.0/24'], { metadata: marker('vpn/198.51.100.0/24') }),
      ],
      ip_restriction: [dashboard([P1], { enforced: false })],
    });
    const p = plan(desired, account, NOW, OPTIONS);
    expect(at(p, 'ip_policies.office/10.0.0.0/8').depends_on).toContain('ip_restrictions.dash');
  });
});
