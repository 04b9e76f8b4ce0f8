#!/usr/bin/env node
// `accord apply` throughput: 1,000 creates against `accord serve --latency 50` with --parallelism 1, 4
// and 16 (target: 16 at least 8x faster than 1), each against a fresh service. With --rate-limited:
// 300 creates with `--rate-limit 120/60` on both the service and the CLI, which must finish with zero
// failed requests (about 2.5 minutes by design).
// Usage: node bench/apply.mjs [--json] [--rate-limited] [--count N]   (needs `npm run build` first)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const json = args.includes('--json');
const rateLimited = args.includes('--rate-limited');
const countAt = args.indexOf('--count');
const COUNT = countAt >= 0 ? Number(args[countAt + 1]) : rateLimited ? 300 : 1000;
const CLI = fileURLToPath(new URL('../bin/accord.js', import.meta.url));
const SEED = fileURLToPath(new URL('../examples/seed.yaml', import.meta.url));
const KEY = 'bench-apply-key-0123456789abcdef';
const LATENCY_MS = 50;
const RATE = '120/60';
const HOST_KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAqyCaC+1UsnHKNidb2yTijEjBjrvJmsbhSJNJ20klEM bench@host';

/** `accord serve` as its own process; resolves with its URL and a stop function. */
function serve(extra) {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'serve',
      '--port',
      '0',
      '--seed',
      SEED,
      '--api-key',
      KEY,
      '--latency',
      String(LATENCY_MS),
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const url = /listening on (\S+)/.exec(out)?.[1];
      if (url) {
        resolve({
          url,
          stop: () =>
            new Promise((done) => {
              child.on('exit', done);
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.on('exit', (code) => reject(new Error(`accord serve exited ${code}`)));
  });
}

/** Runs `accord apply ... --json` and returns its wall time and parsed result. */
function apply(url, file, extra) {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'apply', '-f', file, '--auto-approve', '--json', ...extra], {
    env: { ...process.env, ACCORD_API_URL: url, ACCORD_API_KEY: KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => {
    out += c;
  });
  child.stderr.on('data', (c) => {
    err += c;
  });
  return new Promise((resolve, reject) =>
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      try {
        resolve({ code, wallMs, result: JSON.parse(out) });
      } catch {
        reject(new Error(`accord apply exited ${code} without a JSON result:\n${err.slice(-2000)}`));
      }
    }),
  );
}

function failedRequests(result) {
  let failed = 0;
  for (const statuses of Object.values(result.requests.by_method)) {
    for (const [status, n] of Object.entries(statuses)) if (!/^2\d\d$/.test(status)) failed += n;
  }
  return failed;
}

const dir = mkdtempSync(join(tmpdir(), 'accord-bench-apply-'));
const file = join(dir, 'accord.yaml');
const lines = ['version: 1', 'owner: bench', 'ssh_host_certificates:'];
for (let i = 0; i < COUNT; i++) {
  lines.push(
    `  host-${i}:`,
    '    ssh_certificate_authority_id: sshca_2demoHostCA0000000000000000',
    `    public_key: ${HOST_KEY}`,
    `    principals: [host-${i}.example.com]`,
  );
}
writeFileSync(file, `${lines.join('\n')}\n`);

const runs = [];
try {
  const settings = rateLimited
    ? [{ parallelism: 4, serve: ['--rate-limit', RATE], cli: ['--rate-limit', RATE] }]
    : [1, 4, 16].map((p) => ({ parallelism: p, serve: [], cli: [] }));
  for (const s of settings) {
    const server = await serve(s.serve);
    try {
      const { code, wallMs, result } = await apply(server.url, file, [
        '--parallelism',
        String(s.parallelism),
        ...s.cli,
      ]);
      runs.push({
        parallelism: s.parallelism,
        rate_limit: s.cli.length > 0 ? RATE : null,
        exit_code: code,
        created: result.summary.created,
        failed_changes: result.summary.failed + result.summary.skipped,
        requests: result.requests.total,
        failed_requests: failedRequests(result),
        retries: result.requests.retries,
        apply_ms: result.duration_ms,
        wall_ms: Math.round(wallMs),
      });
    } finally {
      await server.stop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const base = runs.find((r) => r.parallelism === 1);
for (const r of runs) r.speedup = base ? Number((base.apply_ms / r.apply_ms).toFixed(2)) : null;
const report = {
  bench: 'apply',
  mode: rateLimited ? 'rate-limited' : 'parallelism',
  creates: COUNT,
  latency_ms: LATENCY_MS,
  runs,
  target_met: rateLimited
    ? runs.every((r) => r.exit_code === 0 && r.failed_requests === 0 && r.created === COUNT)
    : (runs.find((r) => r.parallelism === 16)?.speedup ?? 0) >= 8,
};
if (json) {
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} else {
  console.log(
    `accord apply: ${COUNT} creates, service latency ${LATENCY_MS} ms${rateLimited ? `, rate limit ${RATE} on both sides` : ''}`,
  );
  console.log('parallelism  exit  created  requests  failed req  retries  apply s  wall s  speed-up');
  for (const r of runs) {
    console.log(
      `${String(r.parallelism).padStart(11)}  ${String(r.exit_code).padStart(4)}  ${String(r.created).padStart(7)}  ${String(r.requests).padStart(8)}  ${String(r.failed_requests).padStart(10)}  ${String(r.retries).padStart(7)}  ${(r.apply_ms / 1000).toFixed(1).padStart(7)}  ${(r.wall_ms / 1000).toFixed(1).padStart(6)}  ${r.speedup === null ? '-' : `${r.speedup}x`.padStart(8)}`,
    );
  }
  console.log(`target ${report.target_met ? 'met' : 'NOT met'}`);
}
export default report;
