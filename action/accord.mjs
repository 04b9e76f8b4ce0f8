// The GitHub Action's steps (action.yml at the repository's root runs them with the runner's Node.js; no
// build, no dependency). `node accord.mjs STEP`:
//   resolve    which accordctl version to install, where, and its cache key
//   plan       validate and plan; one comment per files set on the pull request; plan.json kept
//   find-plan  on the default branch: the reviewed plan of the merged pull request, if any
//   apply      apply that plan, or plan and apply afresh when there is none
//   drift      report outside changes; open, update or close one issue per files set
// Inputs come from the environment (INPUT_*, ACCORD_*, the runner's GITHUB_*), never pasted into code.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const env = process.env;
const PACKAGE = 'accordctl';

/** The files input as accord's -f list: paths separated by spaces or lines. Empty: accord.yaml. */
const files = (env.INPUT_FILES ?? '').split(/\s+/).filter(Boolean);
const filesLabel = files.length > 0 ? files.join(' ') : 'accord.yaml';
const filesArgs = files.flatMap((f) => ['-f', f]);
const extraArgs = (env.INPUT_ARGS ?? '').split(/\s+/).filter(Boolean);
/** One id per files set: its comment, its issue, its artifact and its working directory. */
const setId = createHash('sha256').update(filesLabel).digest('hex').slice(0, 12);
const workDir = join(env.RUNNER_TEMP ?? '/tmp', `accord-${setId}`);
const artifactName = `accord-plan-${setId}`;
const planMarker = `<!-- accord-plan: ${filesLabel} -->`;
const driftMarker = `<!-- accord-drift: ${filesLabel} -->`;

const event = env.GITHUB_EVENT_PATH ? JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) : {};
const [owner, repo] = (env.GITHUB_REPOSITORY ?? '/').split('/');
const runUrl = `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`;

function output(name, value) {
  appendFileSync(env.GITHUB_OUTPUT, `${name}=${value}\n`);
}

function summary(markdown) {
  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, `${markdown}\n`);
}

/** Runs accord with the key (if any) in its environment; stdout to `out` when given, else to the log. */
function accord(args, out) {
  console.log(`$ accord ${args.join(' ')}`);
  const run = spawnSync('accord', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (run.error) throw run.error;
  if (out) writeFileSync(out, run.stdout);
  else process.stdout.write(run.stdout);
  process.stderr.write(run.stderr);
  return { code: run.status ?? 1, stderr: run.stderr.trim() };
}

async function github(method, path, body) {
  const url = `${env.GITHUB_API_URL}/repos/${owner}/${repo}${path}`;
  const res = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${env.INPUT_GITHUB_TOKEN}`,
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) {
    const err = new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    err.status = res.status;
    throw err;
  }
  return res.status === 204 ? undefined : res.json();
}

/** Every item of a listing, page by page. */
async function all(path) {
  const items = [];
  for (let page = 1; ; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const batch = await github('GET', `${path}${sep}per_page=100&page=${page}`);
    items.push(...batch);
    if (batch.length < 100) return items;
  }
}

const hasKey = () => Boolean(env.ACCORD_API_KEY);

function resolve() {
  if (!['plan', 'apply', 'drift'].includes(env.INPUT_COMMAND)) {
    console.log(`::error::command "${env.INPUT_COMMAND}" is not one of plan, apply, drift.`);
    process.exit(1);
  }
  const own = JSON.parse(readFileSync(join(env.GITHUB_ACTION_PATH, 'package.json'), 'utf8')).version;
  const version = env.INPUT_VERSION || own;
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) {
    console.log(
      `::error::version "${version}" is not an exact version (like ${own}): accord is installed pinned.`,
    );
    process.exit(1);
  }
  const node = process.versions.node.split('.')[0];
  output('version', version);
  output('dir', join(homedir(), '.cache', PACKAGE, `${version}-node${node}`));
  output('cache-key', `${PACKAGE}-${version}-${process.platform}-${process.arch}-node${node}`);
}

async function plan() {
  mkdirSync(workDir, { recursive: true });
  const pr = event.pull_request;
  const validate = accord(['validate', ...filesArgs]);
  let head;
  let body = '';
  let code = validate.code;
  let fail = validate.code !== 0;
  /** accord plan puts the plan in the job summary itself, when it makes one. */
  let planInSummary = false;
  if (validate.code === 3) {
    head =
      '**The files break their guards** (`accord validate`); nothing was planned. Change the rules, or the guard in its file.';
    body = fence(validate.stderr);
  } else if (validate.code !== 0) {
    head = '**accord validate found problems** in the files; nothing was planned.';
    body = fence(validate.stderr);
  } else if (!hasKey()) {
    const fork = pr && pr.head?.repo?.full_name !== pr.base?.repo?.full_name;
    head = fork
      ? '**accord did not plan this pull request**: it comes from a fork, and GitHub gives pull requests from forks no secrets, so there is no API key. The files are valid (`accord validate` passed). After the merge, the apply job plans afresh and applies; to see the plan first, push the branch to this repository.'
      : '**accord did not plan**: there is no API key. Set the secret the workflow passes as `api-key` (or `ACCORD_API_KEY`); see the CI guide of accord.';
    fail = !fork;
    code = fork ? 0 : 1;
  } else {
    const planned = accord(
      [
        'plan',
        ...filesArgs,
        '--markdown',
        '--out',
        join(workDir, 'plan.json'),
        '--detailed-exitcode',
        ...extraArgs,
      ],
      join(workDir, 'plan.md'),
    );
    code = planned.code;
    planInSummary = code !== 1;
    body = readFileSync(join(workDir, 'plan.md'), 'utf8');
    if (code === 1) {
      head = `**accord plan failed** (exit 1); nothing can be applied from this run.`;
      body = fence(planned.stderr);
      fail = true;
    } else if (code === 3) {
      head = `**accord refused this plan** (exit 3, a safety rule); see below and the [job log](${runUrl}).`;
      fail = true;
    } else {
      head = `accord plan of \`${filesLabel}\` for ${shortSha(pr?.head?.sha ?? env.GITHUB_SHA)} ([run](${runUrl}))`;
      output('artifact', artifactName);
      output('artifact-path', workDir);
    }
  }
  output('exitcode', String(code));
  output('failed', String(fail));
  if (!pr) {
    summary(planInSummary ? head : `${head}\n\n${body}`);
    return;
  }
  const text = `${planMarker}\n${head}\n\n${body}`;
  try {
    const comments = await all(`/issues/${pr.number}/comments`);
    const mine = comments.find((c) => c.user?.type === 'Bot' && c.body?.startsWith(planMarker));
    if (mine) await github('PATCH', `/issues/comments/${mine.id}`, { body: text });
    else await github('POST', `/issues/${pr.number}/comments`, { body: text });
  } catch (err) {
    // A fork's token may not write: say it where the author can read it, the job's summary page.
    if (err.status !== 403 && err.status !== 404) throw err;
    console.log(
      `::warning::accord could not comment on the pull request (${err.status}); the plan is in the job summary.`,
    );
    summary(`${head}\n\n${body}`);
  }
}

/**
 * No reviewed plan for this run: with allow-unreviewed, a fresh plan is applied; without it (the
 * default), nothing is, and the job fails saying why and what to do.
 */
function unreviewed(why) {
  if (env.INPUT_ALLOW_UNREVIEWED === 'true') {
    console.log(`${why}: a fresh plan will be applied (allow-unreviewed: true).`);
    return;
  }
  console.log(
    `::error::${why}, so accord applied nothing: it applies only a plan reviewed on a pull request. To apply what ${event.repository?.default_branch ?? 'the default branch'} holds, open a pull request (an empty commit will do), review its plan and merge it; or set allow-unreviewed: true on this step to plan afresh and apply what nobody reviewed.`,
  );
  process.exit(1);
}

async function findPlan() {
  const branch = event.repository?.default_branch;
  if (env.GITHUB_REF !== `refs/heads/${branch}`) {
    console.log(
      `::error::accord applies on the default branch (${branch}) only; this run is for ${env.GITHUB_REF}.`,
    );
    process.exit(1);
  }
  if (env.GITHUB_EVENT_NAME !== 'push')
    return unreviewed(`A ${env.GITHUB_EVENT_NAME} run has no reviewed plan`);
  const pulls = await github('GET', `/commits/${env.GITHUB_SHA}/pulls`);
  const pr = pulls.find((p) => p.merged_at && p.merge_commit_sha === env.GITHUB_SHA);
  if (!pr) return unreviewed('No pull request was merged as this commit, so no plan was reviewed');
  const query = new URLSearchParams({ event: 'pull_request', head_sha: pr.head.sha, status: 'success' });
  const { workflow_runs: runs } = await github('GET', `/actions/runs?${query}`);
  const run = runs.find((r) => r.name === env.GITHUB_WORKFLOW);
  if (!run) return unreviewed(`No successful plan of #${pr.number} at ${shortSha(pr.head.sha)}`);
  const { artifacts } = await github('GET', `/actions/runs/${run.id}/artifacts?name=${artifactName}`);
  if (!artifacts.some((a) => !a.expired)) {
    return unreviewed(
      `The run that checked #${pr.number} (run ${run.id}) kept no plan (none was made, or it expired)`,
    );
  }
  console.log(`Applying the plan reviewed on #${pr.number} (run ${run.html_url}).`);
  output('run-id', String(run.id));
  output('artifact', artifactName);
  output('artifact-path', workDir);
}

function apply() {
  if (!hasKey()) {
    console.log(
      '::error::No API key: pass the secret as api-key (or set ACCORD_API_KEY). Keep it in the environment whose approval guards apply; see the CI guide of accord.',
    );
    process.exit(1);
  }
  const saved = join(workDir, 'plan.json');
  // The files come from this job, never from the artifact: the plan must have been made from them.
  const args = existsSync(saved) ? ['apply', saved, ...filesArgs] : ['apply', ...filesArgs, '--auto-approve'];
  const { code } = accord([...args, ...extraArgs]);
  output('exitcode', String(code));
  if (code !== 0 && existsSync(saved)) {
    console.log(
      "::error::The reviewed plan was not applied as it was (see the error above). A plan is stale when the account or the files changed after its review: two pull requests merged one after the other make the second one's plan stale, since the first changed the account. Open a pull request (an empty commit will do) so that a fresh plan is reviewed, and merge it; or run this workflow by hand with allow-unreviewed: true.",
    );
  }
  process.exit(code);
}

async function drift() {
  const out = join(workDir, 'drift.md');
  mkdirSync(workDir, { recursive: true });
  const { code } = accord(['drift', ...filesArgs, '--markdown', ...extraArgs], out);
  output('exitcode', String(code));
  if (code !== 0 && code !== 2) process.exit(1);
  const issues = await all('/issues?state=open');
  const open = issues.find((i) => !i.pull_request && i.body?.startsWith(driftMarker));
  if (code === 2) {
    const body = `${driftMarker}\n${readFileSync(out, 'utf8')}\n[Last checked](${runUrl}).`;
    if (open) await github('PATCH', `/issues/${open.number}`, { body });
    else {
      const which = filesLabel === 'accord.yaml' ? '' : ` (${filesLabel})`;
      const title = `accord: the account was changed outside accord${which}`;
      await github('POST', '/issues', { title, body });
    }
  } else if (open) {
    await github('POST', `/issues/${open.number}/comments`, {
      body: `The account holds what accord wrote again ([run](${runUrl})).`,
    });
    await github('PATCH', `/issues/${open.number}`, { state: 'closed' });
  }
}

function fence(text) {
  return `\`\`\`\n${text.replaceAll('```', "'''")}\n\`\`\``;
}

function shortSha(sha) {
  return (sha ?? '').slice(0, 7);
}

const steps = { resolve, plan, 'find-plan': findPlan, apply, drift };
const step = steps[process.argv[2]];
if (!step) {
  console.log(`::error::unknown step "${process.argv[2]}"; one of: ${Object.keys(steps).join(', ')}`);
  process.exit(1);
}
await step();
