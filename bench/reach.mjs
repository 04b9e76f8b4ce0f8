#!/usr/bin/env node
// Who can reach what, at scale: 10,000 rules in 100 policies (IPv4 and IPv6 CIDRs of many lengths,
// nested and overlapping, a tenth of them deny rules), named by the four traffic types' restrictions
// and by 100 TCP edges' modules. Two numbers: the CPU time of the reach of every scope before and after
// a plan of one new rule, with the lockout guard and the check for rules that do nothing (target under
// 100 ms for the median of the runs and for the first of them, which comes right after the plan's own
// reach in this process, on the account typed afresh: V8 is still compiling reach's code then, and
// its compiler threads' CPU counts); and the requests `accord plan` of it makes (must equal the lower
// bound: one page of 100 per kind, at least one per kind, plus one GET per named edge module, plus the
// pages of TCP edges and endpoints a rule change asks for).
// Usage: node bench/reach.mjs [--json] [--runs N]   (needs `npm run build` first)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountOf } from '../dist/account/model.js';
import { readLiveState } from '../dist/account/read.js';
import { ApiClient } from '../dist/api/client.js';
import { loadDesiredState } from '../dist/config/index.js';
import { formatCidr } from '../dist/net/cidr.js';
import { plan } from '../dist/plan/planner.js';
import { encodeMarker } from '../dist/resources/marker.js';
import { startServer } from '../dist/server/index.js';
import { judgeReach } from '../dist/traffic/lockout.js';
import { numberArg, runCliTimed } from './lib.mjs';

const args = process.argv.slice(2);
const json = args.includes('--json');
const RUNS = numberArg(args, '--runs', 7);
const POLICIES = 100;
const PER_POLICY = 100;
const EDGES = 100;
const TYPES = ['dashboard', 'api', 'agent', 'endpoints'];
const KEY = 'bench-reach-key-0123456789abcdef';
const OWNER = 'bench';
const TARGET_MS = 100;

/** A fixed pseudo-random sequence (a linear congruential generator), so every run plans the same. */
function random(seed) {
  let x = BigInt(seed);
  return (bits) => {
    x = (x * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
    return bits <= 64 ? x >> BigInt(64 - bits) : (x << BigInt(bits - 64)) ^ x;
  };
}

/** Policy p's rules: IPv4 /16 to /32 inside 10.0.0.0/8 (so they nest and overlap), a fifth IPv6. */
function rulesOf(p) {
  const next = random(p + 1);
  const seen = new Set();
  const rules = [];
  while (rules.length < PER_POLICY) {
    const v6 = next(8) < 51n;
    const bits = v6 ? 128 : 32;
    const prefix = v6 ? 40 + Number(next(5)) : 16 + (Number(next(5)) % 17);
    const base = v6 ? (0x20010db8n << 96n) | (next(32) << 64n) : (10n << 24n) | next(24);
    const host = (1n << BigInt(bits - prefix)) - 1n;
    const cidr = formatCidr({ version: v6 ? 6 : 4, address: base & ~host, prefix });
    if (seen.has(cidr)) continue;
    seen.add(cidr);
    rules.push({ action: next(8) < 26n ? 'deny' : 'allow', cidr });
  }
  return rules;
}

const edgeId = (e) => `edgtcp_bench${String(e).padStart(22, '0')}`;
/** Which policies each scope names: each type 25 of them, each edge 3. */
const typePolicies = (t) => Array.from({ length: 25 }, (_, i) => `p${t * 25 + i}`);
const edgePolicies = (e) => [`p${e}`, `p${(e + 37) % POLICIES}`, `p${(e + 71) % POLICIES}`];

function desiredFile(dir, policies) {
  const lines = ['version: 1', `owner: ${OWNER}`, 'ip_policies:'];
  for (const [p, rules] of policies.entries()) {
    lines.push(`  p${p}:`, '    rules:');
    for (const r of rules) lines.push(`      - ${r.action}: ${r.cidr}`);
  }
  // The plan's one change: a new allow rule in the last policy (endpoints and three edges use it).
  lines.push('      - allow: 192.0.2.0/24');
  lines.push('ip_restrictions:');
  for (const [t, type] of TYPES.entries()) {
    lines.push(
      `  ${type}:`,
      `    type: ${type}`,
      '    enforced: true',
      `    ip_policies: [${typePolicies(t).join(', ')}]`,
    );
  }
  lines.push('tcp_edges:');
  for (let e = 0; e < EDGES; e++) {
    lines.push(
      `  ${edgeId(e)}:`,
      '    ip_restriction:',
      `      ip_policies: [${edgePolicies(e).join(', ')}]`,
    );
  }
  const file = join(dir, 'accord.yaml');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function fill(url, policies) {
  const client = new ApiClient({ baseUrl: url, apiKey: KEY, parallelism: 32 });
  try {
    const ids = await Promise.all(
      policies.map((_, p) =>
        client.post('/ip_policies', { metadata: encodeMarker(OWNER, `p${p}`, false) }).then((o) => o.id),
      ),
    );
    const jobs = policies.flatMap((rules, p) =>
      rules.map((r) =>
        client.post('/ip_policy_rules', {
          ip_policy_id: ids[p],
          action: r.action,
          cidr: r.cidr,
          metadata: encodeMarker(OWNER, `p${p}/${r.cidr}`, false),
        }),
      ),
    );
    const idsOf = (names) => names.map((n) => ids[Number(n.slice(1))]);
    for (const [t, type] of TYPES.entries()) {
      jobs.push(
        client.post('/ip_restrictions', {
          type,
          enforced: true,
          ip_policy_ids: idsOf(typePolicies(t)),
          metadata: encodeMarker(OWNER, type, false),
        }),
      );
    }
    for (let e = 0; e < EDGES; e++) {
      jobs.push(
        client.put(`/edges/tcp/${edgeId(e)}/ip_restriction`, {
          enabled: true,
          ip_policy_ids: idsOf(edgePolicies(e)),
        }),
      );
    }
    await Promise.all(jobs);
  } finally {
    await client.close();
  }
}

/** CPU milliseconds of `judgeReach` on the plan over `RUNS` runs: the median, the fewest, the first. */
async function reachCpu(url, file) {
  const desired = await loadDesiredState(file);
  const client = new ApiClient({ baseUrl: url, apiKey: KEY, parallelism: 8 });
  const live = await readLiveState(client, desired).finally(() => client.close());
  const p = plan(desired, live, new Date(), { apiUrl: url, toolVersion: 'bench', force: true });
  // The account as the planner types it, once per plan; reach is what is timed.
  const account = accountOf(live);
  const times = [];
  let result;
  for (let i = 0; i < RUNS; i++) {
    const start = process.cpuUsage();
    result = judgeReach(p.changes, account);
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1000);
  }
  const first = times[0];
  times.sort((a, b) => a - b);
  return {
    first_ms: Math.round(first * 10) / 10,
    min_ms: Math.round(times[0] * 10) / 10,
    median_ms: Math.round(times[Math.floor(times.length / 2)] * 10) / 10,
    scopes: result.reach.length + result.unchanged.length,
    changed: result.reach.map((r) => r.scope),
    refusals: result.refusals.length,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'accord-bench-reach-'));
const seed = join(dir, 'seed.yaml');
const seedLines = ['tcp_edges:'];
for (let e = 0; e < EDGES; e++)
  seedLines.push(`  - id: ${edgeId(e)}`, `    hostports: [db${e}.example.com:5432]`);
writeFileSync(seed, `${seedLines.join('\n')}\n`);
const server = await startServer({ port: 0, apiKeys: [KEY], seed });
try {
  const policies = Array.from({ length: POLICIES }, (_, p) => rulesOf(p));
  const fillStart = performance.now();
  await fill(server.url, policies);
  const fillS = Math.round(performance.now() - fillStart) / 1000;
  const file = desiredFile(dir, policies);
  const env = { ...process.env, ACCORD_API_KEY: KEY, ACCORD_API_URL: server.url, NO_COLOR: '1' };
  const result = await runCliTimed(['plan', '-f', file, '--stats', '--detailed-exitcode'], env);
  if (result.status !== 2) throw new Error(`accord plan exited ${result.status}:\n${result.stderr}`);
  const requests = Number(/API requests: (\d+)/.exec(result.stderr)?.[1]);
  // Policies, rules and restrictions, one page each of the two other kinds, and a GET per module;
  // and, as the plan changes the rules of a policy the account has, one page each of the TCP edges
  // and the endpoints (fewer than 100 of each), either of which may name that policy.
  const lowerBound =
    Math.ceil(POLICIES / 100) +
    Math.ceil((POLICIES * PER_POLICY) / 100) +
    Math.ceil(TYPES.length / 100) +
    2 +
    EDGES +
    2;
  const cpu = await reachCpu(server.url, file);
  const out = {
    rules: POLICIES * PER_POLICY,
    policies: POLICIES,
    edges: EDGES,
    scopes: cpu.scopes,
    changed_scopes: cpu.changed.length,
    reach_cpu_ms: cpu.median_ms,
    reach_cpu_min_ms: cpu.min_ms,
    reach_cpu_first_ms: cpu.first_ms,
    runs: RUNS,
    target_ms: TARGET_MS,
    requests,
    lower_bound: lowerBound,
    plan_wall_s: Math.round(result.wallMs) / 1000,
    fill_s: fillS,
    summary: result.stdout.trimEnd().split('\n').at(-1),
  };
  const slow = out.reach_cpu_ms >= TARGET_MS || out.reach_cpu_first_ms >= TARGET_MS;
  if (slow || requests !== lowerBound) process.exitCode = 1;
  if (json) process.stdout.write(`${JSON.stringify(out)}\n`);
  else {
    console.log(
      `reach of ${out.rules} rules in ${out.policies} policies over ${TYPES.length} types and ${EDGES} TCP edges (${out.scopes} scopes, ${out.changed_scopes} changed by the plan)`,
    );
    console.log(
      `  CPU: median ${out.reach_cpu_ms} ms of ${RUNS} runs (fewest ${out.reach_cpu_min_ms} ms; the first, right after the plan's own reach, ${out.reach_cpu_first_ms} ms); target < ${TARGET_MS} ms`,
    );
    console.log(`  accord plan: ${requests} requests (lower bound ${lowerBound}) in ${out.plan_wall_s} s`);
    console.log(`  ${out.summary}`);
  }
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
