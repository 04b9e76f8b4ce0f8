// examples/ci/gitlab-ci.yml, run as a GitLab runner would run its jobs' scripts against `accord serve`,
// with the built CLI on PATH and a small stand-in for the GitLab API (notes, merge requests, artifacts).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { ApiClient } from '../../src/api/client.js';
import type { RunningServer } from '../../src/server/index.js';
import { ROOT, serveSeeded } from '../support/server.js';
import { calls, makeWorkdir, runsAccord, sh } from './helpers.js';

const KEY = 'test-key-ci-gitlab-0123456789';
const TOKEN = 'glpat-test-token';
const FILE = join(ROOT, 'examples', 'ci', 'gitlab-ci.yml');

interface GitLabJob {
  stage: string;
  script: string[];
  environment?: string;
  variables?: Record<string, string>;
  rules?: { if: string }[];
  artifacts?: { paths: string[] };
}

function load(): Record<string, unknown> {
  const doc = parseDocument(readFileSync(FILE, 'utf8'), { prettyErrors: true });
  expect(doc.errors, String(doc.errors)).toEqual([]);
  expect(doc.warnings, String(doc.warnings)).toEqual([]);
  return doc.toJS() as Record<string, unknown>;
}

/** The GitLab API calls the jobs make, answered from memory. */
function fakeGitLab() {
  const notes: { id: number; body: string; system: boolean }[] = [
    { id: 1, body: 'added 1 commit', system: true },
    { id: 2, body: 'Looks good', system: false },
  ];
  const issues: { iid: number; description: string; state: string; notes: string[] }[] = [
    { iid: 1, description: 'unrelated', state: 'opened', notes: [] },
    { iid: 2, description: '<!-- accord-drift -->\nold drift', state: 'closed', notes: [] },
  ];
  const state = { notes, issues, log: [] as string[], mergedIid: 5 as number | undefined, artifact: '' };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const url = req.url ?? '';
      const send = (status: number, data: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(typeof data === 'string' ? data : JSON.stringify(data));
      };
      if (req.headers['private-token'] !== TOKEN) return send(401, { message: '401 Unauthorized' });
      state.log.push(`${req.method} ${url.replace(/\?.*/, '')}`);
      const issuesPath = '/api/v4/projects/42/issues';
      if (req.method === 'GET' && url.startsWith(`${issuesPath}?`)) {
        const wanted = new URL(url, 'http://x').searchParams.get('state');
        return send(
          200,
          issues.filter((i) => i.state === wanted),
        );
      }
      if (req.method === 'POST' && url === issuesPath) {
        const { title, description } = JSON.parse(body);
        if (!title) return send(400, { message: 'title is missing' });
        issues.push({ iid: issues.length + 1, description, state: 'opened', notes: [] });
        return send(201, issues.at(-1));
      }
      const issueAt = /^\/api\/v4\/projects\/42\/issues\/(\d+)(\/notes)?$/.exec(url);
      const issue = issueAt && issues.find((i) => i.iid === Number(issueAt[1]));
      if (issueAt && !issue) return send(404, {});
      if (issue && req.method === 'POST' && issueAt?.[2]) {
        issue.notes.push(JSON.parse(body).body);
        return send(201, {});
      }
      if (issue && req.method === 'PUT' && !issueAt?.[2]) {
        const update = JSON.parse(body);
        if (update.description !== undefined) issue.description = update.description;
        if (update.state_event === 'close') issue.state = 'closed';
        return send(200, issue);
      }
      const notesPath = '/api/v4/projects/42/merge_requests/5/notes';
      if (req.method === 'GET' && url.startsWith(`${notesPath}?`)) return send(200, notes);
      if (req.method === 'POST' && url === notesPath) {
        notes.push({ id: notes.length + 1, body: JSON.parse(body).body, system: false });
        return send(201, notes.at(-1));
      }
      const put = /^\/api\/v4\/projects\/42\/merge_requests\/5\/notes\/(\d+)$/.exec(url);
      if (req.method === 'PUT' && put) {
        const note = notes.find((n) => n.id === Number(put[1]));
        if (!note) return send(404, {});
        note.body = JSON.parse(body).body;
        return send(200, note);
      }
      if (req.method === 'GET' && url === '/api/v4/projects/42/repository/commits/m3rg3/merge_requests') {
        return send(200, state.mergedIid ? [{ iid: state.mergedIid, state: 'merged' }] : []);
      }
      if (
        req.method === 'GET' &&
        url ===
          '/api/v4/projects/42/jobs/artifacts/refs%2Fmerge-requests%2F5%2Fhead/raw/plan.json?job=accord-plan'
      ) {
        return state.artifact ? send(200, state.artifact) : send(404, { message: '404 Not found' });
      }
      send(404, { message: `no route ${req.method} ${url}` });
    });
  });
  return { state, server };
}

// Each job starts several processes (node, accord): generous bounds for a busy machine.
describe('examples/ci/gitlab-ci.yml', { timeout: 240_000 }, () => {
  const ci = load();
  const planJob = ci['accord-plan'] as GitLabJob;
  const applyJob = ci['accord-apply'] as GitLabJob;
  const driftJob = ci['accord-drift'] as GitLabJob;
  let api: RunningServer;
  const gitlab = fakeGitLab();
  const work = makeWorkdir('gitlab');

  /**
   * The project's CI/CD variables as its header asks: the plan key for every job, the apply key only
   * for jobs of the `production` environment (its scope); then the job's own variables, expanded.
   */
  const variables = (job: GitLabJob) => {
    const vars: Record<string, string> = {
      ACCORD_API_URL: api.url,
      ACCORD_PLAN_API_KEY: KEY,
      GITLAB_API_TOKEN: TOKEN,
      ...(job.environment === 'production' ? { ACCORD_API_KEY: KEY } : {}),
    };
    for (const [k, v] of Object.entries(job.variables ?? {}))
      vars[k] = v.replace(/\$(\w+)/g, (_m, name: string) => vars[name] ?? '');
    return vars;
  };
  const runJob = (job: GitLabJob) =>
    sh(job.script.join('\n'), work.dir, {
      PATH: work.path,
      HOME: work.dir,
      ...variables(job),
      CI_API_V4_URL: `http://127.0.0.1:${(gitlab.server.address() as AddressInfo).port}/api/v4`,
      CI_PROJECT_ID: '42',
      CI_MERGE_REQUEST_IID: '5',
      CI_COMMIT_SHA: 'm3rg3',
      CI_COMMIT_SHORT_SHA: 'm3rg3ab',
      CI_JOB_URL: 'https://gitlab.example.com/acme/account/-/jobs/1',
    });

  beforeAll(async () => {
    api = await serveSeeded(KEY);
    await new Promise<void>((resolve) => gitlab.server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await api?.close();
    await new Promise((resolve) => (gitlab.server as Server).close(resolve));
    rmSync(work.dir, { recursive: true, force: true });
  });

  it('plans on merge requests, applies on the default branch, and every accord line is run below', () => {
    expect(ci['stages']).toEqual(['plan', 'apply', 'drift']);
    expect(driftJob.rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "schedule"' }]);
    expect(planJob.rules?.[0]?.if).toBe('$CI_PIPELINE_SOURCE == "merge_request_event"');
    expect(applyJob.rules?.[0]?.if).toContain('$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH');
    expect(planJob.artifacts?.paths).toContain('plan.json');
    // The plan key for plan and drift; the apply key only in the production environment's scope.
    expect(planJob.variables).toEqual({ ACCORD_API_KEY: '$ACCORD_PLAN_API_KEY' });
    expect(driftJob.variables).toEqual({ ACCORD_API_KEY: '$ACCORD_PLAN_API_KEY' });
    expect(applyJob.environment).toBe('production');
    expect(applyJob.variables).toBeUndefined();
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    expect((ci['variables'] as Record<string, string>)['ACCORD_VERSION']).toBe(version);
    const jobsWithAccord = Object.entries(ci)
      .filter(([, j]) => Array.isArray((j as GitLabJob).script) && (j as GitLabJob).script.some(runsAccord))
      .map(([name]) => name);
    expect(jobsWithAccord).toEqual(['accord-plan', 'accord-apply', 'accord-drift']);
  });

  it('installs the pinned accordctl once, then from the cache, and says which version it runs', async () => {
    const setup = ci['default'] as { before_script: string[]; cache: { key: string; paths: string[] } };
    expect(setup.cache).toEqual({ key: 'accordctl-$ACCORD_VERSION-node22', paths: ['.accordctl/'] });
    const dir = mkdtempSync(join(tmpdir(), 'accord-gitlab-install-'));
    const npmLog = join(dir, 'npm.log');
    // A stand-in npm: `npm install --global --prefix DIR accordctl@V` puts the built CLI at DIR/bin/accord.
    mkdirSync(join(dir, 'tools'));
    writeFileSync(
      join(dir, 'tools', 'npm'),
      `#!/bin/sh\necho "npm $*" >> "${npmLog}"\nmkdir -p "$4/bin"\ncp "${join(work.dir, '.bin', 'accord')}" "$4/bin/accord"\n`,
    );
    chmodSync(join(dir, 'tools', 'npm'), 0o755);
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    const env = {
      PATH: `${join(dir, 'tools')}:${process.env.PATH ?? ''}`,
      HOME: dir,
      ACCORD_VERSION: version,
    };
    try {
      for (const round of [1, 2]) {
        const r = await sh(setup.before_script.join('\n'), dir, env);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout, `round ${round}`).toBe(`accord ${version} (npm package accordctl)\n`);
      }
      expect(readFileSync(npmLog, 'utf8')).toBe(
        `npm install --global --prefix .accordctl accordctl@${version} --no-audit --no-fund\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
      writeFileSync(work.log, ''); // the calls the tests below count start here
    }
  });

  it('merge request: plans to markdown with plan.json, and keeps one note up to date', async () => {
    const first = await runJob(planJob);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(calls(work.log)).toEqual([
      { code: 0, line: 'accord validate' },
      { code: 2, line: 'accord plan --markdown --out plan.json --detailed-exitcode' },
    ]);
    const markdown = readFileSync(join(work.dir, 'plan.md'), 'utf8');
    expect(markdown).toMatch(/^### accord plan/);
    expect(JSON.parse(readFileSync(join(work.dir, 'plan.json'), 'utf8')).summary.create).toBe(13);

    const second = await runJob(planJob);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    const ours = gitlab.state.notes.filter((n) => n.body.startsWith('<!-- accord-plan -->'));
    expect(ours).toHaveLength(1);
    expect(ours[0]?.body).toContain(markdown.trim());
    expect(gitlab.state.log.filter((l) => !l.startsWith('GET'))).toEqual([
      'POST /api/v4/projects/42/merge_requests/5/notes',
      'PUT /api/v4/projects/42/merge_requests/5/notes/3',
    ]);
    gitlab.state.artifact = readFileSync(join(work.dir, 'plan.json'), 'utf8');
  });

  it('merge: applies the merged request plan.json, else plans afresh', async () => {
    rmSync(join(work.dir, 'plan.json'));
    const reviewed = await runJob(applyJob);
    expect(reviewed.code, reviewed.stdout + reviewed.stderr).toBe(0);
    expect(reviewed.stdout).toContain('Applying the plan reviewed on !5.');
    expect(calls(work.log).at(-1)).toEqual({ code: 0, line: 'accord apply plan.json' });

    rmSync(join(work.dir, 'plan.json'));
    gitlab.state.mergedIid = undefined;
    const fresh = await runJob(applyJob);
    expect(fresh.code, fresh.stdout + fresh.stderr).toBe(0);
    expect(calls(work.log).at(-1)).toEqual({ code: 0, line: 'accord apply --auto-approve' });

    const again = await runJob(planJob);
    expect(again.code, again.stderr).toBe(0);
    expect(calls(work.log).at(-1)?.code).toBe(0);
  });

  it('schedule: opens one drift issue, updates it while drift lasts, closes it once applied', async () => {
    const check = async () => {
      const r = await runJob(driftJob);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const last = calls(work.log).at(-1);
      expect(last?.line).toBe('accord drift --markdown');
      return last?.code;
    };
    const issueLog = () => gitlab.state.log.filter((l) => l.includes('/issues'));
    // After the merge the account holds what accord wrote: no issue.
    expect(await check()).toBe(0);
    expect(issueLog()).toEqual(['GET /api/v4/projects/42/issues']);

    // Someone turns enforcement off in the dashboard.
    const client = new ApiClient({ baseUrl: api.url, apiKey: KEY });
    try {
      for await (const o of client.listAll<Record<string, unknown>>('/ip_restrictions', 'ip_restrictions')) {
        if (String(o['metadata']).includes('"key":"office-dashboard"'))
          await client.patch(`/ip_restrictions/${String(o['id'])}`, { enforced: false });
      }
    } finally {
      await client.close();
    }
    expect(await check()).toBe(2);
    expect(await check()).toBe(2);
    expect(issueLog().slice(1)).toEqual([
      'GET /api/v4/projects/42/issues',
      'POST /api/v4/projects/42/issues',
      'GET /api/v4/projects/42/issues',
      'PUT /api/v4/projects/42/issues/3',
    ]);
    const issue = gitlab.state.issues.find((i) => i.iid === 3);
    expect(issue?.state).toBe('opened');
    expect(issue?.description).toMatch(/^<!-- accord-drift -->\n### accord drift/);
    expect(issue?.description).toContain('| `enforced` | `true` | `false` |');
    expect(issue?.description).toContain('(https://gitlab.example.com/acme/account/-/jobs/1)');

    // The next apply reverts it; the next check closes the issue with a note.
    rmSync(join(work.dir, 'plan.json'), { force: true });
    const apply = await runJob(applyJob);
    expect(apply.stdout).toContain(
      'reverting a change made outside accord: ip_restrictions.office-dashboard enforced',
    );
    expect(await check()).toBe(0);
    expect(issue?.state).toBe('closed');
    expect(issue?.notes).toEqual([expect.stringContaining('The account holds what accord wrote again')]);
    expect(gitlab.state.issues).toHaveLength(3);
  });

  it('fails the drift job on an error, without touching the issue', async () => {
    const before = gitlab.state.log.length;
    const failing = await sh(driftJob.script.join('\n'), work.dir, {
      PATH: work.path,
      HOME: work.dir,
      ACCORD_API_URL: api.url,
      // no key: accord drift exits 1
      GITLAB_API_TOKEN: TOKEN,
      CI_API_V4_URL: `http://127.0.0.1:${(gitlab.server.address() as AddressInfo).port}/api/v4`,
      CI_PROJECT_ID: '42',
    });
    expect(failing.code).toBe(1);
    expect(calls(work.log).at(-1)).toEqual({ code: 1, line: 'accord drift --markdown' });
    expect(gitlab.state.log.slice(before)).toEqual([]);
  });

  it('fails the merge request job when the plan is refused or fails', async () => {
    const failing = await sh(planJob.script.join('\n'), work.dir, {
      PATH: work.path,
      HOME: work.dir,
      ACCORD_API_URL: api.url,
      // no key: accord plan exits 1, the note says so, the job fails with 1
      GITLAB_API_TOKEN: TOKEN,
      CI_API_V4_URL: `http://127.0.0.1:${(gitlab.server.address() as AddressInfo).port}/api/v4`,
      CI_PROJECT_ID: '42',
      CI_MERGE_REQUEST_IID: '5',
      CI_JOB_URL: 'https://gitlab.example.com/acme/account/-/jobs/2',
    });
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain('No API key');
    const ours = gitlab.state.notes.filter((n) => n.body.startsWith('<!-- accord-plan -->'));
    expect(ours).toHaveLength(1);
    expect(ours[0]?.body).toContain('**accord plan failed** (exit 1)');
  });
});
