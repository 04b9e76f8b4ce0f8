#!/usr/bin/env node
// `accord plan` on an account with 10,000 managed resources, one of them changed: the requests made
// (must equal the lower bound: one page of 100 per managed kind, at least one per kind, plus module GETs), wall
// time and peak RSS of the CLI process. Targets: under 1 s and under 150 MB on a 2-core machine.
// Usage: node bench/plan.mjs [--json] [--count N]   (needs `npm run build` first)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeMarker } from '../dist/resources/marker.js';
import { startServer } from '../dist/server/index.js';
import {
  ed25519Line,
  fillAccount,
  listingLowerBound,
  numberArg,
  runCliTimed,
  SEED,
  SEED_POLICY,
  SEED_SSH_CA,
} from './lib.mjs';

const args = process.argv.slice(2);
const json = args.includes('--json');
const TOTAL = numberArg(args, '--count', 10_000);
const KEY = 'bench-plan-key-0123456789abcdef';
const OWNER = 'bench';
const IPR_TYPES = ['dashboard', 'api'];

const certCount = TOTAL - IPR_TYPES.length;
const publicKey = ed25519Line('bench@host');
const server = await startServer({ port: 0, apiKeys: [KEY], seed: SEED });
const dir = mkdtempSync(join(tmpdir(), 'accord-bench-plan-'));
try {
  // Fill the account through the API, many requests in flight.
  const fillMs = await fillAccount({
    url: server.url,
    apiKey: KEY,
    iprTypes: IPR_TYPES,
    certCount,
    publicKey,
    ipRestriction: (i) => ({ metadata: encodeMarker(OWNER, `ipr-${i}`, false) }),
    certificate: (i) => ({ description: `host ${i}`, metadata: encodeMarker(OWNER, `host-${i}`, false) }),
  });

  // The file: the same resources, host-0's description changed (one patch).
  const lines = ['version: 1', `owner: ${OWNER}`, 'ip_restrictions:'];
  for (const [i, type] of IPR_TYPES.entries()) {
    lines.push(`  ipr-${i}:`, `    type: ${type}`, '    enforced: true', `    ip_policies: [${SEED_POLICY}]`);
  }
  lines.push('ssh_host_certificates:');
  for (let i = 0; i < certCount; i++) {
    lines.push(
      `  host-${i}:`,
      `    ssh_certificate_authority_id: ${SEED_SSH_CA}`,
      `    public_key: ${publicKey}`,
      `    principals: [host-${i}.example.com]`,
      `    description: ${i === 0 ? 'host 0 (changed)' : `host ${i}`}`,
    );
  }
  const file = join(dir, 'accord.yaml');
  writeFileSync(file, `${lines.join('\n')}\n`);

  const env = { ...process.env, ACCORD_API_KEY: KEY, ACCORD_API_URL: server.url, NO_COLOR: '1' };
  // The CLI process must not be slowed by this process's server: run it asynchronously.
  const result = await runCliTimed(['plan', '-f', file, '--stats', '--detailed-exitcode'], env);
  const { wallMs } = result;
  if (result.status !== 2) throw new Error(`accord plan exited ${result.status}:\n${result.stderr}`);

  const requests = Number(/API requests: (\d+)/.exec(result.stderr)?.[1]);
  const apiSeconds = Number(/API requests: \d+ \(\d+ retries\) in ([\d.]+) s/.exec(result.stderr)?.[1]);
  const cliRssMb = Number(/Peak RSS: (\d+) MB/.exec(result.stderr)?.[1]);
  const phaseMatch = (name) => new RegExp(`${name} ([\\d.]+) s \\(cpu ([\\d.]+) s\\)`).exec(result.stderr);
  const phase = (name) => Number(phaseMatch(name)?.[1]);
  const phaseCpu = (name) => Number(phaseMatch(name)?.[2]);
  const cpuOf = (label) =>
    Number(new RegExp(`${label} time \\(seconds\\): ([\\d.]+)`).exec(result.stderr)?.[1] ?? Number.NaN);
  const cpuS = Math.round((cpuOf('User') + cpuOf('System')) * 100) / 100;
  const timeRssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr)?.[1]);
  const lowerBound = await listingLowerBound({
    ip_restriction: IPR_TYPES.length,
    ssh_host_certificate: certCount,
  });
  const summary = result.stdout.trimEnd().split('\n').at(-1);
  const numbers = {
    managed: TOTAL,
    requests,
    lower_bound: lowerBound,
    wall_s: Math.round(wallMs) / 1000,
    api_s: apiSeconds,
    cpu_s: cpuS,
    peak_rss_mb: timeRssKb ? Math.round(timeRssKb / 1024) : cliRssMb,
    phases_s: {
      load_file: phase('file'),
      read_live: phase('live'),
      plan: phase('plan'),
      close_client: phase('close'),
      render: phase('render'),
    },
    phases_cpu_s: {
      load_file: phaseCpu('file'),
      read_live: phaseCpu('live'),
      plan: phaseCpu('plan'),
      render: phaseCpu('render'),
    },
    fill_s: Math.round(fillMs) / 1000,
    summary,
    targets: { wall_s: 1, peak_rss_mb: 150 },
  };
  if (json) process.stdout.write(`${JSON.stringify(numbers)}\n`);
  else {
    console.log(
      `accord plan, ${TOTAL} managed resources (${certCount} SSH host certificates, ${IPR_TYPES.length} IP restrictions), 1 changed`,
    );
    console.log(
      `  requests:  ${requests} (lower bound ${lowerBound})${requests === lowerBound ? '' : '  <-- ABOVE THE LOWER BOUND'}`,
    );
    console.log(
      `  wall time: ${numbers.wall_s} s for the whole CLI process (API part ${apiSeconds} s, CPU ${cpuS} s); target < ${numbers.targets.wall_s} s`,
    );
    const p = numbers.phases_s;
    console.log(
      `  phases:    load file ${p.load_file} s, read live ${p.read_live} s, plan ${p.plan} s, close client ${p.close_client} s, render ${p.render} s`,
    );
    const c = numbers.phases_cpu_s;
    console.log(
      `  CPU:       load file ${c.load_file} s, read live ${c.read_live} s, plan ${c.plan} s, render ${c.render} s`,
    );
    console.log(`  peak RSS:  ${numbers.peak_rss_mb} MB; target < ${numbers.targets.peak_rss_mb} MB`);
    console.log(`  ${summary}`);
    console.log(`  (filling the account through the API took ${numbers.fill_s} s)`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
}
