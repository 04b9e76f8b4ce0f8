#!/usr/bin/env node
// Who can reach which endpoint, at scale: 10,000 rules in 100 policies (IPv4 and IPv6 CIDRs of many
// lengths, nested and overlapping, a tenth of them deny rules) and 100 endpoints, each with a traffic
// policy whose restrict-ips actions name 1 to 3 of the policies and list CIDRs of their own (a third
// of them in a rule with expressions, so that their reach is a pair of bounds), with the account-wide
// `endpoints` restriction. One number: the CPU time of the plan's reach (every scope before and after
// a plan of one deleted rule, the lockout guard and the rules that do nothing), target under 150 ms for
// the median of the runs and for the first. Builds the account in memory: no service, no requests.
// Usage: node bench/endpoint-reach.mjs [--json] [--runs N]   (needs `npm run build` first)
import { formatCidr } from '../dist/net/cidr.js';
import { descriptorFor } from '../dist/resources/index.js';
import { judgeReach } from '../dist/traffic/lockout.js';
import { numberArg } from './lib.mjs';

const args = process.argv.slice(2);
const json = args.includes('--json');
const RUNS = numberArg(args, '--runs', 7);
const POLICIES = 100;
const PER_POLICY = 100;
const ENDPOINTS = 100;
const TARGET_MS = 150;

/** A fixed pseudo-random sequence (a linear congruential generator), so every run measures the same. */
function random(seed) {
  let x = BigInt(seed);
  return (bits) => {
    x = (x * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
    return x >> BigInt(64 - bits);
  };
}

function cidrOf(next) {
  const v6 = next(8) < 51n;
  const bits = v6 ? 128 : 32;
  const prefix = v6 ? 40 + Number(next(5)) : 16 + (Number(next(5)) % 17);
  const base = v6 ? (0x20010db8n << 96n) | (next(32) << 64n) : (10n << 24n) | next(24);
  const host = (1n << BigInt(bits - prefix)) - 1n;
  return formatCidr({ version: v6 ? 6 : 4, address: base & ~host, prefix });
}

const policyId = (p) => `ipp_bench${String(p).padStart(20, '0')}`;
const ruleDescriptor = descriptorFor('ip_policy_rule');
const restrictionDescriptor = descriptorFor('ip_restriction');

function accountOf() {
  const rules = [];
  for (let p = 0; p < POLICIES; p++) {
    const next = random(p + 1);
    const seen = new Set();
    while (seen.size < PER_POLICY) {
      const cidr = cidrOf(next);
      if (seen.has(cidr)) continue;
      seen.add(cidr);
      const values = { ip_policy: policyId(p), action: next(8) < 26n ? 'deny' : 'allow', cidr };
      rules.push({ id: `ipr_${p}_${seen.size}`, values, descriptor: ruleDescriptor });
    }
  }
  const next = random(7);
  const endpoints = [];
  for (let e = 0; e < ENDPOINTS; e++) {
    const named = 1 + Number(next(8) % 3n);
    const policies = Array.from({ length: named }, () => policyId(Number(next(16) % BigInt(POLICIES))));
    const config = { allow: [cidrOf(next), cidrOf(next)], deny: [cidrOf(next)], ip_policies: policies };
    const action = { type: 'restrict-ips', config };
    const rule =
      e % 3 === 0
        ? { expressions: ["req.url.path.startsWith('/admin')"], actions: [action] }
        : { actions: [action] };
    endpoints.push({
      id: `ep_${e}`,
      type: 'cloud',
      url: `https://e${e}.example.com`,
      document: { on_http_request: [rule] },
    });
  }
  const restriction = {
    id: 'ipx_endpoints',
    values: { type: 'endpoints', enforced: true, ip_policies: [policyId(0), policyId(1)] },
    descriptor: restrictionDescriptor,
  };
  return { managed: { ip_policy_rule: rules, ip_restriction: [restriction] }, modules: {}, endpoints };
}

const account = accountOf();
// An allow rule of a policy the account-wide restriction names, deleted: every endpoint's reach may change.
const gone = account.managed.ip_policy_rule.find(
  (r) => r.values.ip_policy === policyId(0) && r.values.action === 'allow',
);
const changes = [
  {
    address: 'ip_policies.p0.rules',
    kind: 'ip_policy_rule',
    key: 'p0/x',
    id: gone.id,
    action: 'delete',
    reasons: [],
    reason_codes: [],
    before: gone.values,
    after: null,
    changed_fields: [],
    drift: {},
    depends_on: [],
    requests: [],
  },
];

const times = [];
let result;
for (let i = 0; i < RUNS; i++) {
  const start = process.cpuUsage();
  result = judgeReach(changes, account);
  const used = process.cpuUsage(start);
  times.push((used.user + used.system) / 1000);
}
const first = times[0];
times.sort((a, b) => a - b);
const round = (ms) => Math.round(ms * 10) / 10;
const out = {
  rules: POLICIES * PER_POLICY,
  policies: POLICIES,
  endpoints: ENDPOINTS,
  runs: RUNS,
  reach_cpu_ms: round(times[Math.floor(times.length / 2)]),
  reach_cpu_min_ms: round(times[0]),
  reach_cpu_first_ms: round(first),
  scopes: result.reach.length + result.unchanged.length,
  changed_scopes: result.reach.length,
  bounded_scopes: result.reach.filter((r) => r.at_most !== undefined).length,
  target_ms: TARGET_MS,
};
if (json) console.log(JSON.stringify(out));
else {
  console.log(`endpoint reach of ${out.rules} rules, ${out.policies} policies, ${out.endpoints} endpoints:`);
  console.log(
    `  CPU: median ${out.reach_cpu_ms} ms of ${RUNS} runs (fewest ${out.reach_cpu_min_ms} ms; first ${out.reach_cpu_first_ms} ms); target < ${TARGET_MS} ms`,
  );
  console.log(`  ${out.scopes} scopes, ${out.changed_scopes} changed (${out.bounded_scopes} of them bounds)`);
}
