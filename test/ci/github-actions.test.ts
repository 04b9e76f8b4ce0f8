// examples/ci/github-actions.yml, run as GitHub would run it against `accord serve`: every step whose
// shell script calls accord runs in bash with the built CLI on PATH; the github-script steps run with a
// recording stand-in for the GitHub API.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { ApiClient } from '../../src/api/client.js';
import { ROOT, useSeededService } from '../support/server.js';
import { calls, makeWorkdir, runsAccord, sh } from './helpers.js';

const KEY = 'test-key-ci-github-0123456789';
const FILE = join(ROOT, 'examples', 'ci', 'github-actions.yml');

interface Step {
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  id?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
interface Job {
  if?: string;
  env?: Record<string, string>;
  steps: Step[];
}
interface Workflow {
  on: Record<string, unknown>;
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

function load(): Workflow {
  const doc = parseDocument(readFileSync(FILE, 'utf8'), { prettyErrors: true });
  expect(doc.errors, String(doc.errors)).toEqual([]);
  expect(doc.warnings, String(doc.warnings)).toEqual([]);
  return doc.toJS() as Workflow;
}

describe('examples/ci/github-actions.yml', () => {
  const wf = load();
  const work = makeWorkdir('gha');
  const summary = join(work.dir, '.step-summary.md');
  const output = join(work.dir, '.github-output');

  /** `${{ vars.X }}` and `${{ secrets.X }}` as a repository configured per the file's header would. */
  const expr = (value: string): string =>
    value.replace(/\$\{\{\s*(vars|secrets)\.(\w+)\s*\}\}/g, (_m, _scope, name: string) => {
      if (name === 'ACCORD_API_URL') return server.url;
      if (name === 'ACCORD_API_KEY') return KEY;
      throw new Error(`the workflow uses ${name}, which its header does not ask to configure`);
    });

  const step = (job: string, name: string): Step => {
    const found = wf.jobs[job]?.steps.find((s) => s.name === name);
    if (!found) throw new Error(`no step "${name}" in job ${job}`);
    return found;
  };

  /** Runs a step's shell script with the workflow's, job's and step's env, as a runner would. */
  const runStep = async (job: string, name: string) => {
    const s = step(job, name);
    const script = s.run ?? '';
    // accord steps take their inputs from env, never from expressions pasted into the script
    expect(script).not.toContain('$' + '{{');
    writeFileSync(output, '');
    const env: Record<string, string> = {
      PATH: work.path,
      HOME: work.dir,
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: summary,
    };
    for (const [k, v] of Object.entries({ ...wf.env, ...wf.jobs[job]?.env, ...s.env }))
      env[k] = expr(String(v));
    return sh(script, work.dir, env);
  };

  const outputs = () =>
    Object.fromEntries(
      readFileSync(output, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('=', 2) as [string, string]),
    );

  const server = useSeededService(KEY);
  afterAll(() => {
    rmSync(work.dir, { recursive: true, force: true });
  });

  it('runs on pull requests and on pushes to main, with a plan job and an apply job', () => {
    expect(Object.keys(wf.on)).toEqual(expect.arrayContaining(['pull_request', 'push']));
    expect((wf.on['push'] as { branches: string[] }).branches).toEqual(['main']);
    expect(wf.jobs['plan']?.if).toContain("github.event_name == 'pull_request'");
    expect(wf.jobs['apply']?.if).toContain("github.ref == 'refs/heads/main'");
    expect(wf.env?.['ACCORD_VERSION']).toBe(
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version,
    );
    const accordSteps = Object.entries(wf.jobs).flatMap(([job, j]) =>
      j.steps.filter((s) => s.run !== undefined && runsAccord(s.run)).map((s) => `${job}: ${s.name}`),
    );
    // Every step that calls accord is run by the tests below.
    expect(accordSteps).toEqual([
      'plan: accord validate',
      'plan: accord plan',
      'apply: accord apply (the reviewed plan)',
      'apply: accord apply (a fresh plan)',
      'drift: accord drift',
    ]);
    expect(wf.on).toHaveProperty('schedule');
    expect(wf.jobs['drift']?.if).toBe("github.event_name == 'schedule'");
    // A scheduled run checks drift only: it never plans or applies.
    expect(wf.jobs['apply']?.if).not.toContain("!= 'pull_request'");
  });

  it('pull request: validates, plans to markdown with plan.json beside it, comments once and updates', async () => {
    const validate = await runStep('plan', 'accord validate');
    expect(validate.code, validate.stderr).toBe(0);

    const plan = await runStep('plan', 'accord plan');
    expect(plan.code, plan.stderr).toBe(0);
    expect(calls(work.log).at(-1)).toEqual({
      code: 2,
      line: 'accord plan --markdown --out plan.json --detailed-exitcode',
    });
    expect(outputs()).toEqual({ exitcode: '2' });
    const markdown = readFileSync(join(work.dir, 'plan.md'), 'utf8');
    expect(markdown).toMatch(/^### accord plan/);
    expect(markdown).toContain('**Plan: 6 to create,');
    const saved = JSON.parse(readFileSync(join(work.dir, 'plan.json'), 'utf8'));
    expect(saved.format_version).toBe(4);
    expect(saved.summary.create).toBe(6);
    expect(readFileSync(summary, 'utf8')).toContain(markdown.trim());
    expect(markdown + plan.stderr + readFileSync(join(work.dir, 'plan.json'), 'utf8')).not.toContain(KEY);

    // The comment step, twice (two pushes): one comment, created then updated in place.
    const comment = step('plan', 'Comment the plan on the pull request');
    const gh = fakeGitHub();
    const script = comment.with?.['script'] ?? '';
    await runGitHubScript(script, gh, work.dir, { PLAN_EXIT_CODE: '2' });
    await runGitHubScript(script, gh, work.dir, { PLAN_EXIT_CODE: '2' });
    expect(gh.log).toEqual(['list', 'create', 'list', 'update']);
    const mine = gh.comments.filter((c) => c.user.type === 'Bot');
    expect(mine).toHaveLength(1);
    expect(mine[0]?.body).toContain(markdown.trim());
    expect(gh.comments.find((c) => c.user.type === 'User')?.body).toBe(
      '<!-- accord-plan --> quoted by a human',
    );
  });

  it('merge: applies the reviewed plan.json, then a fresh apply has nothing to do', async () => {
    const before = readFileSync(summary, 'utf8').length;
    const reviewed = await runStep('apply', 'accord apply (the reviewed plan)');
    expect(reviewed.code, reviewed.stdout + reviewed.stderr).toBe(0);
    expect(calls(work.log).at(-1)).toEqual({ code: 0, line: 'accord apply plan.json' });
    expect(readFileSync(summary, 'utf8').length).toBeGreaterThan(before);

    const fresh = await runStep('apply', 'accord apply (a fresh plan)');
    expect(fresh.code, fresh.stdout + fresh.stderr).toBe(0);
    expect(calls(work.log).at(-1)).toEqual({ code: 0, line: 'accord apply --auto-approve' });

    const again = await runStep('plan', 'accord plan');
    expect(again.code, again.stderr).toBe(0);
    expect(outputs()).toEqual({ exitcode: '0' });
  });

  it('schedule: opens one drift issue, updates it while drift lasts, closes it once applied', async () => {
    const gh = fakeGitHub();
    const script = step('drift', 'Open, update or close the drift issue').with?.['script'] ?? '';
    const check = async () => {
      const r = await runStep('drift', 'accord drift');
      expect(r.code, r.stderr).toBe(0);
      const code = outputs()['exitcode'] ?? '';
      expect(calls(work.log).at(-1)).toEqual({ code: Number(code), line: 'accord drift --markdown' });
      await runGitHubScript(script, gh, work.dir, { DRIFT_EXIT_CODE: code });
      return code;
    };
    // After the merge the account holds what accord wrote: no issue.
    expect(await check()).toBe('0');
    expect(gh.log).toEqual(['list issues']);

    // Someone turns enforcement off in the dashboard.
    const client = new ApiClient({ baseUrl: server.url, apiKey: KEY });
    try {
      for await (const o of client.listAll<Record<string, unknown>>('/ip_restrictions', 'ip_restrictions')) {
        if (String(o['metadata']).includes('"key":"office-dashboard"'))
          await client.patch(`/ip_restrictions/${String(o['id'])}`, { enforced: false });
      }
    } finally {
      await client.close();
    }
    expect(await check()).toBe('2');
    expect(await check()).toBe('2');
    expect(gh.log.slice(1)).toEqual(['list issues', 'create issue', 'list issues', 'update issue']);
    // Neither the pull request quoting the marker nor the closed issue of an earlier drift is reused.
    const issue = gh.issues.find((i) => i.number > 2);
    expect(issue?.state).toBe('open');
    expect(issue?.body).toContain('**1 field of 1 object changed outside accord**');
    expect(issue?.body).toMatch(
      /\| `ip_restrictions\.office-dashboard` \(`ipx_\w+`\) \| `enforced` \| `true` \| `false` \|/,
    );
    expect(issue?.body).toContain('/actions/runs/123');
    expect(readFileSync(summary, 'utf8')).toContain('### accord drift');

    // The next apply reverts it; the next check closes the issue with a comment.
    const apply = await runStep('apply', 'accord apply (a fresh plan)');
    expect(apply.stdout).toContain(
      'reverting a change made outside accord: ip_restrictions.office-dashboard enforced',
    );
    expect(await check()).toBe('0');
    expect(gh.log.slice(5)).toEqual(['list issues', 'comment', 'update issue']);
    expect(issue?.state).toBe('closed');
    expect(gh.issues).toHaveLength(3);
  });

  it('schedule: an error fails the drift job and leaves the issue alone', async () => {
    const s = step('drift', 'accord drift');
    writeFileSync(output, '');
    // No API key: accord drift exits 1.
    const r = await sh(s.run ?? '', work.dir, {
      PATH: work.path,
      HOME: work.dir,
      GITHUB_OUTPUT: output,
      ACCORD_API_URL: server.url,
    });
    expect(r.code).toBe(0);
    expect(outputs()).toEqual({ exitcode: '1' });
    expect(step('drift', 'Open, update or close the drift issue').if).toBe(
      "steps.drift.outputs.exitcode == '0' || steps.drift.outputs.exitcode == '2'",
    );
    expect(step('drift', 'Fail on an error')).toMatchObject({
      if: "steps.drift.outputs.exitcode != '0' && steps.drift.outputs.exitcode != '2'",
      run: 'exit 1',
    });
  });

  it('merge: finds the run that planned the merged pull request, or none for a direct push', async () => {
    const find = step('apply', 'Find the plan reviewed on the merged pull request').with?.['script'] ?? '';
    const merged = fakeGitHub({ merged: true });
    await runGitHubScript(find, merged, work.dir, {});
    expect(merged.outputs).toEqual({ 'run-id': '4242' });
    const direct = fakeGitHub({ merged: false });
    await runGitHubScript(find, direct, work.dir, {});
    expect(direct.outputs).toEqual({});
  });
});

interface Comment {
  id: number;
  body: string;
  user: { type: string };
}

/** Just enough of octokit for the workflow's scripts, recording what they did. */
function fakeGitHub(opts: { merged?: boolean } = {}) {
  const comments: Comment[] = [
    { id: 1, body: '<!-- accord-plan --> quoted by a human', user: { type: 'User' } },
    { id: 2, body: 'LGTM', user: { type: 'User' } },
  ];
  const log: string[] = [];
  const outputs: Record<string, string> = {};
  const issues: { number: number; title: string; body: string; state: string; pull_request?: object }[] = [
    {
      number: 1,
      title: 'a pull request',
      body: '<!-- accord-drift --> quoted',
      state: 'open',
      pull_request: {},
    },
    { number: 2, title: 'old', body: '<!-- accord-drift -->\nold drift', state: 'closed' },
  ];
  const issue = (n: number) => {
    const found = issues.find((i) => i.number === n);
    if (!found) throw new Error(`no issue ${n}`);
    return found;
  };
  const listComments = async () => {
    log.push('list');
    return { data: comments.map((c) => ({ ...c })) };
  };
  return {
    comments,
    issues,
    log,
    outputs,
    github: {
      paginate: async (fn: (p: unknown) => Promise<{ data: unknown[] }>, params: unknown) =>
        (await fn(params)).data,
      rest: {
        issues: {
          listComments,
          listForRepo: async ({ state }: { state: string }) => {
            log.push('list issues');
            return { data: issues.filter((i) => i.state === state).map((i) => ({ ...i })) };
          },
          create: async ({ title, body }: { title: string; body: string }) => {
            log.push('create issue');
            issues.push({ number: issues.length + 1, title, body, state: 'open' });
          },
          update: async (u: { issue_number: number; body?: string; state?: string }) => {
            log.push('update issue');
            Object.assign(
              issue(u.issue_number),
              u.body === undefined ? {} : { body: u.body },
              u.state ? { state: u.state } : {},
            );
          },
          createComment: async ({ body, issue_number }: { body: string; issue_number: number }) => {
            if (issue_number !== 7) {
              issue(issue_number);
              log.push('comment');
              return;
            }
            log.push('create');
            comments.push({ id: comments.length + 1, body, user: { type: 'Bot' } });
          },
          updateComment: async ({ comment_id, body }: { comment_id: number; body: string }) => {
            log.push('update');
            const c = comments.find((x) => x.id === comment_id);
            if (!c) throw new Error(`no comment ${comment_id}`);
            c.body = body;
          },
        },
        repos: {
          listPullRequestsAssociatedWithCommit: async () => ({
            data: opts.merged
              ? [
                  {
                    number: 7,
                    merged_at: '2026-01-01T00:00:00Z',
                    merge_commit_sha: 'm3rg3',
                    head: { sha: 'h3ad' },
                  },
                ]
              : [],
          }),
        },
        actions: {
          listWorkflowRunsForRepo: async (q: { head_sha: string; event: string }) => ({
            data: {
              workflow_runs:
                q.head_sha === 'h3ad' && q.event === 'pull_request'
                  ? [
                      { id: 99, name: 'other', html_url: 'https://example.invalid/99' },
                      { id: 4242, name: 'accord', html_url: 'https://example.invalid/4242' },
                    ]
                  : [],
            },
          }),
        },
      },
    },
    core: {
      info: () => {},
      setOutput: (k: string, v: string) => {
        outputs[k] = v;
      },
    },
  };
}

/** Runs an actions/github-script body the way the action does (an async function of these names). */
async function runGitHubScript(
  script: string,
  fake: ReturnType<typeof fakeGitHub>,
  cwd: string,
  env: Record<string, string>,
): Promise<unknown> {
  const realRequire = createRequire(import.meta.url);
  const fs = realRequire('node:fs') as typeof import('node:fs');
  // Relative paths are the checkout's, as on the runner.
  const inCwd = {
    existsSync: (p: string) => fs.existsSync(join(cwd, p)),
    readFileSync: (p: string, enc: BufferEncoding) => fs.readFileSync(join(cwd, p), enc),
  };
  const context = {
    repo: { owner: 'acme', repo: 'account' },
    serverUrl: 'https://github.com',
    runId: 123,
    sha: 'm3rg3',
    workflow: 'accord',
    payload: { pull_request: { number: 7, head: { sha: 'abcdef0123456789' } } },
  };
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
    const fn = new AsyncFunction('require', 'github', 'context', 'core', script);
    return await fn(
      (id: string) => (id === 'node:fs' ? inCwd : realRequire(id)),
      fake.github,
      context,
      fake.core,
    );
  } finally {
    for (const k of Object.keys(env)) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
}
