#!/usr/bin/env node
// `accord export` of an account with 10,000 unmanaged resources (descriptions colliding in groups of
// ten): the requests made (must equal the lower bound: one page of 100 per kind, at least one per
// kind), wall time and peak RSS of the CLI process; then `accord plan` on the exported file, which must
// show only adopts. Targets: export under 3 s and under 300 MB on a 2-core machine.
// Usage: node bench/export.mjs [--json] [--count N]   (needs `npm run build` first)
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../dist/server/index.js';
import { ed25519Line, fillAccount, listingLowerBound, numberArg, runCliTimed, SEED } from './lib.mjs';

const args = process.argv.slice(2);
const json = args.includes('--json');
const TOTAL = numberArg(args, '--count', 10_000);
const KEY = 'bench-export-key-0123456789abcdef';
const IPR_TYPES = ['dashboard', 'api'];

const certCount = TOTAL - IPR_TYPES.length;
const publicKey = ed25519Line('bench@host');
const server = await startServer({ port: 0, apiKeys: [KEY], seed: SEED });
const dir = mkdtempSync(join(tmpdir(), 'accord-bench-export-'));
try {
  const fillMs = await fillAccount({
    url: server.url,
    apiKey: KEY,
    iprTypes: IPR_TYPES,
    certCount,
    publicKey,
    ipRestriction: () => ({ description: 'office' }),
    certificate: (i) => ({
      description: `Host ${Math.floor(i / 10)}`,
      ...(i % 2 === 0 ? { metadata: JSON.stringify({ rack: i % 40, tags: ['bench'] }) } : {}),
    }),
  });

  const env = { ...process.env, ACCORD_API_KEY: KEY, ACCORD_API_URL: server.url, NO_COLOR: '1' };
  const file = join(dir, 'accord.yaml');
  const exp = await runCliTimed(['export', '--owner', 'bench', '-o', file, '--stats'], env);
  if (exp.status !== 0) throw new Error(`accord export exited ${exp.status}:\n${exp.stderr}`);
  const plan = await runCliTimed(['plan', '-f', file, '--detailed-exitcode'], env);
  if (plan.status !== 2) throw new Error(`accord plan exited ${plan.status}:\n${plan.stderr}`);

  const requests = Number(/API requests: (\d+)/.exec(exp.stderr)?.[1]);
  const apiSeconds = Number(/API requests: \d+ \(\d+ retries\) in ([\d.]+) s/.exec(exp.stderr)?.[1]);
  const rssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(exp.stderr)?.[1]);
  const lowerBound = await listingLowerBound({
    ip_restriction: IPR_TYPES.length,
    ssh_host_certificate: certCount,
    // Export lists every kind, cloud endpoints included.
    cloud_endpoint: 0,
  });
  const summary = plan.stdout.trimEnd().split('\n').at(-1);
  // Every exported object is adopted: the filled ones and the seed's (its policy, rules and authority).
  const adopts = Number(
    /^Plan: 0 to create, 0 to patch, 0 to put, 0 to replace, 0 to delete, (\d+) to adopt\. 0 unchanged, 0 unmanaged/.exec(
      summary,
    )?.[1],
  );
  const onlyAdopts = adopts >= TOTAL;
  const numbers = {
    resources: TOTAL,
    requests,
    lower_bound: lowerBound,
    wall_s: Math.round(exp.wallMs) / 1000,
    api_s: apiSeconds,
    peak_rss_mb: rssKb ? Math.round(rssKb / 1024) : null,
    file_kb: Math.round(statSync(file).size / 1024),
    plan_wall_s: Math.round(plan.wallMs) / 1000,
    plan_only_adopts: onlyAdopts,
    fill_s: Math.round(fillMs) / 1000,
    targets: { wall_s: 3, peak_rss_mb: 300 },
  };
  if (json) process.stdout.write(`${JSON.stringify(numbers)}\n`);
  else {
    console.log(
      `accord export, ${TOTAL} unmanaged resources (${certCount} SSH host certificates, ${IPR_TYPES.length} IP restrictions)`,
    );
    console.log(
      `  requests:  ${requests} (lower bound ${lowerBound})${requests === lowerBound ? '' : '  <-- ABOVE THE LOWER BOUND'}`,
    );
    console.log(
      `  wall time: ${numbers.wall_s} s for the whole CLI process (API part ${apiSeconds} s); target < 3 s`,
    );
    console.log(`  peak RSS:  ${numbers.peak_rss_mb ?? '?'} MB; target < 300 MB`);
    console.log(`  file:      ${numbers.file_kb} KB`);
    console.log(
      `  then accord plan (${numbers.plan_wall_s} s): ${summary}${onlyAdopts ? '' : '  <-- NOT ONLY ADOPTS'}`,
    );
    console.log(`  (filling the account through the API took ${numbers.fill_s} s)`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
}
