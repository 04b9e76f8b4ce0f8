#!/usr/bin/env node
// `accord apply` throughput: 1,000 creates against `accord serve --latency 50` with --parallelism 1, 4
// and 16 (target: 16 at least 8x faster than 1), each against a fresh service. With --rate-limited:
// 300 creates with `--rate-limit 120/60` on both the service and the CLI, which must finish with zero
// failed requests (about 2.5 minutes by design).
// Usage: node bench/apply.mjs [--json] [--rate-limited | --all] [--count N]   (needs `npm run build`)
//   --all  both modes, one after the other (as `npm run bench -- --all` runs it)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const json = args.includes('--json');
const rateLimited = args.includes('--rate-limited');
const all = args.includes('--all');
const countAt = args.indexOf('--count');
const COUNT = countAt >= 0 ? Number(args[countAt + 1]) : undefined;
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

function writeFile(dir, count) {
  const file = join(dir, `accord-${count}.yaml`);
  const lines = ['version: 1', 'owner: bench', 'ssh_host_certificates:'];
  for (let i = 0; i < count; i++) {
    lines.push(
      `  host-${i}:`,
      '    ssh_certificate_authority_id: sshca_2demoHostCA0000000000000000',
      `    public_key: ${HOST_KEY}`,
      `    principals: [host-${i}.example.com]`,
    );
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** One apply of `count` creates against a fresh service. */
async function measure(dir, count, parallelism, serveArgs, cliArgs) {
  const server = await serve(serveArgs);
  try {
    const { code, wallMs, result } = await apply(server.url, writeFile(dir, count), [
      '--parallelism',
      String(parallelism),
      ...cliArgs,
    ]);
    return {
      parallelism,
      rate_limit: cliArgs.length > 0 ? RATE : null,
      exit_code: code,
      changes: result.summary.created,
      failed_changes: result.summary.failed + result.summary.skipped,
      requests: result.requests.total,
      failed_requests: failedRequests(result),
      retries: result.requests.retries,
      apply_s: Number((result.duration_ms / 1000).toFixed(2)),
      wall_s: Number((wallMs / 1000).toFixed(2)),
    };
  } finally {
    await server.stop();
  }
}

const modes = [];
const dir = mkdtempSync(join(tmpdir(), 'accord-bench-apply-'));
try {
  if (!rateLimited || all) {
    const count = countAt >= 0 ? COUNT : 1000;
    const runs = [];
    for (const p of [1, 4, 16]) runs.push(await measure(dir, count, p, [], []));
    const base = runs[0];
    for (const r of runs) {
      const speedup = Number((base.apply_s / r.apply_s).toFixed(1));
      modes.push({
        what: `${count} creates, --latency ${LATENCY_MS}, --parallelism ${r.parallelism}`,
        ...r,
        speedup,
        speedup_vs: 'vs --parallelism 1',
        target: r.parallelism === 16 ? '>= 8x vs --parallelism 1' : undefined,
        ok: r.parallelism === 16 ? speedup >= 8 && r.exit_code === 0 : r.exit_code === 0,
      });
    }
  }
  if (rateLimited || all) {
    const count = countAt >= 0 ? COUNT : 300;
    const r = await measure(dir, count, 4, ['--rate-limit', RATE], ['--rate-limit', RATE]);
    modes.push({
      what: `${count} creates, --rate-limit ${RATE} on service and CLI`,
      ...r,
      target: '0 failed requests',
      ok: r.exit_code === 0 && r.failed_requests === 0 && r.changes === count,
    });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const report = { bench: 'apply', latency_ms: LATENCY_MS, modes, ok: modes.every((m) => m.ok) };
if (json) {
  process.stdout.write(`${JSON.stringify(report)}\n`);
} else {
  console.log(`accord apply against accord serve --latency ${LATENCY_MS}`);
  console.log(
    'scenario                                              exit  requests  failed req  retries  apply s  wall s  speed-up',
  );
  for (const m of modes) {
    console.log(
      `${m.what.padEnd(52)}  ${String(m.exit_code).padStart(4)}  ${String(m.requests).padStart(8)}  ${String(m.failed_requests).padStart(10)}  ${String(m.retries).padStart(7)}  ${m.apply_s.toFixed(1).padStart(7)}  ${m.wall_s.toFixed(1).padStart(6)}  ${m.speedup === undefined ? '-' : `${m.speedup}x`}`,
    );
  }
  console.log(report.ok ? 'targets met' : 'targets NOT met');
}
process.exitCode = report.ok ? 0 : 1;
