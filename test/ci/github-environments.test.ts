// Two accounts from one repository through the GitHub Action (docs/ci.md "Two environments"):
// examples/ci/github-actions-environments.yml run as GitHub would (test/ci/actions-runner.ts) over
// examples/environments, against two `accord serve` instances, each with its own keys, and a stand-in
// GitHub API. A pull request gets one plan comment per environment, each of its own account; the merge
// applies staging's reviewed plan, then production's; the schedule keeps one drift issue per environment.
import { chmodSync, cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { ROOT, useSeededService } from '../support/server.js';
import { loadYaml, type RunContext, runJob, type Workflow } from './actions-runner.js';
import { type FakeGitHub, startFakeGitHub } from './github-api.js';
import { calls, makeWorkdir } from './helpers.js';

const TOKEN = 'ghs_test-token-environments-0123';
const ENVIRONMENTS = ['staging', 'production'] as const;
type Environment = (typeof ENVIRONMENTS)[number];
/** Each account's read-only plan key and its apply key: no job ever holds the other account's. */
const KEYS: Record<Environment, { plan: string; apply: string }> = {
  staging: { plan: 'test-key-staging-plan-0123456789', apply: 'test-key-staging-apply-012345678' },
  production: { plan: 'test-key-production-plan-01234567', apply: 'test-key-production-apply-012345' },
};
const workflow = loadYaml<Workflow>(join(ROOT, 'examples', 'ci', 'github-actions-environments.yml'));

describe('two environments through examples/ci/github-actions-environments.yml', { timeout: 240_000 }, () => {
  // Each account accepts its own two keys only.
  const services = {
    staging: useSeededService(KEYS.staging.plan, { apiKeys: [KEYS.staging.plan, KEYS.staging.apply] }),
    production: useSeededService(KEYS.production.plan, {
      apiKeys: [KEYS.production.plan, KEYS.production.apply],
    }),
  };
  const work = makeWorkdir('gha-environments');
  rmSync(join(work.dir, 'accord.yaml'));
  cpSync(join(ROOT, 'examples', 'environments'), join(work.dir, 'accord'), { recursive: true });
  const tools = join(work.dir, '.tools');
  mkdirSync(tools);
  writeFileSync(
    join(tools, 'npm'),
    `#!/bin/sh\nprefix=$4\nmkdir -p "$prefix/bin"\ncp "${join(work.dir, '.bin', 'accord')}" "$prefix/bin/accord"\n`,
  );
  chmodSync(join(tools, 'npm'), 0o755);
  let gh: FakeGitHub;
  let runId = 200;
  const cache = new Map<string, string>();
  const repository = { default_branch: 'main', full_name: 'acme/account' };

  /** One run of `job` for one environment: its matrix values, or the secrets of its GitHub environment. */
  const run = (
    job: string,
    env: Environment,
    event_name: string,
    event: Record<string, unknown>,
    id: number,
  ) => {
    const matrix = workflow.jobs[job]?.strategy?.matrix?.include?.find((m) => m['environment'] === env);
    const inEnvironment = workflow.jobs[job]?.environment === env;
    const extra: Partial<RunContext> = inEnvironment
      ? {
          // A GitHub environment's secret and variable override the repository's of the same name.
          secrets: { ACCORD_API_KEY: KEYS[env].apply },
          vars: { ACCORD_API_URL: services[env].url },
        }
      : {};
    return runJob(workflow, job, {
      event_name,
      event: { repository, ...event },
      ref: 'refs/heads/main',
      sha: 'm3rg3',
      run_id: id,
      secrets: {
        ACCORD_PLAN_API_KEY_STAGING: KEYS.staging.plan,
        ACCORD_PLAN_API_KEY_PRODUCTION: KEYS.production.plan,
      },
      vars: {
        ACCORD_API_URL_STAGING: services.staging.url,
        ACCORD_API_URL_PRODUCTION: services.production.url,
      },
      workspace: work.dir,
      path: `${tools}:${process.env.PATH ?? ''}`,
      github: gh,
      cache,
      ...(matrix ? { matrix } : {}),
      ...extra,
    });
  };
  const pullRequest = (sha: string) => ({
    pull_request: {
      number: 7,
      head: { sha, repo: { full_name: 'acme/account' } },
      base: { repo: { full_name: 'acme/account' } },
    },
  });
  const ours = () => gh.state.comments.filter((c) => c.user.type === 'Bot');
  const commentOf = (env: Environment) =>
    ours().find((c) => c.body.startsWith(`<!-- accord-plan: accord/shared accord/${env}.yaml -->`));
  /** Both environments' plan jobs of one workflow run (a matrix: one run, two jobs). */
  const planBoth = async (sha: string) => {
    const id = ++runId;
    for (const env of ENVIRONMENTS) {
      const r = await run('plan', env, 'pull_request', pullRequest(sha), id);
      expect(r.outcome, r.log).toBe('success');
    }
  };

  beforeAll(async () => {
    gh = await startFakeGitHub(TOKEN);
  });
  afterAll(async () => {
    await gh?.close();
    rmSync(work.dir, { recursive: true, force: true });
  });

  it('is a matrix of plans over both environments, and an apply per environment, production after staging', () => {
    expect(Object.keys(workflow.jobs)).toEqual(['plan', 'drift', 'apply-staging', 'apply-production']);
    for (const job of ['plan', 'drift']) {
      expect(workflow.jobs[job]?.strategy?.matrix?.include?.map((m) => m['environment'])).toEqual([
        ...ENVIRONMENTS,
      ]);
      expect(workflow.jobs[job]?.environment).toBeUndefined();
    }
    expect(workflow.jobs['apply-staging']?.environment).toBe('staging');
    expect(workflow.jobs['apply-production']?.environment).toBe('production');
    expect(workflow.jobs['apply-production']?.needs).toBe('apply-staging');
    expect(workflow.jobs['apply-production']?.if).toBeUndefined(); // it runs when staging ran
  });

  it('pull request: one plan comment per environment, each of its own account', async () => {
    await planBoth('abcdef1111');
    const planned = calls(work.log).filter((c) => c.line.startsWith('accord plan'));
    expect(planned.map((c) => c.line)).toEqual(
      ENVIRONMENTS.map((env) =>
        expect.stringMatching(
          new RegExp(
            `^accord plan -f accord/shared -f accord/${env}\\.yaml --markdown --out \\S+ --detailed-exitcode$`,
          ),
        ),
      ),
    );
    expect(ours()).toHaveLength(2);
    for (const env of ENVIRONMENTS) {
      const body = commentOf(env)?.body ?? '';
      expect(body).toContain(`accord plan of \`accord/shared accord/${env}.yaml\` for abcdef1 `);
      const other = env === 'staging' ? 'production' : 'staging';
      expect(body).not.toContain(`${other}.yaml`);
    }
    // A second push updates each comment in place.
    await planBoth('abcdef2222');
    expect(ours()).toHaveLength(2);
    for (const env of ENVIRONMENTS) expect(commentOf(env)?.body).toContain('for abcdef2 ');
    const kept = gh.state.artifacts.filter((a) => a.run_id === runId);
    expect(kept).toHaveLength(2);
    const plans = kept.map((a) => JSON.parse(a.files['plan.json'] ?? '{}') as { api_url: string });
    expect(plans.map((p) => p.api_url).sort()).toEqual(
      [services.staging.url, services.production.url].sort(),
    );
    expect(JSON.stringify(gh.state)).not.toMatch(/test-key-/);
  });

  it("merge: applies staging's reviewed plan, then production's, each with its own key", async () => {
    gh.state.merges.set('m3rg3', { number: 7, head_sha: 'abcdef2222' });
    for (const env of ENVIRONMENTS) {
      const job = `apply-${env}`;
      const applied = await run(job, env, 'push', {}, ++runId);
      expect(applied.outcome, applied.log).toBe('success');
      expect(applied.log).toContain('Applying the plan reviewed on #7');
      // The files come from the job (its files input), and must be those the plan was made from.
      expect(calls(work.log).at(-1)).toEqual({
        code: 0,
        line: expect.stringMatching(
          new RegExp(`^accord apply \\S+/plan\\.json -f accord/shared -f accord/${env}\\.yaml$`),
        ),
      });
      expect(JSON.stringify(applied.used)).not.toContain(
        KEYS[env === 'staging' ? 'production' : 'staging'].apply,
      );
    }
    // Each account now holds the shared policies, by its own IDs.
    const ids = await Promise.all(
      ENVIRONMENTS.map(async (env) => {
        const client = new ApiClient({ baseUrl: services[env].url, apiKey: KEYS[env].plan });
        try {
          const found: string[] = [];
          for await (const p of client.listAll<{ id: string; metadata: string }>(
            '/ip_policies',
            'ip_policies',
          ))
            if (p.metadata.includes('"key":"office"')) found.push(p.id);
          return found;
        } finally {
          await client.close();
        }
      }),
    );
    expect(ids.map((x) => x.length)).toEqual([1, 1]);
    expect(ids[0]).not.toEqual(ids[1]);
  });

  it('schedule: one drift issue per environment, for the account that drifted', async () => {
    // Someone turns enforcement off in the production dashboard; staging is untouched.
    const client = new ApiClient({ baseUrl: services.production.url, apiKey: KEYS.production.apply });
    try {
      for await (const r of client.listAll<{ id: string; metadata: string }>(
        '/ip_restrictions',
        'ip_restrictions',
      ))
        if (r.metadata.includes('"key":"office-dashboard"'))
          await client.patch(`/ip_restrictions/${r.id}`, { enforced: false });
    } finally {
      await client.close();
    }
    const id = ++runId;
    for (const env of ENVIRONMENTS) {
      const drift = await run('drift', env, 'schedule', { schedule: '17 6 * * *' }, id);
      expect(drift.outcome, drift.log).toBe('success');
    }
    expect(calls(work.log).filter((c) => c.line.startsWith('accord drift'))).toEqual(
      ENVIRONMENTS.map((env) => ({
        code: env === 'production' ? 2 : 0,
        line: `accord drift -f accord/shared -f accord/${env}.yaml --markdown`,
      })),
    );
    const opened = gh.state.issues.filter((i) => i.body.includes('accord/shared'));
    expect(opened.map((i) => i.body.split('\n')[0])).toEqual([
      '<!-- accord-drift: accord/shared accord/production.yaml -->',
    ]);
    expect(opened[0]?.body).toContain(services.production.url);
    expect(opened[0]?.body).toContain('ip_restrictions.office-dashboard');
  });
});
