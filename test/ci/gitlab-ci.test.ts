// examples/ci/gitlab-ci.yml, run as a GitLab runner would run its jobs' scripts against `accord serve`,
// with the built CLI on PATH and a small stand-in for the GitLab API (notes, merge requests, artifacts).
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import type { RunningServer } from '../../src/server/index.js';
import { ROOT, serveSeeded } from '../support/server.js';
import { calls, makeWorkdir, runsAccord, sh } from './helpers.js';

const KEY = 'test-key-ci-gitlab-0123456789';
const TOKEN = 'glpat-test-token';
const FILE = join(ROOT, 'examples', 'ci', 'gitlab-ci.yml');

interface GitLabJob {
  stage: string;
  script: string[];
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
  const state = { notes, log: [] as string[], mergedIid: 5 as number | undefined, artifact: '' };
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

describe('examples/ci/gitlab-ci.yml', () => {
  const ci = load();
  const planJob = ci['accord-plan'] as GitLabJob;
  const applyJob = ci['accord-apply'] as GitLabJob;
  let api: RunningServer;
  const gitlab = fakeGitLab();
  const work = makeWorkdir('gitlab');

  const runJob = (job: GitLabJob) =>
    sh(job.script.join('\n'), work.dir, {
      PATH: work.path,
      HOME: work.dir,
      ACCORD_API_URL: api.url,
      ACCORD_API_KEY: KEY,
      GITLAB_API_TOKEN: TOKEN,
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
    expect(ci['stages']).toEqual(['plan', 'apply']);
    expect(planJob.rules?.[0]?.if).toBe('$CI_PIPELINE_SOURCE == "merge_request_event"');
    expect(applyJob.rules?.[0]?.if).toContain('$CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH');
    expect(planJob.artifacts?.paths).toContain('plan.json');
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
    expect((ci['variables'] as Record<string, string>)['ACCORD_VERSION']).toBe(version);
    const jobsWithAccord = Object.entries(ci)
      .filter(([, j]) => Array.isArray((j as GitLabJob).script) && (j as GitLabJob).script.some(runsAccord))
      .map(([name]) => name);
    expect(jobsWithAccord).toEqual(['accord-plan', 'accord-apply']);
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
    expect(JSON.parse(readFileSync(join(work.dir, 'plan.json'), 'utf8')).summary.create).toBe(6);

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
