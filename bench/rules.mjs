#!/usr/bin/env node
// IP policy rules at scale. `accord plan` of 10,000 rules in 100 policies that the account already
// holds, one description changed: the requests made must equal the lower bound (one page of 100 per
// kind, at least one per kind: never a GET per object). With --rate-limited (or --all): `accord apply`
// of 500 new rules in one new policy against `accord serve --rate-limit 120/60` with the CLI's pacer
// told nothing (it learns the limit from 429s), which must finish within 1.05 x the rate limit's bound
// with at most 2 x 429 (about 4.5 minutes by design).
// Usage: node bench/rules.mjs [--json] [--rate-limited | --all] [--count N]   (needs `npm run build`)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeMarker } from '../dist/resources/marker.js';
import { startServer } from '../dist/server/index.js';
import { numberArg, runCliTimed, SEED } from './lib.mjs';

const args = process.argv.slice(2);
const json = args.includes('--json');
const rateLimited = args.includes('--rate-limited');
const all = args.includes('--all');
const RULES = numberArg(args, '--count', 10_000);
const POLICIES = 100;
const CREATES = 500;
const KEY = 'bench-rules-key-0123456789abcdef';
const OWNER = 'bench';

/** The i-th distinct /32 of 10.0.0.0/8. */
const cidr = (i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}/32`;

function policyFile(dir, policies, perPolicy, described = () => 'rule') {
  const lines = ['version: 1', `owner: ${OWNER}`, 'ip_policies:'];
  for (let p = 0; p < policies; p++) {
    lines.push(`  p${p}:`, '    rules:');
    for (let r = 0; r < perPolicy; r++) {
      const i = p * perPolicy + r;
      lines.push(`      - allow: ${cidr(i)}`, `        description: ${described(i)}`);
    }
  }
  const file = join(dir, 'accord.yaml');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const requestsOf = (stderr) => Number(/API requests: (\d+)/.exec(stderr)?.[1]);

async function planAtScale(dir) {
  const server = await startServer({ port: 0, apiKeys: [KEY], seed: SEED });
  try {
    const { ApiClient } = await import('../dist/api/client.js');
    const client = new ApiClient({ baseUrl: server.url, apiKey: KEY, parallelism: 32 });
    const perPolicy = RULES / POLICIES;
    const fillStart = performance.now();
    const ids = await Promise.all(
      Array.from({ length: POLICIES }, (_, p) =>
        client.post('/ip_policies', { metadata: encodeMarker(OWNER, `p${p}`, false) }).then((o) => o.id),
      ),
    );
    const jobs = [];
    for (let p = 0; p < POLICIES; p++) {
      for (let r = 0; r < perPolicy; r++) {
        const c = cidr(p * perPolicy + r);
        jobs.push(
          client.post('/ip_policy_rules', {
            ip_policy_id: ids[p],
            action: 'allow',
            cidr: c,
            description: 'rule',
            metadata: encodeMarker(OWNER, `p${p}/${c}`, false),
          }),
        );
      }
    }
    await Promise.all(jobs);
    await client.close();
    const fillMs = performance.now() - fillStart;
    const file = policyFile(dir, POLICIES, perPolicy, (i) => (i === 0 ? 'rule (changed)' : 'rule'));
    const env = { ...process.env, ACCORD_API_KEY: KEY, ACCORD_API_URL: server.url, NO_COLOR: '1' };
    const result = await runCliTimed(['plan', '-f', file, '--stats', '--detailed-exitcode'], env);
    if (result.status !== 2) throw new Error(`accord plan exited ${result.status}:\n${result.stderr}`);
    // Every managed kind is listed: policies (100 + the seed's 2), rules (10,000 + the seed's 3), and
    // one page each of the three other kinds.
    const lowerBound = Math.ceil((POLICIES + 2) / 100) + Math.ceil((RULES + 3) / 100) + 3;
    const timeRssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr)?.[1]);
    return {
      rules: RULES,
      policies: POLICIES,
      requests: requestsOf(result.stderr),
      lower_bound: lowerBound,
      wall_s: Math.round(result.wallMs) / 1000,
      peak_rss_mb: timeRssKb ? Math.round(timeRssKb / 1024) : undefined,
      fill_s: Math.round(fillMs) / 1000,
      summary: result.stdout.trimEnd().split('\n').at(-1),
    };
  } finally {
    await server.close();
  }
}

async function createsUnderRateLimit(dir) {
  const server = await startServer({
    port: 0,
    apiKeys: [KEY],
    seed: SEED,
    rateLimit: { requests: 120, perSeconds: 60 },
  });
  try {
    const file = policyFile(dir, 1, CREATES);
    const env = { ...process.env, ACCORD_API_KEY: KEY, ACCORD_API_URL: server.url, NO_COLOR: '1' };
    const result = await runCliTimed(['apply', '-f', file, '--auto-approve', '--stats'], env);
    if (result.status !== 0) throw new Error(`accord apply exited ${result.status}:\n${result.stderr}`);
    const requests = requestsOf(result.stderr);
    const retries = Number(/API requests: \d+ \((\d+) retries\)/.exec(result.stderr)?.[1]);
    // 120 requests per 60 s: the last window that any request needs starts this long after the first.
    const boundS = Math.floor((requests - 1) / 120) * 60;
    return {
      creates: CREATES + 1,
      requests,
      retries_429: retries,
      wall_s: Math.round(result.wallMs) / 1000,
      bound_s: boundS,
      ratio: Math.round((result.wallMs / 1000 / boundS) * 1000) / 1000,
      targets: { ratio: 1.05, retries_429: 2 },
    };
  } finally {
    await server.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'accord-bench-rules-'));
try {
  const out = {};
  if (!rateLimited) out.plan = await planAtScale(dir);
  if (rateLimited || all) out.rate_limited = await createsUnderRateLimit(dir);
  // A missed target is exit 1 (npm run bench marks the row), as in the other scripts.
  const missed =
    (out.plan && out.plan.requests !== out.plan.lower_bound) ||
    (out.rate_limited &&
      (out.rate_limited.ratio > out.rate_limited.targets.ratio ||
        out.rate_limited.retries_429 > out.rate_limited.targets.retries_429));
  if (missed) process.exitCode = 1;
  if (json) process.stdout.write(`${JSON.stringify(out)}\n`);
  else {
    if (out.plan) {
      const p = out.plan;
      console.log(`accord plan, ${p.rules} rules in ${p.policies} policies, 1 changed`);
      console.log(
        `  requests:  ${p.requests} (lower bound ${p.lower_bound})${p.requests === p.lower_bound ? '' : '  <-- ABOVE THE LOWER BOUND'}`,
      );
      console.log(
        `  wall time: ${p.wall_s} s; peak RSS ${p.peak_rss_mb} MB (filling the account took ${p.fill_s} s)`,
      );
      console.log(`  ${p.summary}`);
    }
    if (out.rate_limited) {
      const r = out.rate_limited;
      console.log(`accord apply, ${r.creates} creates under --rate-limit 120/60 (the CLI not told)`);
      console.log(
        `  ${r.requests} requests, ${r.retries_429} retries, ${r.wall_s} s against a bound of ${r.bound_s} s (x${r.ratio}; target <= 1.05, <= 2 retries)`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
