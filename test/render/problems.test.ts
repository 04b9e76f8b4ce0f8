// Plan errors are data (`PlanError.problems`, each a `{code, ...facts}`) and only
// src/render/problems.ts says them in English; the error's message is those sentences.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validate } from '../../src/apply/generated/plan-validator.js';
import { plan } from '../../src/cli/worded-plan.js';
import { errorReport } from '../../src/errors.js';
import { PlanError } from '../../src/plan/planner.js';
import type { EntryAt, PlanProblem, SlotHeld } from '../../src/plan/types.js';
import { withProblemWords } from '../../src/render/plan-words.js';
import { problemText } from '../../src/render/problems.js';
import { desiredState, ipr, liveIpr, liveState, marker, NOW, OPTIONS } from '../plan/fixtures.js';

const ENTRY: EntryAt = { address: 'ip_restrictions.office', file: 'accord.yaml', line: 3, col: 5 };
const AT = 'ip_restrictions.office (accord.yaml:3:5)';

const held = (holder: SlotHeld['holder'], description = ''): SlotHeld => ({
  code: 'slot_held',
  entry: ENTRY,
  slot: 'IP restriction of type api',
  id: 'ipx_9',
  description,
  holder,
});

/** One problem of every code (the compiler fails when a code has none) and its English. */
const EVERY_CODE = {
  id_unknown: [
    { code: 'id_unknown', entry: ENTRY, id: 'ipx_1' },
    `${AT}: id ipx_1 does not exist in the account; remove id: or fix it`,
  ],
  id_claimed: [
    { code: 'id_claimed', entry: ENTRY, id: 'ipx_1' },
    `${AT}: id ipx_1 is already matched by another entry`,
  ],
  id_other_owner: [
    { code: 'id_other_owner', entry: ENTRY, id: 'ipx_1', owner: 'team-b', key: 'k' },
    `${AT}: id ipx_1 belongs to owner "team-b" (key k); rerun with --allow-takeover to take it over`,
  ],
  id_other_entry: [
    { code: 'id_other_entry', entry: ENTRY, id: 'ipx_1', other: 'ip_restrictions.vpn' },
    `${AT}: id ipx_1 is already the entry ip_restrictions.vpn`,
  ],
  unknown_reference: [
    {
      code: 'unknown_reference',
      entry: ENTRY,
      field: 'ip_policies',
      ref: 'ipp_9',
      section: 'ip_policies',
    },
    `${AT}: ip_policies names ipp_9, which the account does not have; name an entry of ip_policies by key, or an ID the account has`,
  ],
  slot_held: [
    held({ is: 'unmanaged' }, 'by hand'),
    `${AT}: the IP restriction of type api is held by ipx_9 ("by hand"), which accord does not manage; adopt it with id: ipx_9 on this entry, or remove it from the account`,
  ],
  policy_still_named: [
    {
      code: 'policy_still_named',
      address: 'ip_policies.office',
      id: 'ipp_1',
      holders: [
        { is: 'restriction', id: 'ipx_1', type: 'dashboard' },
        { is: 'tcp_edge_module', edge: 'edgtcp_1' },
        { is: 'endpoint', id: 'ep_1', url: 'https://admin.example.com' },
        { is: 'new_endpoint', address: 'cloud_endpoints.api' },
      ],
      refused: true,
    },
    "ip_policies.office: would delete ipp_1, which IP restriction ipx_1 (dashboard), TCP edge edgtcp_1 (its IP restriction module), endpoint https://admin.example.com (ep_1: its traffic policy), endpoint cloud_endpoints.api (its traffic policy) still name after this plan (the service refuses to delete a policy an IP restriction names, ERR_NGROK_1420); the service would then let none of that traffic through. Keep the policy in the file, or take it out of what names it first (an IP restriction, a TCP edge's module or an endpoint's traffic policy, in the file or where it is managed), then plan again",
  ],
  last_rule: [
    {
      code: 'last_rule',
      address: 'ip_policies.office.rules.a',
      cidr: '203.0.113.0/24',
      policy: 'ipp_1',
      restriction: 'ipx_1',
    },
    'ip_policies.office.rules.a: would delete 203.0.113.0/24 when it may be the only rule left in ipp_1, which the dashboard IP restriction ipx_1 uses; the service refuses that (ERR_NGROK_1419). Give the policy its new rules in an apply of their own first, or take the policy out of the dashboard restriction first, then plan again',
  ],
  traffic_cycle: [
    {
      code: 'traffic_cycle',
      cycle: ['ip_policies.k/10.0.0.0/8', 'cloud_endpoints.shop'],
      at: [{ file: 'accord.yaml', line: 5 }, null],
      first: 'ip_policies.k/10.0.0.0/8',
    },
    'these changes cannot be ordered so that every scope (a traffic type, a TCP edge, an endpoint) keeps letting through only what the account or the files allow: ip_policies.k/10.0.0.0/8 (accord.yaml:5) -> cloud_endpoints.shop; each waits for the next. Break the cycle by applying ip_policies.k/10.0.0.0/8 in a plan of its own first (accord apply --target ip_policies.k/10.0.0.0/8), then the rest',
  ],
  policy_limit: [
    { code: 'policy_limit', address: 'ip_restrictions.dashboard', limit: 100, union: 120 },
    'ip_restrictions.dashboard: its old and new IP policies together are 120, more than the 100 one restriction may name, and no steps of at most 100 keep letting through only what the account or the file allows; swap fewer policies in each plan (apply a part, then the rest)',
  ],
  denies_only: [
    {
      code: 'denies_only',
      address: 'cloud_endpoints.admin',
      url: 'https://admin.example.com',
      where: 'on_http_request[0].actions[0]',
    },
    "cloud_endpoints.admin: the traffic policy of https://admin.example.com would deny at on_http_request[0].actions[0] with nothing allowed once the plan's rules are in place (neither its allow nor the allow rules of its ip_policies let any address in); the service refuses that (ERR_NGROK_393). Give the action an allow CIDR (0.0.0.0/0 and ::/0 let in everything its denies do not name), or an allow rule to a policy it names",
  ],
  id_not_managed: [
    {
      code: 'id_not_managed',
      entry: { address: 'cloud_endpoints.app', file: 'accord.yaml', line: 4, col: 3 },
      id: 'ep_1',
      type: 'agent',
      url: 'https://app.example.com',
    },
    'cloud_endpoints.app (accord.yaml:4:3): id ep_1 is an agent endpoint (https://app.example.com), which accord does not manage: only cloud endpoints are made and changed through the API, and agent endpoints are made by the agent that runs them. Remove id: to have this entry create a cloud endpoint of its own, or change the endpoint where it runs',
  ],
  slot_cycle: [
    {
      code: 'slot_cycle',
      entry: { address: 'cloud_endpoints.a', file: 'accord.yaml', line: 4, col: 3 },
      cycle: [
        { address: 'cloud_endpoints.a', slot: 'URL https://b.example.com of a cloud endpoint' },
        { address: 'cloud_endpoints.b', slot: 'URL https://a.example.com of a cloud endpoint' },
      ],
    },
    "cloud_endpoints.a (accord.yaml:4:3): 2 changes would take one another's places: cloud_endpoints.a the URL https://b.example.com of a cloud endpoint, which cloud_endpoints.b holds, and cloud_endpoints.b the URL https://a.example.com of a cloud endpoint, which cloud_endpoints.a holds; the service lets one object hold each at any moment, so none of them can go first; change the url of one of them to a free one in an apply of its own first (--target), then plan the rest",
  ],
  endpoint_order: [
    {
      code: 'endpoint_order',
      address: 'https://admin.example.com (cloud_endpoints.admin)',
      policies: ['ipp_1'],
      waiting: [
        { address: 'cloud_endpoints.admin', refused: 'service' },
        { address: 'ip_policies.a/0.0.0.0/0', refused: 'https://admin.example.com (cloud_endpoints.admin)' },
      ],
    },
    'https://admin.example.com (cloud_endpoints.admin): no order of the changes that move what this endpoint lets through (the account-wide endpoints restriction, its traffic policy, the rules of the policies they name (ipp_1)) keeps it between what it lets through today and after this plan at every step. At the step with none, none of cloud_endpoints.admin (the service would refuse its traffic policy then: a restrict-ips that denies with nothing allowed, ERR_NGROK_393), ip_policies.a/0.0.0.0/0 (it would take https://admin.example.com (cloud_endpoints.admin) outside what it lets through before and after) can go next. Apply the changes that shut addresses out in a plan of their own first, then the rest',
  ],
  guarded_twice: [
    {
      code: 'guarded_twice',
      scope: 'https://old.example.com',
      address: 'cloud_endpoints.admin',
      before: 'https://old.example.com',
      after: 'https://new.example.com',
      guard: { guard: 'cloud_endpoints.admin', at: { file: 'guards.yaml', line: 6, col: 3 }, by: 'address' },
      first: {
        guard: 'https://old.example.com',
        at: { file: 'guards.yaml', line: 3, col: 3 },
        by: 'url_before',
      },
    },
    'guards.cloud_endpoints.admin (guards.yaml:6:3): judges the endpoint https://old.example.com (cloud_endpoints.admin) by its address, as guards.https://old.example.com (guards.yaml:3:3) does by its URL before this plan; this plan changes its url from https://old.example.com to https://new.example.com, and a guard by either URL judges it; an endpoint is guarded once (guards never merge): keep one of them (one by its address, cloud_endpoints.admin, follows it whatever its url)',
  ],
  guard_names_nothing: [
    {
      code: 'guard_names_nothing',
      guard: 'https://old.example.com',
      at: { file: 'guards.yaml', line: 3, col: 3 },
      near: { url: 'https://new.example.com', address: 'cloud_endpoints.admin' },
    },
    'guards.https://old.example.com (guards.yaml:3:3): no endpoint of the account has the URL https://old.example.com, before or after this plan, so this guard would judge nothing. Did you mean https://new.example.com (cloud_endpoints.admin, whose url it is now)? Guard the endpoint by the URL it has, or by its address in the files (cloud_endpoints.KEY), which follows it whatever its url; or remove the guard',
  ],
} satisfies { [C in PlanProblem['code']]: [Extract<PlanProblem, { code: C }>, string] };

describe('plan problems in English', () => {
  it.each(Object.entries(EVERY_CODE))('%s', (code, [problem, text]) => {
    expect(problem.code).toBe(code);
    expect(problemText(problem)).toBe(text);
  });

  it.each([
    [{ is: 'itself' }, 'which would have to be deleted before its replacement is created'],
    [
      { is: 'entry', address: 'ip_restrictions.a' },
      'which ip_restrictions.a keeps; give this entry id: ipx_9',
    ],
    [{ is: 'marker_broken' }, 'whose accord marker for this entry was broken outside accord'],
    [{ is: 'other_owner', owner: 'team-b', key: 'k' }, 'ipx_9, of owner "team-b" (key k); take it over'],
  ] as const)('a slot held by %o says the way out', (holder, way) => {
    expect(problemText(held(holder))).toContain(way);
  });

  it('says the service refuses only when a holder keeps the policy (an IP restriction names it)', () => {
    const text = problemText({
      code: 'policy_still_named',
      address: 'ip_policies.office',
      id: 'ipp_1',
      holders: [{ is: 'tcp_edge_module', edge: 'edgtcp_1' }],
      refused: false,
    });
    expect(text).toContain(
      'which TCP edge edgtcp_1 (its IP restriction module) still names after this plan;',
    );
    expect(text).not.toContain('ERR_NGROK_1420');
  });

  it('every problem is one line that begins with where it is', () => {
    const entry = fc.record({
      address: fc.stringMatching(/^[a-z_]+\.[a-z0-9-]+$/),
      file: fc.stringMatching(/^[a-z]+\.yaml$/),
      line: fc.nat(),
      col: fc.nat(),
    });
    const id = fc.stringMatching(/^[a-z]+_[A-Za-z0-9]+$/);
    const problem: fc.Arbitrary<PlanProblem> = fc.oneof(
      fc.record({ code: fc.constant('id_unknown' as const), entry, id }),
      fc.record({ code: fc.constant('id_claimed' as const), entry, id }),
      fc.record({ code: fc.constant('id_other_owner' as const), entry, id, owner: id, key: id }),
      fc.record({ code: fc.constant('id_other_entry' as const), entry, id, other: id }),
      fc.record({ code: fc.constant('unknown_reference' as const), entry, field: id, ref: id, section: id }),
    );
    fc.assert(
      fc.property(problem, (p) => {
        const text = problemText(p);
        expect(text).not.toContain('\n');
        if ('entry' in p)
          expect(
            text.startsWith(`${p.entry.address} (${p.entry.file}:${p.entry.line}:${p.entry.col}): `),
          ).toBe(true);
      }),
    );
  });
});

describe('PlanError', () => {
  const problems: PlanProblem[] = [EVERY_CODE.id_unknown[0], EVERY_CODE.traffic_cycle[0]];

  it('keeps the problems as data and says them, one a line, in its message', () => {
    const err = withProblemWords(new PlanError(problems));
    expect(err.problems).toEqual(problems);
    expect(err.messages).toEqual([EVERY_CODE.id_unknown[1], EVERY_CODE.traffic_cycle[1]]);
    expect(err.message).toBe(
      `cannot plan:\n  - ${EVERY_CODE.id_unknown[1]}\n  - ${EVERY_CODE.traffic_cycle[1]}`,
    );
  });

  it('--json gives each problem its code beside its sentence', () => {
    expect(errorReport(withProblemWords(new PlanError(problems)))).toEqual({
      code: 'ACCORD_PLAN',
      message: expect.stringMatching(/^cannot plan:/),
      plan_problems: [
        { code: 'id_unknown', message: EVERY_CODE.id_unknown[1] },
        { code: 'traffic_cycle', message: EVERY_CODE.traffic_cycle[1] },
      ],
    });
  });

  it('the planner throws the problems as data', () => {
    const desired = desiredState({ ip_restrictions: [ipr('office', { id: 'ipx_1' })] });
    const l = liveState({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('x', { owner: 'b' }) })] });
    let thrown: unknown;
    try {
      plan(desired, l, NOW, OPTIONS);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(PlanError);
    expect((thrown as PlanError).problems).toEqual([
      {
        code: 'id_other_owner',
        entry: { address: 'ip_restrictions.office', file: expect.any(String), line: 1, col: 1 },
        id: 'ipx_1',
        owner: 'b',
        key: 'x',
      },
    ]);
  });
});

describe('a slot held outside accord, in a drift plan', () => {
  it('is a reason with the problem as data, valid against the plan schema', () => {
    const desired = desiredState({ ip_restrictions: [ipr('office', { type: 'api' })] });
    const l = liveState({ ip_restriction: [liveIpr('ipx_9', { type: 'api', description: 'by hand' })] });
    const p = plan(desired, l, NOW, { ...OPTIONS, reportHeldSlots: true });
    const c = p.changes.find((x) => x.address === 'ip_restrictions.office')!;
    const reason = c.reason_codes.find((r) => r.code === 'slot_held');
    expect(reason).toEqual({
      code: 'slot_held',
      problem: expect.objectContaining({ id: 'ipx_9', description: 'by hand', holder: { is: 'unmanaged' } }),
    });
    expect(c.reasons).toContain(
      `slot held: ${problemText((reason as Extract<typeof reason, { code: 'slot_held' }>).problem)}`,
    );
    expect(
      validate(JSON.parse(JSON.stringify(p))),
      JSON.stringify((validate as { errors?: unknown }).errors),
    ).toBe(true);
  });
});

describe('the plan schema describes a held slot as SlotHeld is', () => {
  const schema = JSON.parse(readFileSync(new URL('../../schemas/plan.schema.json', import.meta.url), 'utf8'));
  const SLOT_HELD = {
    code: true,
    entry: true,
    slot: true,
    id: true,
    description: true,
    holder: true,
  } satisfies Record<keyof SlotHeld, true>;
  const ENTRY_AT = { address: true, file: true, line: true, col: true } satisfies Record<keyof EntryAt, true>;

  it('with the same fields, every one required', () => {
    const def = schema.$defs.slotHeld;
    expect(Object.keys(def.properties).sort()).toEqual(Object.keys(SLOT_HELD).sort());
    expect([...def.required].sort()).toEqual(Object.keys(SLOT_HELD).sort());
    expect(Object.keys(def.properties.entry.properties).sort()).toEqual(Object.keys(ENTRY_AT).sort());
  });
});
