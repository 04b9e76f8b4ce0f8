// A stand-in for the parts of GitHub's REST API the action calls, over real HTTP, answering from memory
// and recording each write: pull request comments, the pull requests a commit was merged from, workflow
// runs and their artifacts, and issues. A token other than its own is refused (401), and with
// `readOnly` every write is refused as GitHub refuses a fork's token (403).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Comment {
  id: number;
  body: string;
  user: { type: string };
}
export interface Issue {
  number: number;
  title: string;
  body: string;
  state: string;
  pull_request?: object;
  comments: string[];
}
export interface Run {
  id: number;
  name: string;
  event: string;
  head_sha: string;
  conclusion: string;
  html_url: string;
}
export interface Artifact {
  run_id: number;
  name: string;
  files: Record<string, string>;
  expired: boolean;
}

export interface FakeGitHub {
  url: string;
  token: string;
  repository: string;
  state: {
    comments: Comment[];
    issues: Issue[];
    runs: Run[];
    artifacts: Artifact[];
    /** Commit SHA -> the pull request merged as that commit. */
    merges: Map<string, { number: number; head_sha: string }>;
    /** Writes made, as `METHOD /path`. */
    writes: string[];
    readOnly: boolean;
  };
  close(): Promise<void>;
}

const PR = 7;

export async function startFakeGitHub(token: string): Promise<FakeGitHub> {
  const repository = 'acme/account';
  const state: FakeGitHub['state'] = {
    comments: [
      { id: 1, body: '<!-- accord-plan: accord.yaml --> quoted by a human', user: { type: 'User' } },
      { id: 2, body: 'LGTM', user: { type: 'User' } },
    ],
    issues: [
      {
        number: 1,
        title: 'a pull request',
        body: '<!-- accord-drift: accord.yaml --> quoted',
        state: 'open',
        pull_request: {},
        comments: [],
      },
      {
        number: 2,
        title: 'old',
        body: '<!-- accord-drift: accord.yaml -->\nold drift',
        state: 'closed',
        comments: [],
      },
    ],
    runs: [],
    artifacts: [],
    merges: new Map(),
    writes: [],
    readOnly: false,
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => {
      raw += d;
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const send = (status: number, data: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(data));
      };
      if (req.headers.authorization !== `Bearer ${token}`) return send(401, { message: 'Bad credentials' });
      const base = `/repos/${repository}`;
      if (!url.pathname.startsWith(base)) return send(404, { message: 'Not Found' });
      const path = url.pathname.slice(base.length);
      const q = url.searchParams;
      const body = raw ? JSON.parse(raw) : {};
      if (req.method !== 'GET') {
        if (state.readOnly) return send(403, { message: 'Resource not accessible by integration' });
        state.writes.push(`${req.method} ${path}`);
      }
      const page = <T>(items: T[]) => {
        const per = Number(q.get('per_page') ?? 30);
        const n = Number(q.get('page') ?? 1);
        return items.slice((n - 1) * per, n * per);
      };
      let m: RegExpExecArray | null = null;
      const at = (re: RegExp) => {
        m = re.exec(path);
        return m;
      };
      if (req.method === 'GET' && path === `/issues/${PR}/comments`) return send(200, page(state.comments));
      if (req.method === 'POST' && path === `/issues/${PR}/comments`) {
        const c = { id: state.comments.length + 1, body: body.body, user: { type: 'Bot' } };
        state.comments.push(c);
        return send(201, c);
      }
      if (req.method === 'PATCH' && at(/^\/issues\/comments\/(\d+)$/)) {
        const c = state.comments.find((x) => x.id === Number(m?.[1]));
        if (!c) return send(404, { message: 'Not Found' });
        c.body = body.body;
        return send(200, c);
      }
      if (req.method === 'GET' && at(/^\/commits\/(\w+)\/pulls$/)) {
        const sha = (m as RegExpExecArray | null)?.[1] ?? '';
        const merged = state.merges.get(sha);
        return send(
          200,
          merged
            ? [
                {
                  number: merged.number,
                  merged_at: '2026-11-24T08:00:00Z',
                  merge_commit_sha: sha,
                  head: { sha: merged.head_sha },
                },
              ]
            : [],
        );
      }
      if (req.method === 'GET' && path === '/actions/runs') {
        const runs = state.runs
          .filter(
            (r) =>
              r.event === q.get('event') &&
              r.head_sha === q.get('head_sha') &&
              (q.get('status') !== 'success' || r.conclusion === 'success'),
          )
          .sort((a, b) => b.id - a.id);
        return send(200, { total_count: runs.length, workflow_runs: runs });
      }
      if (req.method === 'GET' && at(/^\/actions\/runs\/(\d+)\/artifacts$/)) {
        const artifacts = state.artifacts
          .filter((a) => a.run_id === Number(m?.[1]) && (!q.get('name') || a.name === q.get('name')))
          .map((a, i) => ({ id: i + 1, name: a.name, expired: a.expired }));
        return send(200, { total_count: artifacts.length, artifacts });
      }
      if (req.method === 'GET' && path === '/issues') {
        return send(
          200,
          page(state.issues.filter((i) => q.get('state') === 'all' || i.state === q.get('state'))),
        );
      }
      if (req.method === 'POST' && path === '/issues') {
        if (!body.title) return send(422, { message: 'title is missing' });
        const issue = {
          number: state.issues.length + 1,
          title: body.title,
          body: body.body,
          state: 'open',
          comments: [],
        };
        state.issues.push(issue);
        return send(201, issue);
      }
      const issue =
        at(/^\/issues\/(\d+)(\/comments)?$/) && state.issues.find((i) => i.number === Number(m?.[1]));
      if (m && !issue) return send(404, { message: 'Not Found' });
      if (issue && req.method === 'POST' && m?.[2]) {
        issue.comments.push(body.body);
        return send(201, {});
      }
      if (issue && req.method === 'PATCH' && !m?.[2]) {
        if (body.body !== undefined) issue.body = body.body;
        if (body.state !== undefined) issue.state = body.state;
        return send(200, issue);
      }
      send(404, { message: `no route ${req.method} ${path}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    repository,
    state,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
