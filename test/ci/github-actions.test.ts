// The GitHub Action (action.yml) and the recipe that uses it (examples/ci/github-actions.yml), run as
// GitHub would run them (test/ci/actions-runner.ts) against `accord serve` and a stand-in GitHub API
// (test/ci/github-api.ts): pull requests, merges, schedules and forks, one after the other, on one
// account and one checkout.
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { ROOT, useSeededService } from '../support/server.js';
import { type ActionFile, loadYaml, type RunContext, runJob, type Workflow } from './actions-runner.js';
import { type FakeGitHub, startFakeGitHub } from './github-api.js';
import { calls, makeWorkdir } from './helpers.js';

const KEY = 'test-key-ci-github-0123456789';
const TOKEN = 'ghs_test-token-0123456789';
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  repository: { url: string };
};
const SLUG = /github\.com\/([^/]+\/[^/.]+)/.exec(pkg.repository.url)?.[1] ?? '';
/** `${{ secrets.NAME }}`, as the workflow writes it. */
const secret = (name: string) => `$${'{{'} secrets.${name} }}`;
const workflow = loadYaml<Workflow>(join(ROOT, 'examples', 'ci', 'github-actions.yml'));
const action = loadYaml<ActionFile>(join(ROOT, 'action.yml'));

// Each job starts a handful of processes (node, accord): generous bounds for a busy machine.
describe('the GitHub Action, through examples/ci/github-actions.yml', { timeout: 240_000 }, () => {
  const server = useSeededService(KEY);
  const work = makeWorkdir('gha');
  // A stand-in npm: `npm install --global --prefix DIR accordctl@V` puts the built CLI at DIR/bin/accord.
  const tools = join(work.dir, '.tools');
  const npmLog = join(work.dir, '.npm-calls.log');
  mkdirSync(tools);
  writeFileSync(npmLog, '');
  writeFileSync(
    join(tools, 'npm'),
    `#!/bin/sh\necho "npm $*" >> "${npmLog}"\nprefix=$4\nmkdir -p "$prefix/bin"\ncp "${join(work.dir, '.bin', 'accord')}" "$prefix/bin/accord"\n`,
  );
  chmodSync(join(tools, 'npm'), 0o755);
  let gh: FakeGitHub;
  let runId = 100;
  const cache = new Map<string, string>();
  const repository = { default_branch: 'main', full_name: 'acme/account' };
  const secrets = { ACCORD_PLAN_API_KEY: KEY, ACCORD_API_KEY: KEY };

  const run = (
    job: string,
    event_name: string,
    event: Record<string, unknown>,
    { workflow: recipe = workflow, ...extra }: Partial<RunContext> & { workflow?: Workflow } = {},
  ) =>
    runJob(recipe, job, {
      event_name,
      event: { repository, ...event },
      ref: 'refs/heads/main',
      sha: 'm3rg3',
      run_id: ++runId,
      secrets,
      vars: { ACCORD_API_URL: server.url },
      workspace: work.dir,
      path: `${tools}:${process.env.PATH ?? ''}`,
      github: gh,
      cache,
      ...extra,
    });
  /** The recipe with allow-unreviewed: true on its apply step. */
  const allowingUnreviewed = (): Workflow => {
    const copy = structuredClone(workflow);
    for (const step of copy.jobs['apply']?.steps ?? []) {
      if (step.uses?.startsWith(SLUG)) step.with = { ...step.with, 'allow-unreviewed': 'true' };
    }
    return copy;
  };
  const pullRequest = (sha: string, from = 'acme/account') => ({
    pull_request: {
      number: 7,
      head: { sha, repo: { full_name: from } },
      base: { repo: { full_name: 'acme/account' } },
    },
  });
  const ours = () => gh.state.comments.filter((c) => c.user.type === 'Bot');
  const lastCall = () => calls(work.log).at(-1);

  beforeAll(async () => {
    gh = await startFakeGitHub(TOKEN);
  });
  afterAll(async () => {
    await gh?.close();
    rmSync(work.dir, { recursive: true, force: true });
  });

  it('the recipe is three short jobs, each a use of this action at this release, each with its own key', () => {
    const text = readFileSync(join(ROOT, 'examples', 'ci', 'github-actions.yml'), 'utf8');
    expect(text.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#')).length).toBeLessThanOrEqual(
      40,
    );
    expect(Object.keys(workflow.jobs)).toEqual(['plan', 'apply', 'drift']);
    const uses = (job: string) => workflow.jobs[job]?.steps.map((s) => s.uses);
    for (const job of ['plan', 'apply', 'drift'])
      expect(uses(job)).toEqual(['actions/checkout@v4', `${SLUG}@v${pkg.version}`]);
    const withOf = (job: string) => workflow.jobs[job]?.steps[1]?.with;
    expect(withOf('plan')).toEqual({ command: 'plan', 'api-key': secret('ACCORD_PLAN_API_KEY') });
    expect(withOf('drift')).toEqual({ command: 'drift', 'api-key': secret('ACCORD_PLAN_API_KEY') });
    // The apply key is an environment's secret: only a job in that environment (after its approval) has it.
    expect(withOf('apply')).toEqual({ command: 'apply', 'api-key': secret('ACCORD_API_KEY') });
    expect(workflow.jobs['apply']?.environment).toBe('production');
    expect(workflow.jobs['plan']?.environment).toBeUndefined();
    expect(workflow.jobs['plan']?.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    expect(workflow.jobs['drift']?.permissions).toEqual({ contents: 'read', issues: 'write' });
    expect(workflow.jobs['apply']?.permissions).toMatchObject({ actions: 'read' });
    // The action: composite, its inputs as documented, its run steps reading inputs only from env.
    expect(Object.keys(action.inputs)).toEqual([
      'command',
      'files',
      'version',
      'args',
      'api-url',
      'api-key',
      'github-token',
      'node-version',
      'allow-unreviewed',
    ]);
    for (const s of action.runs.steps) if (s.run) expect(s.run).not.toContain('${{');
  });

  it('pull request: plans, comments once and updates that comment on the next push, keeps plan.json', async () => {
    const first = await run('plan', 'pull_request', pullRequest('abcdef1111'));
    expect(first.outcome, first.log).toBe('success');
    expect(first.used).toEqual([
      { uses: `${SLUG}@v${pkg.version}`, with: { command: 'plan', 'api-key': KEY } },
    ]);
    // Installed pinned, once, and the version it runs is in the log.
    expect(readFileSync(npmLog, 'utf8')).toMatch(
      new RegExp(
        `^npm install --global --prefix \\S+/\\.cache/accordctl/${pkg.version}-node\\d+ accordctl@${pkg.version} `,
      ),
    );
    expect(first.log).toContain(`accord ${pkg.version} (npm package accordctl)`);
    expect(
      calls(work.log)
        .slice(-2)
        .map((c) => c.line),
    ).toEqual([
      'accord validate -f accord.yaml',
      expect.stringMatching(
        /^accord plan -f accord\.yaml --markdown --out \S+\/plan\.json --detailed-exitcode$/,
      ),
    ]);
    expect(ours()).toHaveLength(1);
    expect(ours()[0]?.body).toMatch(
      /^<!-- accord-plan: accord\.yaml -->\naccord plan of `accord.yaml` for abcdef1 /,
    );
    expect(ours()[0]?.body).toContain('**Plan: 13 to create,');
    expect(first.summary).toContain('### accord plan');

    const second = await run('plan', 'pull_request', pullRequest('abcdef2222'));
    expect(second.outcome, second.log).toBe('success');
    expect(readFileSync(npmLog, 'utf8').split('\n').filter(Boolean)).toHaveLength(1); // the cache held it
    expect(ours()).toHaveLength(1);
    expect(ours()[0]?.body).toContain('for abcdef2 ');
    expect(gh.state.writes).toEqual(['POST /issues/7/comments', 'PATCH /issues/comments/3']);
    expect(gh.state.comments[0]?.body).toBe('<!-- accord-plan: accord.yaml --> quoted by a human');
    const kept = gh.state.artifacts.filter((a) => a.run_id === runId);
    expect(kept.map((a) => Object.keys(a.files).sort())).toEqual([['plan.json', 'plan.md']]);
    expect(JSON.parse(kept[0]?.files['plan.json'] ?? '{}').summary.create).toBe(13);
    expect(JSON.stringify(gh.state) + first.log + second.log).not.toContain(KEY);
  });

  it('merge: applies the plan reviewed on the merged pull request, from its artifact', async () => {
    gh.state.merges.set('m3rg3', { number: 7, head_sha: 'abcdef2222' });
    const merged = await run('apply', 'push', {});
    expect(merged.outcome, merged.log).toBe('success');
    expect(merged.log).toContain(
      `Applying the plan reviewed on #7 (run https://github.com/acme/account/actions/runs/${runId - 1})`,
    );
    expect(lastCall()).toEqual({
      code: 0,
      line: expect.stringMatching(/^accord apply \S+\/accord-\w+\/plan\.json -f accord\.yaml$/),
    });
    expect(merged.summary).toContain('### accord apply: complete');
    expect(merged.outputs['exitcode']).toBe('0');
  });

  it('merge: refuses a plan the account moved away from since review, and changes nothing', async () => {
    // The next pull request changes a description; its plan is reviewed...
    const file = join(work.dir, 'accord.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        'description: Dashboard only from the office and the VPN',
        'description: Office and VPN',
      ),
    );
    const reviewed = await run('plan', 'pull_request', pullRequest('abcdef3333'));
    expect(reviewed.outcome, reviewed.log).toBe('success');
    expect(ours()[0]?.body).toContain('**Plan: 0 to create, 1 to patch,');
    // ...then someone turns enforcement off in the dashboard, and the pull request is merged.
    await setEnforced(false);
    gh.state.merges.set('m3rg4', { number: 7, head_sha: 'abcdef3333' });
    const merged = await run('apply', 'push', {}, { sha: 'm3rg4' });
    expect(merged.outcome).toBe('failure');
    expect(lastCall()?.code).toBe(1);
    expect(merged.log).toMatch(/plan is stale/);
    expect(merged.log).toContain('::error::The reviewed plan was not applied as it was');
    expect(merged.log).toContain('two pull requests merged one after the other make the second one');
    expect(merged.log).toContain('Open a pull request (an empty commit will do)');
    expect(merged.outputs['exitcode']).toBe('1');
    expect(await officeDashboard()).toMatchObject({
      enforced: false,
      description: 'Dashboard only from the office and the VPN',
    });
  });

  it('schedule: opens one drift issue, updates it while the drift lasts, closes it once applied', async () => {
    const first = await run('drift', 'schedule', { schedule: '17 6 * * *' });
    expect(first.outcome, first.log).toBe('success');
    expect(lastCall()).toEqual({ code: 2, line: 'accord drift -f accord.yaml --markdown' });
    const again = await run('drift', 'schedule', {});
    expect(again.outcome, again.log).toBe('success');
    const issue = gh.state.issues.find((i) => i.number === 3);
    expect(issue?.title).toBe('accord: the account was changed outside accord');
    expect(issue?.state).toBe('open');
    expect(issue?.body).toMatch(/^<!-- accord-drift: accord\.yaml -->\n### accord drift/);
    expect(issue?.body).toMatch(
      /\| `ip_restrictions\.office-dashboard` \(`ipx_\w+`\) \| `enforced` \| `true` \| `false` \|/,
    );
    expect(issue?.body).toContain(`[Last checked](https://github.com/acme/account/actions/runs/${runId})`);
    expect(gh.state.writes.slice(-2)).toEqual(['POST /issues', 'PATCH /issues/3']);

    // Run by hand on main: nobody reviewed a plan, so nothing is applied...
    const before = calls(work.log).length;
    const refused = await run('apply', 'workflow_dispatch', {});
    expect(refused.outcome).toBe('failure');
    expect(refused.log).toContain(
      '::error::A workflow_dispatch run has no reviewed plan, so accord applied nothing: it applies only a plan reviewed on a pull request.',
    );
    expect(refused.log).toContain('or set allow-unreviewed: true on this step');
    expect(
      calls(work.log)
        .slice(before)
        .map((c) => c.line),
    ).toEqual(['accord --version']);
    // ...unless the step allows it: a fresh plan is applied (the file's change, and enforcement back on).
    const fresh = await run('apply', 'workflow_dispatch', {}, { workflow: allowingUnreviewed() });
    expect(fresh.outcome, fresh.log).toBe('success');
    expect(fresh.log).toContain(
      'A workflow_dispatch run has no reviewed plan: a fresh plan will be applied (allow-unreviewed: true).',
    );
    expect(lastCall()).toEqual({ code: 0, line: 'accord apply -f accord.yaml --auto-approve' });
    expect(await officeDashboard()).toMatchObject({ enforced: true, description: 'Office and VPN' });

    const gone = await run('drift', 'schedule', {});
    expect(gone.outcome, gone.log).toBe('success');
    expect(lastCall()?.code).toBe(0);
    expect(issue?.state).toBe('closed');
    expect(issue?.comments).toEqual([expect.stringContaining('The account holds what accord wrote again')]);
    expect(gh.state.issues).toHaveLength(3); // neither the pull request quoting the marker nor the old issue
  });

  it('a plan without a pull request (a push): the job summary shows the plan once', async () => {
    const onPush: Workflow = {
      on: {},
      env: { ACCORD_API_URL: server.url },
      jobs: {
        x: { steps: [{ uses: `${SLUG}@v${pkg.version}`, with: { command: 'plan', 'api-key': KEY } }] },
      },
    };
    const pushed = await run('x', 'push', {}, { workflow: onPush, sha: 'abcdef9999' });
    expect(pushed.outcome, pushed.log).toBe('success');
    expect(pushed.summary.match(/### accord plan/g)).toHaveLength(1);
    expect(pushed.summary).toContain('accord plan of `accord.yaml` for abcdef9');
    expect(pushed.outputs['exitcode']).toMatch(/^[02]$/);
  });

  it('fork: no key, so no plan; the comment says why and the check does not fail', async () => {
    const before = calls(work.log).length;
    const fork = await run('plan', 'pull_request', pullRequest('f0f0f0f0', 'someone/account'), {
      secrets: {},
    });
    expect(fork.outcome, fork.log).toBe('success');
    expect(
      calls(work.log)
        .slice(before)
        .map((c) => c.line),
    ).toEqual(['accord --version', 'accord validate -f accord.yaml']);
    expect(ours()).toHaveLength(1);
    expect(ours()[0]?.body).toContain('**accord did not plan this pull request**: it comes from a fork');
    expect(gh.state.artifacts.filter((a) => a.run_id === runId)).toEqual([]);

    // Where the fork's token cannot comment, the job's summary says it, with a warning in the log.
    gh.state.readOnly = true;
    try {
      const readOnly = await run('plan', 'pull_request', pullRequest('f0f0f0f1', 'someone/account'), {
        secrets: {},
      });
      expect(readOnly.outcome, readOnly.log).toBe('success');
      expect(readOnly.log).toContain('::warning::accord could not comment on the pull request (403)');
      expect(readOnly.summary).toContain('it comes from a fork');
    } finally {
      gh.state.readOnly = false;
    }
    // The merge of a pull request that has no plan applies nothing: nobody reviewed one.
    gh.state.merges.set('m3rg5', { number: 7, head_sha: 'f0f0f0f1' });
    const merged = await run('apply', 'push', {}, { sha: 'm3rg5' });
    expect(merged.outcome, merged.log).toBe('failure');
    expect(merged.log).toContain(
      `::error::The run that checked #7 (run ${runId - 1}) kept no plan (none was made, or it expired), so accord applied nothing`,
    );
    // A direct push, which merged no pull request, likewise.
    const pushed = await run('apply', 'push', {}, { sha: 'd1r3ct' });
    expect(pushed.outcome).toBe('failure');
    expect(pushed.log).toContain(
      '::error::No pull request was merged as this commit, so no plan was reviewed, so accord applied nothing',
    );
  });

  it('fails clearly: no key on a branch of the repository, an invalid file, apply off the default branch', async () => {
    const noKey = await run('plan', 'pull_request', pullRequest('abcdef4444'), { secrets: {} });
    expect(noKey.outcome).toBe('failure');
    expect(ours()[0]?.body).toContain('**accord did not plan**: there is no API key.');

    const file = join(work.dir, 'accord.yaml');
    const good = readFileSync(file, 'utf8');
    writeFileSync(file, good.replace('type: dashboard', 'type: dashbord'));
    try {
      const invalid = await run('plan', 'pull_request', pullRequest('abcdef5555'));
      expect(invalid.outcome).toBe('failure');
      expect(ours()[0]?.body).toContain('**accord validate found problems**');
      expect(ours()[0]?.body).toContain('did you mean "dashboard"?');
      // Rules the files alone decide, against a guard: validate refuses (exit 3), and the comment says so.
      writeFileSync(
        file,
        `${good.replace('ip_policies: [*vpn, ci-runners]', 'ip_policies: [ci-runners]')}guards:\n  api: {only_let_in: []}\n`,
      );
      const guarded = await run('plan', 'pull_request', pullRequest('abcdef6666'));
      expect(guarded.outcome).toBe('failure');
      expect(ours()[0]?.body).toContain('**The files break their guards** (`accord validate`)');
      expect(ours()[0]?.body).toContain('guards.api (accord.yaml:');
    } finally {
      writeFileSync(file, good);
    }

    const branch = await run('apply', 'workflow_dispatch', {}, { ref: 'refs/heads/feature' });
    expect(branch.outcome).toBe('failure');
    expect(branch.log).toContain('::error::accord applies on the default branch (main) only');
    const badCommand = await runJob(
      { on: {}, jobs: { x: { steps: [{ uses: `${SLUG}@v${pkg.version}`, with: { command: 'destroy' } }] } } },
      'x',
      {
        event_name: 'push',
        event: { repository },
        ref: 'refs/heads/main',
        sha: 'm3rg3',
        run_id: ++runId,
        secrets,
        vars: {},
        workspace: work.dir,
        path: `${tools}:${process.env.PATH ?? ''}`,
        github: gh,
        cache,
      },
    );
    expect(badCommand.outcome).toBe('failure');
    expect(badCommand.log).toContain('::error::command "destroy" is not one of plan, apply, drift.');
  });

  async function officeDashboard(): Promise<Record<string, unknown> | undefined> {
    const client = new ApiClient({ baseUrl: server.url, apiKey: KEY });
    try {
      for await (const o of client.listAll<Record<string, unknown>>('/ip_restrictions', 'ip_restrictions'))
        if (String(o['metadata']).includes('"key":"office-dashboard"')) return o;
    } finally {
      await client.close();
    }
    return undefined;
  }

  async function setEnforced(enforced: boolean): Promise<void> {
    const o = await officeDashboard();
    const client = new ApiClient({ baseUrl: server.url, apiKey: KEY });
    try {
      await client.patch(`/ip_restrictions/${String(o?.['id'])}`, { enforced });
    } finally {
      await client.close();
    }
  }
});
