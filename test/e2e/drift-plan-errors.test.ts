// `accord drift` when the files cannot be planned against the account: the guards the account breaks
// are judged on the account alone, which needs no plan, so a plan error never hides them. Both cases
// run the built CLI as a process against `accord serve` in-process:
//   A. a rule added outside accord to an empty policy of the dashboard restriction: the plan cannot
//      delete the policy's only rule (`last_rule`), and the account lets everyone in;
//   B. an unmanaged policy a TCP edge's module names by ID, deleted outside accord: the files name an
//      ID the account no longer has (`unknown_reference`), and the edge shuts everyone out.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import type { DriftReport } from '../../src/render/drift.js';
import type { ReachReport } from '../../src/render/reach-report.js';
import { runProcess } from '../support/cli.js';
import { CLI, TCP_EDGE, useSeededService, VPN } from '../support/server.js';

const KEY = 'test-key-drift-plan-errors-0123456789';

function harness(server: { readonly url: string }) {
  const dir = mkdtempSync(join(tmpdir(), 'accord-drift-plan-errors-'));
  const write = (name: string, lines: string[]) => writeFileSync(join(dir, name), `${lines.join('\n')}\n`);
  const run = (...args: string[]) =>
    runProcess('node', [CLI, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH, ACCORD_API_URL: server.url, ACCORD_API_KEY: KEY, NO_COLOR: '1' },
    });
  const api = async (act: (client: ApiClient) => Promise<unknown>) => {
    const client = new ApiClient({ baseUrl: server.url, apiKey: KEY });
    try {
      await act(client);
    } finally {
      await client.close();
    }
  };
  return { write, run, api };
}

/** What drift must say, in each of its outputs, when it cannot plan and the account breaks a guard. */
async function expectBreachBesidePlanError(
  run: ReturnType<typeof harness>['run'],
  files: string[],
  want: {
    breach: string;
    guard: Partial<DriftReport['guard_breaches'][number]>;
    /** The plan problem's code, and words of its sentence. */
    problem: string;
    says: string;
  },
) {
  const text = await run('drift', ...files);
  expect(text.code, text.stderr).toBe(2);
  expect(text.stdout).toContain(`  ${want.breach}\n`);
  expect(text.stdout).toContain('The files cannot be planned against the account');
  expect(text.stdout).toContain(
    'The files cannot be planned against the account, so what else was changed outside accord is not known:\n\n  - ',
  );
  expect(text.stdout).toContain(want.says);
  expect(text.stdout).toContain(
    '1 guard breach in the account. Fix what keeps the files from being planned (accord plan says the same), then run accord drift again to see the rest.\n',
  );

  const json = await run('drift', ...files, '--json');
  expect(json.code, json.stderr).toBe(2);
  const report = JSON.parse(json.stdout) as DriftReport;
  expect(report.guard_breaches).toEqual([expect.objectContaining({ ...want.guard, message: want.breach })]);
  expect(report.changes).toEqual([]);
  expect(report.unattributed).toEqual([]);
  expect(report.plan_error).toMatchObject({
    code: 'ACCORD_PLAN',
    plan_problems: [{ code: want.problem, message: expect.any(String) }],
  });

  const markdown = await run('drift', ...files, '--markdown');
  expect(markdown.code, markdown.stderr).toBe(2);
  expect(markdown.stdout).toContain(`#### Guards broken\n\n- ${want.breach}\n`);
  expect(markdown.stdout).toContain('#### The files cannot be planned against the account\n\n- ');
  expect(markdown.stdout).toContain(want.says);
}

describe('drift reports a guard breach the files cannot plan against (last_rule)', () => {
  const server = useSeededService(KEY);
  const { write, run, api } = harness(server);

  it('lists the breach, exits 2, and says the plan error beside it; reach shows the account now', async () => {
    const files = ['-f', 'dash.yaml', '-f', 'guards.yaml'];
    write('dash.yaml', [
      'version: 1',
      'owner: drift-last-rule',
      'ip_policies:',
      '  office: {rules: [{allow: 10.0.0.0/8}]}',
      '  spare: {rules: []}',
      'ip_restrictions:',
      '  dash: {type: dashboard, enforced: true, ip_policies: [office, spare]}',
    ]);
    write('guards.yaml', ['version: 1', 'guards:', '  dashboard: {only_let_in: [10.0.0.0/8]}']);
    const apply = await run('apply', ...files, '--auto-approve');
    expect(apply.code, apply.stderr).toBe(0);
    expect((await run('drift', ...files)).code).toBe(0);

    // Outside accord: the empty policy now lets everyone in.
    await api(async (client) => {
      let spare = '';
      for await (const p of client.listAll<{ id: string; metadata: string }>('/ip_policies', 'ip_policies'))
        if (p.metadata.includes('"key":"spare"')) spare = p.id;
      await client.post('/ip_policy_rules', { ip_policy_id: spare, action: 'allow', cidr: '0.0.0.0/0' });
    });

    const breach =
      'guards.dashboard (guards.yaml:3): dashboard: only_let_in: 0.0.0.0/5, 8.0.0.0/7, 11.0.0.0/8 and 5 more are let in (4,278,190,080 addresses)';
    await expectBreachBesidePlanError(run, files, {
      breach,
      guard: { guard: 'dashboard', scope: 'dashboard', rule: 'only_let_in', addresses: '4278190080' },
      problem: 'last_rule',
      says: 'when it may be the only rule left in',
    });

    // plan still cannot plan (exit 1); reach shows what the account lets through now, and the error.
    expect((await run('plan', ...files)).code).toBe(1);
    const reach = await run('reach', '11.0.0.1', ...files);
    expect(reach.code).toBe(1);
    expect(reach.stdout).toContain(
      `Who can reach what in ${server.url} (owner drift-last-rule): now; per the files not known, as they cannot be planned against the account (below).\n\n` +
        'dashboard: now 0.0.0.0/0 (4,294,967,296 addresses); per the files not known\n',
    );
    expect(reach.stdout).toContain(
      'The files cannot be planned against the account, so what they would let through is not known:\n  - ip_policies.spare/0.0.0.0/0: would delete 0.0.0.0/0 when it may be the only rule left in',
    );
    expect(reach.stdout).toContain(
      '11.0.0.1:\n  dashboard: now let through (allow 0.0.0.0/0 of spare); per the files not known\n',
    );
    expect(reach.stderr).toContain('cannot plan');
    const reachJson = await run('reach', ...files, '--json');
    expect(reachJson.code).toBe(1);
    const report = JSON.parse(reachJson.stdout) as ReachReport;
    expect(report.scopes.find((s) => s.scope === 'dashboard')).toMatchObject({
      now: { filter: 'enforced', addresses: '4294967296' },
      after: null,
    });
    expect(report.plan_error).toMatchObject({ code: 'ACCORD_PLAN', plan_problems: [{ code: 'last_rule' }] });
  });
});

describe('drift reports a guard breach the files cannot plan against (unknown_reference)', () => {
  const server = useSeededService(KEY);
  const { write, run, api } = harness(server);

  it('lists the breach of an edge whose policy was deleted outside accord, and the plan error', async () => {
    const files = ['-f', 'edge.yaml', '-f', 'guards.yaml'];
    write('edge.yaml', [
      'version: 1',
      'owner: drift-unknown-ref',
      'tcp_edges:',
      `  ${TCP_EDGE}:`,
      `    ip_restriction: {enabled: true, ip_policies: [${VPN}]}`,
    ]);
    write('guards.yaml', [
      'version: 1',
      'guards:',
      `  tcp_edges.${TCP_EDGE}: {always_let_in: [198.51.100.0/24]}`,
    ]);
    const apply = await run('apply', ...files, '--auto-approve');
    expect(apply.code, apply.stderr).toBe(0);
    expect((await run('drift', ...files)).code).toBe(0);

    // Outside accord: the policy the module names is deleted (a module does not hold it back).
    await api((client) => client.delete(`/ip_policies/${VPN}`));

    const breach = `guards.tcp_edges.${TCP_EDGE} (guards.yaml:3): TCP edge ${TCP_EDGE}: always_let_in: 198.51.100.0/24 is shut out (256 addresses)`;
    await expectBreachBesidePlanError(run, files, {
      breach,
      guard: { scope: `tcp_edges.${TCP_EDGE}`, rule: 'always_let_in', cidrs: ['198.51.100.0/24'] },
      problem: 'unknown_reference',
      says: `ip_policies names ${VPN}, which the account does not have`,
    });
  });
});
