// A small GitHub Actions runner for the tests: runs a workflow's job and the composite action it uses
// (action.yml) as GitHub does, step by step: `if:` conditions and `${{ }}` expressions evaluated over
// the inputs, steps, github, env, secrets and vars contexts; `run:` steps in bash with GITHUB_OUTPUT,
// GITHUB_PATH, GITHUB_STEP_SUMMARY and the rest of the runner's variables; and the few `uses:` actions
// the action relies on played by stand-ins: setup-node (the running Node.js), cache (a key store),
// upload-artifact and download-artifact (the stand-in GitHub API's artifact store).
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { ROOT } from '../support/server.js';
import type { FakeGitHub } from './github-api.js';
import { sh } from './helpers.js';

export interface Step {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, string | number | boolean>;
}
export interface Job {
  if?: string;
  /** Not run by this runner: the test runs the jobs in the order `needs` gives. */
  needs?: string | string[];
  strategy?: { 'fail-fast'?: boolean; matrix?: { include?: Record<string, string>[] } };
  environment?: string;
  permissions?: Record<string, string>;
  concurrency?: unknown;
  env?: Record<string, string>;
  steps: Step[];
}
export interface Workflow {
  on: Record<string, unknown>;
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}
export interface ActionFile {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs?: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

export function loadYaml<T>(path: string): T {
  const doc = parseDocument(readFileSync(path, 'utf8'), { prettyErrors: true });
  if (doc.errors.length > 0 || doc.warnings.length > 0)
    throw new Error(`${path}: ${[...doc.errors, ...doc.warnings]}`);
  return doc.toJS() as T;
}

/** What one run of a job sees: the event, the repository's secrets and variables, and this machine. */
export interface RunContext {
  event_name: string;
  event: Record<string, unknown>;
  ref: string;
  sha: string;
  run_id: number;
  secrets: Record<string, string>;
  vars: Record<string, string>;
  /** The checkout (the job's working directory). */
  workspace: string;
  /** PATH for run steps: holds the stand-in `npm`. */
  path: string;
  github: FakeGitHub;
  /** actions/cache's store: key -> a copy of the directory saved under it by an earlier run. */
  cache: Map<string, string>;
  /** Where the composite action lives (`uses: owner/repo@ref` resolves to it). */
  actionPath?: string;
  /** The values of one combination of the job's matrix (the `matrix` context). */
  matrix?: Record<string, string>;
}

export interface JobRun {
  outcome: 'success' | 'failure' | 'skipped';
  /** Every step's output, in order. */
  log: string;
  /** The `uses:` actions run, with their evaluated inputs. */
  used: { uses: string; with: Record<string, string> }[];
  summary: string;
  /** The outputs of the last run of this repository's action, as its action.yml computes them. */
  outputs: Record<string, string>;
}

type Contexts = Record<string, unknown>;

/** Runs `job` of `workflow`: its `if:`, then each step; the action named by `uses:` runs from action.yml. */
export async function runJob(workflow: Workflow, jobName: string, ctx: RunContext): Promise<JobRun> {
  const job = workflow.jobs[jobName];
  if (!job) throw new Error(`no job ${jobName}`);
  const temp = mkdtempSync(join(tmpdir(), 'accord-runner-'));
  const summaryFile = join(temp, 'summary.md');
  writeFileSync(summaryFile, '');
  const github = {
    event_name: ctx.event_name,
    event: ctx.event,
    ref: ctx.ref,
    sha: ctx.sha,
    run_id: String(ctx.run_id),
    repository: ctx.github.repository,
    server_url: 'https://github.com',
    workflow: 'accord',
    token: ctx.github.token,
    action_path: ctx.actionPath ?? ROOT,
  };
  const base: Contexts = { github, secrets: ctx.secrets, vars: ctx.vars, env: {}, matrix: ctx.matrix ?? {} };
  const run: JobRun = { outcome: 'success', log: '', used: [], summary: '', outputs: {} };
  if (job.if !== undefined && !truthy(evaluate(job.if, base))) return { ...run, outcome: 'skipped' };
  const jobEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...workflow.env, ...job.env }))
    jobEnv[k] = interpolate(String(v), base);
  const eventFile = join(temp, 'event.json');
  writeFileSync(eventFile, JSON.stringify(ctx.event));
  const machine = {
    temp,
    summaryFile,
    paths: [] as string[],
    runnerEnv: {
      HOME: temp,
      RUNNER_TEMP: temp,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: ctx.event_name,
      GITHUB_EVENT_PATH: eventFile,
      GITHUB_REF: ctx.ref,
      GITHUB_SHA: ctx.sha,
      GITHUB_RUN_ID: String(ctx.run_id),
      GITHUB_REPOSITORY: ctx.github.repository,
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_API_URL: ctx.github.url,
      GITHUB_WORKFLOW: 'accord',
      GITHUB_WORKSPACE: ctx.workspace,
      GITHUB_STEP_SUMMARY: summaryFile,
    },
    jobEnv,
  };
  for (const step of job.steps) {
    const uses = step.uses ?? '';
    if (uses.startsWith('actions/checkout@')) continue; // the workspace is the checkout
    if (!uses)
      throw new Error(`the workflow's job ${jobName} has a step of its own; only uses: steps are expected`);
    const inputs: Record<string, string> = {};
    for (const [k, v] of Object.entries(step.with ?? {}))
      inputs[k] = interpolate(String(v), { ...base, env: jobEnv });
    run.used.push({ uses, with: inputs });
    const ok = await runComposite(inputs, { ...base, env: jobEnv }, ctx, machine, run);
    if (!ok) {
      run.outcome = 'failure';
      break;
    }
  }
  run.summary = readFileSync(summaryFile, 'utf8');
  if (ctx.event_name === 'pull_request') {
    const pr = ctx.event['pull_request'] as { head: { sha: string } };
    ctx.github.state.runs.push({
      id: ctx.run_id,
      name: 'accord',
      event: 'pull_request',
      head_sha: pr.head.sha,
      conclusion: run.outcome,
      html_url: `https://github.com/${ctx.github.repository}/actions/runs/${ctx.run_id}`,
    });
  }
  return run;
}

interface Machine {
  temp: string;
  summaryFile: string;
  /** Directories added through GITHUB_PATH, latest first. */
  paths: string[];
  runnerEnv: Record<string, string>;
  jobEnv: Record<string, string>;
}

async function runComposite(
  given: Record<string, string>,
  outer: Contexts,
  ctx: RunContext,
  machine: Machine,
  run: JobRun,
): Promise<boolean> {
  const actionPath = ctx.actionPath ?? ROOT;
  const action = loadYaml<ActionFile>(join(actionPath, 'action.yml'));
  if (action.runs.using !== 'composite') throw new Error('action.yml is not a composite action');
  const inputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs)) {
    if (given[name] !== undefined) inputs[name] = given[name];
    else if (spec.required) throw new Error(`input ${name} is required`);
    else inputs[name] = interpolate(String(spec.default ?? ''), outer);
  }
  for (const name of Object.keys(given))
    if (!(name in action.inputs)) throw new Error(`the action has no input ${name}`);
  const steps: Record<string, { outputs: Record<string, string> }> = {};
  let failed = false;
  for (const step of action.runs.steps) {
    const contexts: Contexts = { ...outer, inputs, steps };
    if (failed) break;
    if (step.if !== undefined && !truthy(evaluate(step.if, contexts))) continue;
    const outputs: Record<string, string> = {};
    if (step.run !== undefined) {
      if (step.shell !== 'bash') throw new Error('a composite run step needs shell: bash');
      const outputFile = join(machine.temp, 'output');
      const pathFile = join(machine.temp, 'path');
      writeFileSync(outputFile, '');
      writeFileSync(pathFile, '');
      const env: Record<string, string> = {
        ...machine.jobEnv,
        ...machine.runnerEnv,
        PATH: [...machine.paths, ctx.path].join(':'),
        GITHUB_ACTION_PATH: actionPath,
        GITHUB_OUTPUT: outputFile,
        GITHUB_PATH: pathFile,
      };
      for (const [k, v] of Object.entries(step.env ?? {})) env[k] = interpolate(String(v), contexts);
      const r = await sh(step.run, ctx.workspace, env);
      run.log += r.stdout + r.stderr;
      for (const line of readFileSync(outputFile, 'utf8').split('\n').filter(Boolean)) {
        const at = line.indexOf('=');
        outputs[line.slice(0, at)] = line.slice(at + 1);
      }
      machine.paths.unshift(...readFileSync(pathFile, 'utf8').split('\n').filter(Boolean).reverse());
      if (r.code !== 0) failed = true;
    } else {
      const w: Record<string, string> = {};
      for (const [k, v] of Object.entries(step.with ?? {})) w[k] = interpolate(String(v), contexts);
      Object.assign(outputs, standIn(step.uses ?? '', w, ctx));
    }
    if (step.id) steps[step.id] = { outputs };
  }
  for (const [name, spec] of Object.entries(action.outputs ?? {})) {
    run.outputs[name] = interpolate(spec.value, { ...outer, inputs, steps });
  }
  // actions/cache saves its key at the end of a successful job.
  const cacheStep = action.runs.steps.find((s) => s.uses?.startsWith('actions/cache@'));
  if (!failed && cacheStep) {
    const w = { ...outer, inputs, steps };
    const key = interpolate(String(cacheStep.with?.['key']), w);
    const path = interpolate(String(cacheStep.with?.['path']), w);
    if (key && !ctx.cache.has(key) && existsSync(path)) {
      const saved = mkdtempSync(join(tmpdir(), 'accord-cache-'));
      cpSync(path, saved, { recursive: true });
      ctx.cache.set(key, saved);
    }
  }
  return !failed;
}

/** The actions action.yml uses, played here. */
function standIn(uses: string, w: Record<string, string>, ctx: RunContext): Record<string, string> {
  const name = uses.split('@')[0];
  switch (name) {
    case 'actions/setup-node':
      return {};
    case 'actions/cache': {
      const saved = ctx.cache.get(w['key'] ?? '');
      if (saved) cpSync(saved, w['path'] ?? '', { recursive: true });
      return { 'cache-hit': String(saved !== undefined) };
    }
    case 'actions/upload-artifact': {
      const dir = w['path'] ?? '';
      const files: Record<string, string> = {};
      for (const f of readdirSync(dir)) files[f] = readFileSync(join(dir, f), 'utf8');
      ctx.github.state.artifacts.push({ run_id: ctx.run_id, name: w['name'] ?? '', files, expired: false });
      return {};
    }
    case 'actions/download-artifact': {
      if (w['github-token'] !== ctx.github.token) throw new Error('download-artifact got no token');
      const found = ctx.github.state.artifacts.find(
        (a) => a.run_id === Number(w['run-id']) && a.name === w['name'] && !a.expired,
      );
      if (!found) throw new Error(`no artifact ${w['name']} in run ${w['run-id']}`);
      const dir = w['path'] ?? '';
      mkdirSync(dir, { recursive: true });
      for (const [f, content] of Object.entries(found.files)) writeFileSync(join(dir, f), content);
      return {};
    }
    default:
      throw new Error(`the runner has no stand-in for ${uses}`);
  }
}

/** `text` with each `${{ expr }}` replaced by its value. */
export function interpolate(text: string, contexts: Contexts): string {
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_m, expr: string) => str(evaluate(expr, contexts)));
}

function str(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function truthy(v: unknown): boolean {
  return v !== undefined && v !== null && v !== false && v !== '' && v !== 0;
}

/**
 * GitHub's expression language, the part workflows like ours use: literals, context paths (names may
 * hold `-`), an index into one (`secrets[matrix.key]`), `!`, `==`/`!=` (strings compared
 * case-insensitively), `&&`/`||` (returning an operand), parentheses. A bare `if:` may leave out `${{ }}`.
 */
export function evaluate(source: string, contexts: Contexts): unknown {
  const text = source.trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1');
  const tokens = text.match(/'(?:[^']|'')*'|&&|\|\||==|!=|!|\(|\)|\[|\]|[A-Za-z_][\w.-]*|\d+/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const next = () => tokens[at++];
  const or = (): unknown => {
    let left = and();
    while (peek() === '||') {
      next();
      const right = and();
      left = truthy(left) ? left : right;
    }
    return left;
  };
  const and = (): unknown => {
    let left = eq();
    while (peek() === '&&') {
      next();
      const right = eq();
      left = truthy(left) ? right : left;
    }
    return left;
  };
  const eq = (): unknown => {
    const left = unary();
    const op = peek();
    if (op !== '==' && op !== '!=') return left;
    next();
    const right = unary();
    const same = str(left).toLowerCase() === str(right).toLowerCase();
    return op === '==' ? same : !same;
  };
  const unary = (): unknown => {
    if (peek() === '!') {
      next();
      return !truthy(unary());
    }
    return primary();
  };
  const primary = (): unknown => {
    const t = next();
    if (t === undefined) throw new Error(`expression ends early: ${source}`);
    if (t === '(') {
      const v = or();
      if (next() !== ')') throw new Error(`missing ) in ${source}`);
      return v;
    }
    if (t.startsWith("'")) return t.slice(1, -1).replaceAll("''", "'");
    if (/^\d+$/.test(t)) return Number(t);
    if (t === 'true' || t === 'false') return t === 'true';
    let v: unknown = contexts;
    for (const part of t.split('.')) {
      if (v === undefined || v === null) break;
      v = (v as Record<string, unknown>)[part];
    }
    while (peek() === '[') {
      next();
      const index = str(or());
      if (next() !== ']') throw new Error(`missing ] in ${source}`);
      v = v === undefined || v === null ? undefined : (v as Record<string, unknown>)[index];
    }
    return v;
  };
  const value = or();
  if (at !== tokens.length) throw new Error(`cannot read ${source}`);
  return value;
}

/** A copy of the workspace for one job, so that runs do not see each other's files. */
export function cloneWorkspace(from: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'accord-checkout-'));
  cpSync(from, dir, { recursive: true });
  return dir;
}
